"""models.json (``<agentDir>/models.json``): custom providers, custom models and overrides of built-ins.

This module only parses and validates the file into a :class:`CustomModels` result; merging with the
built-in catalogue happens in :mod:`pi_app.session.config.registry`. A broken file never raises: the
result carries an ``error`` string naming the file and what is wrong, and no custom models.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pi_app.ai.types import Model, ModelCost
from pi_app.session.config.values import resolve_config_value, resolve_headers

Input = Literal["text", "image"]
LevelKey = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
# pi level -> provider value; null marks a level the model does not offer.
ThinkingLevelMap = dict[LevelKey, str | None]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class Routing(_Open):
    only: list[str] | None = None
    order: list[str] | None = None


class ReasoningEffortMap(_Open):
    minimal: str | None = None
    low: str | None = None
    medium: str | None = None
    high: str | None = None
    xhigh: str | None = None


class OpenAICompat(_Open):
    """OpenAICompletionsCompat; unknown (newer) flags are kept and passed through."""

    supportsStore: bool | None = None
    supportsDeveloperRole: bool | None = None
    supportsReasoningEffort: bool | None = None
    reasoningEffortMap: ReasoningEffortMap | None = None
    supportsUsageInStreaming: bool | None = None
    maxTokensField: Literal["max_completion_tokens", "max_tokens"] | None = None
    requiresToolResultName: bool | None = None
    requiresAssistantAfterToolResult: bool | None = None
    requiresThinkingAsText: bool | None = None
    thinkingFormat: Literal["openai", "zai", "qwen", "qwen-chat-template"] | None = None
    openRouterRouting: Routing | None = None
    vercelGatewayRouting: Routing | None = None
    supportsStrictMode: bool | None = None


class FullCost(_Open):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float


class PartialCost(_Open):
    input: float | None = None
    output: float | None = None
    cacheRead: float | None = None
    cacheWrite: float | None = None


class ImageResize(_Open):
    maxWidth: int | None = Field(default=None, ge=1)
    maxHeight: int | None = Field(default=None, ge=1)
    maxBytes: int | None = Field(default=None, ge=1)  # of the base64 payload
    jpegQuality: int | None = Field(default=None, ge=1, le=100)


class ImageInputLimits(_Open):
    resize: ImageResize | None = None
    maxPerMessage: int | None = Field(default=None, ge=1)
    maxPerRequest: int | None = Field(default=None, ge=1)


class InputLimits(_Open):
    """pi's ``inputLimits``: the resize profile images get before they enter the conversation, and hard
    request limits (recorded; pi does not act on them yet either)."""

    maxRequestBytes: int | None = Field(default=None, ge=1)
    images: ImageInputLimits | None = None


def input_limits_dict(limits: InputLimits | None) -> dict[str, Any] | None:
    return limits.model_dump(exclude_none=True) if limits is not None else None


def merge_input_limits(base: dict[str, Any] | None, override: InputLimits | None) -> dict[str, Any] | None:
    """pi's merge: override keys win; ``images`` and its ``resize`` merge one level down each."""
    over = input_limits_dict(override)
    if not over:
        return base
    merged = {**(base or {}), **over}
    if "images" in over:
        base_images = (base or {}).get("images") or {}
        images = {**base_images, **over["images"]}
        if "resize" in over["images"]:
            images["resize"] = {**(base_images.get("resize") or {}), **over["images"]["resize"]}
        merged["images"] = images
    return merged


class ModelDefinition(_Open):
    id: str = Field(min_length=1)
    name: str | None = Field(default=None, min_length=1)
    api: str | None = Field(default=None, min_length=1)
    baseUrl: str | None = Field(default=None, min_length=1)
    reasoning: bool | None = None
    thinkingLevelMap: ThinkingLevelMap | None = None
    input: list[Input] | None = None
    cost: FullCost | None = None
    contextWindow: int | None = None
    maxTokens: int | None = None
    headers: dict[str, str] | None = None
    compat: OpenAICompat | None = None
    inputLimits: InputLimits | None = None


class ModelOverride(_Open):
    name: str | None = Field(default=None, min_length=1)
    reasoning: bool | None = None
    thinkingLevelMap: ThinkingLevelMap | None = None
    input: list[Input] | None = None
    cost: PartialCost | None = None
    contextWindow: int | None = None
    maxTokens: int | None = None
    headers: dict[str, str] | None = None
    compat: OpenAICompat | None = None
    inputLimits: InputLimits | None = None


class ProviderConfig(_Open):
    baseUrl: str | None = Field(default=None, min_length=1)
    apiKey: str | None = Field(default=None, min_length=1)
    api: str | None = Field(default=None, min_length=1)
    headers: dict[str, str] | None = None
    compat: OpenAICompat | None = None
    authHeader: bool | None = None
    models: list[ModelDefinition] | None = None
    modelOverrides: dict[str, ModelOverride] | None = None


class ModelsConfig(_Open):
    providers: dict[str, ProviderConfig]


def compat_dict(compat: OpenAICompat | None) -> dict[str, Any] | None:
    return compat.model_dump(exclude_none=True) if compat is not None else None


def merge_compat(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    """Override wins per flag; the two routing objects are merged one level deeper."""
    if not override:
        return base
    merged = {**(base or {}), **override}
    for key in ("openRouterRouting", "vercelGatewayRouting"):
        if (base and key in base) or key in override:
            merged[key] = {**((base or {}).get(key) or {}), **(override.get(key) or {})}
    return merged


@dataclass
class ProviderOverride:
    """Provider-level settings applied to a built-in provider's models (re-routing through a proxy)."""

    baseUrl: str | None = None
    headers: dict[str, str] | None = None
    apiKey: str | None = None
    compat: dict[str, Any] | None = None


@dataclass
class CustomModels:
    """What models.json adds: custom models, provider and model overrides, API key settings, or the error."""

    models: list[Model] = field(default_factory=list)
    overrides: dict[str, ProviderOverride] = field(default_factory=dict)
    model_overrides: dict[str, dict[str, ModelOverride]] = field(default_factory=dict)
    api_keys: dict[str, str] = field(default_factory=dict)  # provider -> unresolved apiKey config
    error: str | None = None


def _format_validation(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors()[:10]:
        loc = "/" + "/".join(str(p) for p in err["loc"]) if err["loc"] else "root"
        lines.append(f"  - {loc}: {err['msg']}")
    return "\n".join(lines)


def _check_semantics(config: ModelsConfig) -> None:
    """pi's extra rules beyond the schema; raises ValueError with pi's wording."""
    for name, provider in config.providers.items():
        models = provider.models or []
        if not models:
            if not provider.baseUrl and not provider.compat and not provider.modelOverrides:
                raise ValueError(
                    f'Provider {name}: must specify "baseUrl", "compat", "modelOverrides", or "models".'
                )
        else:
            if not provider.baseUrl:
                raise ValueError(f'Provider {name}: "baseUrl" is required when defining custom models.')
            if not provider.apiKey:
                raise ValueError(f'Provider {name}: "apiKey" is required when defining custom models.')
        for model in models:
            if not provider.api and not model.api:
                raise ValueError(
                    f'Provider {name}, model {model.id}: no "api" specified. Set at provider or model level.'
                )
            if model.contextWindow is not None and model.contextWindow <= 0:
                raise ValueError(f"Provider {name}, model {model.id}: invalid contextWindow")
            if model.maxTokens is not None and model.maxTokens <= 0:
                raise ValueError(f"Provider {name}, model {model.id}: invalid maxTokens")


def _build_models(config: ModelsConfig) -> list[Model]:
    out: list[Model] = []
    for name, provider in config.providers.items():
        for definition in provider.models or []:
            api = definition.api or provider.api
            if not api:
                continue
            provider_headers = resolve_headers(provider.headers)
            model_headers = resolve_headers(definition.headers)
            headers = {**(provider_headers or {}), **(model_headers or {})} or None
            if provider.authHeader and provider.apiKey:
                key = resolve_config_value(provider.apiKey)
                if key:
                    headers = {**(headers or {}), "Authorization": f"Bearer {key}"}
            cost = definition.cost.model_dump() if definition.cost else {}
            out.append(
                Model(
                    id=definition.id,
                    name=definition.name or definition.id,
                    api=api,
                    provider=name,
                    baseUrl=definition.baseUrl or provider.baseUrl or "",
                    reasoning=bool(definition.reasoning),
                    thinkingLevelMap=level_map(definition.thinkingLevelMap),
                    input=list(definition.input or ["text"]),
                    cost=ModelCost(**cost),
                    contextWindow=definition.contextWindow or 128000,
                    maxTokens=definition.maxTokens or 16384,
                    headers=headers,
                    compat=merge_compat(compat_dict(provider.compat), compat_dict(definition.compat)),
                    inputLimits=input_limits_dict(definition.inputLimits),
                )
            )
    return out


def parse_models_config(text: str, source: str) -> CustomModels:
    """Parse models.json text; on any problem return an empty result whose ``error`` explains it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return CustomModels(
            error=f"Failed to parse models.json: {exc.msg} at line {exc.lineno} column {exc.colno}\n\nFile: {source}"
        )
    except RecursionError:
        return CustomModels(error=f"Failed to parse models.json: nested too deeply\n\nFile: {source}")
    try:
        config = ModelsConfig.model_validate(data)
    except ValidationError as exc:
        return CustomModels(error=f"Invalid models.json schema:\n{_format_validation(exc)}\n\nFile: {source}")
    try:
        _check_semantics(config)
    except ValueError as exc:
        return CustomModels(error=f"Invalid models.json: {exc}\n\nFile: {source}")
    result = CustomModels()
    for name, provider in config.providers.items():
        if provider.baseUrl or provider.headers or provider.apiKey or provider.compat:
            result.overrides[name] = ProviderOverride(
                baseUrl=provider.baseUrl,
                headers=provider.headers,
                apiKey=provider.apiKey,
                compat=compat_dict(provider.compat),
            )
        if provider.apiKey:
            result.api_keys[name] = provider.apiKey
        if provider.modelOverrides:
            result.model_overrides[name] = dict(provider.modelOverrides)
    result.models = _build_models(config)
    return result


def load_models_config(path: Path) -> CustomModels:
    """Read ``path``; a missing file is simply "no custom models"."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return CustomModels()
    except OSError as exc:
        return CustomModels(error=f"Failed to load models.json: {exc.strerror or exc}\n\nFile: {path}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        return CustomModels(error=f"Failed to parse models.json: not valid UTF-8 ({bad})\n\nFile: {path}")
    if not text.strip():
        return CustomModels()
    return parse_models_config(text, str(path))


def level_map(mapping: ThinkingLevelMap | None) -> dict[str, str | None] | None:
    """A validated thinkingLevelMap as the model stores it."""
    return {str(level): value for level, value in mapping.items()} if mapping is not None else None


def apply_model_override(model: Model, override: ModelOverride) -> Model:
    """A copy of ``model`` with the override's fields; cost and compat are merged, headers added."""
    result = model.model_copy(deep=True)
    if override.name is not None:
        result.name = override.name
    if override.reasoning is not None:
        result.reasoning = override.reasoning
    if override.thinkingLevelMap is not None:
        result.thinkingLevelMap = {
            **(result.thinkingLevelMap or {}),
            **(level_map(override.thinkingLevelMap) or {}),
        }
    if override.input is not None:
        result.input = list(override.input)
    if override.contextWindow is not None:
        result.contextWindow = override.contextWindow
    if override.maxTokens is not None:
        result.maxTokens = override.maxTokens
    if override.cost is not None:
        for key, value in override.cost.model_dump(exclude_none=True).items():
            setattr(result.cost, key, value)
    if override.headers:
        resolved = resolve_headers(override.headers)
        if resolved:
            result.headers = {**(result.headers or {}), **resolved}
    result.compat = merge_compat(result.compat, compat_dict(override.compat))
    result.inputLimits = merge_input_limits(result.inputLimits, override.inputLimits)
    return result
