"""The built-in model catalogue (pi's ``getModel``/``getModels``/``getProviders``) and thinking-level helpers.

The catalogue lives in ``pi_app/ai/data/models.json`` and is parsed on first use, so importing
``pi_app.ai`` stays cheap. Only providers whose wire API we implement are included
(anthropic-messages, openai-completions, openai-responses, google-generative-ai); Mistral is served
through its OpenAI-compatible chat-completions endpoint instead of pi's ``mistral-conversations`` SDK.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from pi_app.ai.types import THINKING_LEVELS, Model

# pi's first-run pick per provider (model-resolver ``defaultModelPerProvider``), including providers whose
# API we do not ship: the order matters, it is the preference order when picking an initial model.
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-4-6-v1",
    "anthropic": "claude-opus-4-6",
    "openai": "gpt-5.4",
    "azure-openai-responses": "gpt-5.2",
    "openai-codex": "gpt-5.4",
    "google": "gemini-2.5-pro",
    "google-gemini-cli": "gemini-2.5-pro",
    "google-antigravity": "gemini-3.1-pro-high",
    "google-vertex": "gemini-3-pro-preview",
    "github-copilot": "gpt-4o",
    "openrouter": "openai/gpt-5.1-codex",
    "vercel-ai-gateway": "anthropic/claude-opus-4-6",
    "xai": "grok-4-fast-non-reasoning",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "zai-glm-4.6",
    "zai": "glm-4.6",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M2.1",
    "minimax-cn": "MiniMax-M2.1",
    "huggingface": "moonshotai/Kimi-K2.5",
    "opencode": "claude-opus-4-6",
    "opencode-go": "kimi-k2.5",
    "kimi-coding": "kimi-k2-thinking",
}


@cache
def _catalogue() -> dict[str, dict[str, Any]]:
    """provider -> {"defaultModel": str | None, "models": {id: Model}} in file order."""
    raw = json.loads(resources.files("pi_app.ai.data").joinpath("models.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for provider, entry in raw["providers"].items():
        models = {m["id"]: Model.model_validate(m) for m in entry["models"]}
        out[provider] = {"defaultModel": entry.get("defaultModel"), "models": models}
    return out


def get_builtin_models() -> list[Model]:
    """Every built-in model (fresh copies, safe to mutate), grouped by provider in catalogue order."""
    return [m.model_copy(deep=True) for p in _catalogue().values() for m in p["models"].values()]


def builtin_models_shared() -> list[Model]:
    """The cached catalogue instances themselves (no copies: startup builds the registry from these).
    Callers must copy a model before changing it."""
    return [m for p in _catalogue().values() for m in p["models"].values()]


def get_providers() -> list[str]:
    return list(_catalogue())


def get_models(provider: str) -> list[Model]:
    entry = _catalogue().get(provider)
    return [m.model_copy(deep=True) for m in entry["models"].values()] if entry else []


def get_model(provider: str, model_id: str) -> Model | None:
    entry = _catalogue().get(provider)
    model = entry["models"].get(model_id) if entry else None
    return model.model_copy(deep=True) if model else None


def default_model_id(provider: str) -> str | None:
    """pi's default model id for ``provider`` (may name a model the catalogue no longer has, as in pi)."""
    return DEFAULT_MODEL_PER_PROVIDER.get(provider)


def supports_xhigh(model: Model) -> bool:
    """GPT-5.2/5.3/5.4 families and Opus 4.6 accept the ``xhigh`` level."""
    mid = model.id
    return any(tag in mid for tag in ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"))


def available_thinking_levels(model: Model) -> list[str]:
    """Levels the thinking cycle offers: only "off" for non-reasoning models, xhigh only where supported."""
    if not model.reasoning:
        return ["off"]
    levels = [lvl for lvl in THINKING_LEVELS if lvl != "xhigh"]
    if supports_xhigh(model):
        levels.append("xhigh")
    return levels


def clamp_thinking_level(model: Model, level: str) -> str:
    """The closest level ``model`` accepts: non-reasoning → off, xhigh/max → high unless xhigh is supported.

    Unknown levels are treated as "off" rather than raising, since they come from user files.
    """
    if not model.reasoning or level not in (*THINKING_LEVELS, "max"):
        return "off"
    if level in ("xhigh", "max"):
        return "xhigh" if supports_xhigh(model) else "high"
    return level
