"""ModelRegistry: the built-in catalogue merged with models.json, plus API-key lookup through AuthStorage.

Order of application (pi's): provider-level override (baseUrl/headers/compat) on each built-in model →
per-model ``modelOverrides`` → custom ``models`` upserted by (provider, id) → providers registered at
runtime (extensions). A broken models.json leaves the built-ins usable and is reported by ``error``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.ai.models import builtin_model_ids, builtin_provider_models_shared, get_providers
from pi_app.ai.types import Model, ModelCost
from pi_app.session.config import paths
from pi_app.session.config.auth import AuthStorage
from pi_app.session.config.models_config import (
    CustomModels,
    ModelDefinition,
    apply_model_override,
    input_limits_dict,
    level_map,
    load_models_config,
    merge_compat,
)
from pi_app.session.config.values import resolve_config_value, resolve_headers


@dataclass
class ProviderRegistration:
    """What an extension registers with ``register_provider`` (pi's ProviderConfigInput, minus OAuth)."""

    baseUrl: str | None = None
    apiKey: str | None = None
    api: str | None = None
    headers: dict[str, str] | None = None
    authHeader: bool = False
    models: list[dict[str, Any]] = field(default_factory=list)


class ModelRegistry:
    def __init__(self, auth: AuthStorage, models_json_path: Path | str | None = "default") -> None:
        self.auth = auth
        if models_json_path == "default":
            self.models_json_path: Path | None = paths.models_path()
        else:
            self.models_json_path = Path(models_json_path) if models_json_path is not None else None
        self._all: list[Model] | None = None
        self._blocks: dict[str, list[Model]] = {}
        self._builtin_providers: list[str] = []
        self._builtin_replacements: dict[str, list[Model]] = {}
        self._custom_tail: list[Model] = []
        self._custom = CustomModels()
        self._provider_keys: dict[str, str] = {}
        self._registered: dict[str, ProviderRegistration] = {}
        self.error: str | None = None
        auth.set_fallback_resolver(self._resolve_provider_key)
        self._load()

    def _resolve_provider_key(self, provider: str) -> str | None:
        config = self._provider_keys.get(provider)
        return resolve_config_value(config) if config else None

    # ------------------------------------------------------------ loading
    def refresh(self) -> None:
        """Re-read models.json (pi does this each time /model opens) and re-apply registrations."""
        self._load()

    def _load(self) -> None:
        custom = load_models_config(self.models_json_path) if self.models_json_path else CustomModels()
        self.error = custom.error
        self._provider_keys = dict(custom.api_keys)
        self._custom = custom
        # Built-in models are validated per provider on first need (the catalogue is large): until
        # something asks for every model, queries touch only the providers they name or can use.
        self._all = None
        self._blocks = {}
        self._builtin_providers = get_providers()
        # Only providers that custom models name are looked into (ids without building models).
        builtin = set(self._builtin_providers)
        named = {m.provider for m in custom.models if m.provider in builtin}
        builtin_ids = {p: set(builtin_model_ids(p)) for p in named}
        self._builtin_replacements = {}
        tail: list[Model] = []
        for model in custom.models:
            if model.id in builtin_ids.get(model.provider, ()):
                self._builtin_replacements.setdefault(model.provider, []).append(model)
            else:
                _upsert(tail, model)
        self._custom_tail = tail
        for name, registration in self._registered.items():
            self._apply_registration(name, registration)

    def _builtin_block(self, provider: str) -> list[Model]:
        """One built-in provider's models: overrides applied, custom models with the same id swapped in."""
        block = self._blocks.get(provider)
        if block is None:
            block = self._builtins_with_overrides(self._custom, builtin_provider_models_shared(provider))
            for model in self._builtin_replacements.get(provider, ()):
                _upsert(block, model)
            self._blocks[provider] = block
        return block

    @property
    def _models(self) -> list[Model]:
        """Every model in order (built-ins by provider, then custom additions, then registrations)."""
        if self._all is None:
            self._all = [m for p in self._builtin_providers for m in self._builtin_block(p)]
            self._all.extend(self._custom_tail)
        return self._all

    @staticmethod
    def _builtins_with_overrides(custom: CustomModels, builtins: list[Model]) -> list[Model]:
        out: list[Model] = []
        resolved_headers: dict[str, dict[str, str] | None] = {}
        for model in builtins:
            override = custom.overrides.get(model.provider)
            per_model = custom.model_overrides.get(model.provider, {}).get(model.id)
            if override is not None or per_model is not None:
                model = model.model_copy(deep=True)  # only changed models are copied (startup cost)
            if override is not None:
                if model.provider not in resolved_headers:
                    resolved_headers[model.provider] = resolve_headers(override.headers)
                headers = resolved_headers[model.provider]
                model.baseUrl = override.baseUrl or model.baseUrl
                if headers:
                    model.headers = {**(model.headers or {}), **headers}
                model.compat = merge_compat(model.compat, override.compat)
            if per_model is not None:
                model = apply_model_override(model, per_model)
            out.append(model)
        return out

    # ------------------------------------------------------------ queries
    def get_all(self) -> list[Model]:
        return list(self._models)

    def get_available(self) -> list[Model]:
        """Models whose provider has some credential configured (no commands run, no refresh)."""
        cache: dict[str, bool] = {}

        def usable(provider: str) -> bool:
            if provider not in cache:
                cache[provider] = self.auth.has_auth(provider)
            return cache[provider]

        if self._all is None:
            out = [m for p in self._builtin_providers if usable(p) for m in self._builtin_block(p)]
            return out + [m for m in self._custom_tail if usable(m.provider)]
        return [m for m in self._all if usable(m.provider)]

    def find(self, provider: str, model_id: str) -> Model | None:
        if self._all is None:
            block = self._builtin_block(provider) if provider in self._builtin_providers else []
            candidates: list[Model] = [*block, *self._custom_tail]
        else:
            candidates = self._all
        for model in candidates:
            if model.provider == provider and model.id == model_id:
                return model
        return None

    def get_provider_models(self, provider: str) -> list[Model]:
        """One provider's models in order (builds only that provider's built-ins)."""
        if self._all is None:
            block = self._builtin_block(provider) if provider in self._builtin_providers else []
            return [*block, *(m for m in self._custom_tail if m.provider == provider)]
        return [m for m in self._all if m.provider == provider]

    def providers(self) -> list[str]:
        if self._all is None:
            return list(dict.fromkeys([*self._builtin_providers, *(m.provider for m in self._custom_tail)]))
        return list(dict.fromkeys(m.provider for m in self._all))

    async def get_api_key(self, model: Model) -> str | None:
        return await self.auth.get_api_key(model.provider)

    def get_api_key_sync(self, model: Model) -> str | None:
        return self.auth.get_api_key_sync(model.provider)

    def is_using_oauth(self, model: Model) -> bool:
        return self.auth.is_oauth(model.provider)

    # ------------------------------------------------------------ extensions
    def register_provider(self, name: str, registration: ProviderRegistration) -> None:
        """With models: replaces the provider's models. With only baseUrl/headers: re-routes them.

        Raises ValueError when models are given without baseUrl, apiKey or an api.
        """
        if registration.models:
            if not registration.baseUrl:
                raise ValueError(f'Provider {name}: "baseUrl" is required when defining models.')
            if not registration.apiKey:
                raise ValueError(f'Provider {name}: "apiKey" or "oauth" is required when defining models.')
            for definition in registration.models:
                if not (definition.get("api") or registration.api):
                    raise ValueError(f'Provider {name}, model {definition.get("id")}: no "api" specified.')
        self._registered[name] = registration
        self._apply_registration(name, registration)

    def unregister_provider(self, name: str) -> None:
        if self._registered.pop(name, None) is not None:
            self._load()

    def _apply_registration(self, name: str, reg: ProviderRegistration) -> None:
        if reg.apiKey:
            self._provider_keys[name] = reg.apiKey
        headers = resolve_headers(reg.headers)
        if reg.models:
            self._all = [m for m in self._models if m.provider != name]
            for raw in reg.models:
                definition = ModelDefinition.model_validate(raw, strict=False)
                model_headers = {**(headers or {}), **(resolve_headers(definition.headers) or {})} or None
                if reg.authHeader and reg.apiKey and (key := resolve_config_value(reg.apiKey)):
                    model_headers = {**(model_headers or {}), "Authorization": f"Bearer {key}"}
                self._models.append(
                    Model(
                        id=definition.id,
                        name=definition.name or definition.id,
                        api=definition.api or reg.api or "",
                        provider=name,
                        baseUrl=definition.baseUrl or reg.baseUrl or "",
                        reasoning=bool(definition.reasoning),
                        thinkingLevelMap=level_map(definition.thinkingLevelMap),
                        input=list(definition.input or ["text"]),
                        cost=ModelCost(**definition.cost.model_dump()) if definition.cost else ModelCost(),
                        contextWindow=definition.contextWindow or 128000,
                        maxTokens=definition.maxTokens or 16384,
                        headers=model_headers,
                        compat=definition.compat.model_dump(exclude_none=True) if definition.compat else None,
                        inputLimits=input_limits_dict(definition.inputLimits),
                    )
                )
        elif reg.baseUrl:
            models = self._models
            for i, model in enumerate(models):
                if model.provider == name:
                    # Built-ins are shared catalogue instances: re-route a copy.
                    model = models[i] = model.model_copy(deep=True)
                    model.baseUrl = reg.baseUrl
                    if headers:
                        model.headers = {**(model.headers or {}), **headers}


def _upsert(models: list[Model], model: Model) -> None:
    for i, existing in enumerate(models):
        if existing.provider == model.provider and existing.id == model.id:
            models[i] = model
            return
    models.append(model)


def create_registry(
    agent_dir: str | os.PathLike[str] | None = None,
) -> ModelRegistry:
    """AuthStorage + ModelRegistry for ``agent_dir`` (default: paths.agent_dir())."""
    base = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
    return ModelRegistry(AuthStorage.create(base / "auth.json"), base / "models.json")
