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

from pi_app.ai.models import builtin_models_shared
from pi_app.ai.types import Model, ModelCost
from pi_app.session.config import paths
from pi_app.session.config.auth import AuthStorage
from pi_app.session.config.models_config import (
    CustomModels,
    ModelDefinition,
    apply_model_override,
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
        self._models: list[Model] = []
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
        models = self._builtins_with_overrides(custom)
        for model in custom.models:
            _upsert(models, model)
        self._models = models
        for name, registration in self._registered.items():
            self._apply_registration(name, registration)

    @staticmethod
    def _builtins_with_overrides(custom: CustomModels) -> list[Model]:
        out: list[Model] = []
        resolved_headers: dict[str, dict[str, str] | None] = {}
        for model in builtin_models_shared():
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
        out = []
        for model in self._models:
            if model.provider not in cache:
                cache[model.provider] = self.auth.has_auth(model.provider)
            if cache[model.provider]:
                out.append(model)
        return out

    def find(self, provider: str, model_id: str) -> Model | None:
        for model in self._models:
            if model.provider == provider and model.id == model_id:
                return model
        return None

    def providers(self) -> list[str]:
        return list(dict.fromkeys(m.provider for m in self._models))

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
            self._models = [m for m in self._models if m.provider != name]
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
                        input=list(definition.input or ["text"]),
                        cost=ModelCost(**definition.cost.model_dump()) if definition.cost else ModelCost(),
                        contextWindow=definition.contextWindow or 128000,
                        maxTokens=definition.maxTokens or 16384,
                        headers=model_headers,
                        compat=definition.compat.model_dump(exclude_none=True) if definition.compat else None,
                    )
                )
        elif reg.baseUrl:
            for model in self._models:
                if model.provider == name:
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
