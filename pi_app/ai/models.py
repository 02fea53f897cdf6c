"""The built-in model catalogue (pi's ``getModel``/``getModels``/``getProviders``) and thinking-level helpers.

The catalogue is pi 1.6's, generated into ``pi_app/ai/data/models.json`` by ``scripts/update_catalogue.py``.
It holds the providers whose wire API we implement (anthropic-messages, openai-completions,
openai-responses, google-generative-ai; Mistral through its OpenAI-compatible endpoint). The file is
parsed on first use and each provider's models are validated only when that provider is asked for, so
importing ``pi_app.ai`` and starting with one provider stay cheap.

Thinking levels follow each model's ``thinkingLevelMap`` (pi's semantics): a reasoning model offers
off…high unless the map sets a level to null, and ``xhigh``/``max`` only where the map names them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pi_app.ai.types import MODEL_THINKING_LEVELS, Model

# Levels every reasoning model offers unless its map says null; the rest need an explicit mapping.
_BASE_LEVELS = frozenset({"off", "minimal", "low", "medium", "high"})


@dataclass
class _Data:
    """The catalogue file cut up: its top-level fields, and each provider's models still as JSON text."""

    head: dict[str, Any]  # source, defaultModels, skippedModels
    sections: dict[str, str]  # provider -> its models as JSON array text (parsed on first use)


# The generator writes one model per line under a ``    "provider": {`` line (scripts/update_catalogue.py
# ``render``): the loader cuts the file at those lines and parses a provider's models only when asked for.
# Any other layout (a hand-edited file) is parsed whole.
_PROVIDER_LINE = re.compile(r'^    ("[^"\\]+"): \{$')


def _split_layout(lines: list[str]) -> _Data:
    if lines[:1] != ["{"] or lines[-2:] != ["}", ""]:
        raise ValueError("layout")
    head: dict[str, Any] = {}
    i = 1
    while lines[i] != '  "providers": {':
        if not lines[i].startswith('  "'):
            raise ValueError("layout")
        head.update(json.loads("{" + lines[i].rstrip(",") + "}"))
        i += 1
    sections: dict[str, str] = {}
    i += 1
    while (match := _PROVIDER_LINE.match(lines[i])) is not None:
        if lines[i + 1] != '      "models": [':
            raise ValueError("layout")
        end = lines.index("      ]", i + 2)
        if lines[end + 1] not in ("    }", "    },"):
            raise ValueError("layout")
        sections[json.loads(match.group(1))] = "[" + "\n".join(lines[i + 2 : end]) + "]"
        i = end + 2
    if lines[i:] != ["  }", "}", ""]:
        raise ValueError("layout")
    return _Data(head, sections)


@cache
def _data() -> _Data:
    text = resources.files("pi_app.ai.data").joinpath("models.json").read_text(encoding="utf-8")
    try:
        return _split_layout(text.split("\n"))
    except (ValueError, IndexError):
        raw = json.loads(text)
        head = {k: v for k, v in raw.items() if k != "providers"}
        sections = {p: json.dumps(entry["models"]) for p, entry in raw["providers"].items()}
        return _Data(head, sections)


@cache
def _raw_models(provider: str) -> list[dict[str, Any]]:
    section = _data().sections.get(provider)
    models: list[dict[str, Any]] = json.loads(section) if section else []
    return models


@cache
def _provider_models(provider: str) -> dict[str, Model]:
    """id -> validated model, in catalogue order (built once per provider)."""
    return {m["id"]: Model.model_validate(m) for m in _raw_models(provider)}


def default_model_per_provider() -> dict[str, str]:
    """pi's first-run pick per provider, in pi's preference order (includes providers we do not ship)."""
    defaults: dict[str, str] = _data().head["defaultModels"]
    return defaults


def catalogue_version() -> str:
    """Version of pi's ``@earendil-works/pi-ai`` package the catalogue was generated from."""
    return str(_data().head["source"]["version"])


def get_providers() -> list[str]:
    return list(_data().sections)


def builtin_model_ids(provider: str) -> list[str]:
    """The provider's model ids without building the models."""
    return [m["id"] for m in _raw_models(provider)]


def builtin_provider_models_shared(provider: str) -> list[Model]:
    """One provider's cached catalogue instances (no copies). Callers must copy a model before changing it."""
    return list(_provider_models(provider).values())


def builtin_models_shared() -> list[Model]:
    """Every cached catalogue instance (no copies), grouped by provider in catalogue order.
    Callers must copy a model before changing it."""
    return [m for p in get_providers() for m in _provider_models(p).values()]


def get_builtin_models() -> list[Model]:
    """Every built-in model (fresh copies, safe to mutate), grouped by provider in catalogue order."""
    return [m.model_copy(deep=True) for m in builtin_models_shared()]


def get_models(provider: str) -> list[Model]:
    return [m.model_copy(deep=True) for m in _provider_models(provider).values()]


def get_model(provider: str, model_id: str) -> Model | None:
    model = _provider_models(provider).get(model_id)
    return model.model_copy(deep=True) if model else None


def default_model_id(provider: str) -> str | None:
    """pi's default model id for ``provider`` (may name a model the catalogue does not have, as in pi)."""
    return default_model_per_provider().get(provider)


def available_thinking_levels(model: Model) -> list[str]:
    """Levels the model offers, in order: only "off" for non-reasoning models; a level the model's
    ``thinkingLevelMap`` sets to null is not offered; ``xhigh``/``max`` only where the map names them."""
    if not model.reasoning:
        return ["off"]
    mapping = model.thinkingLevelMap or {}
    levels = []
    for level in MODEL_THINKING_LEVELS:
        if level in mapping:
            if mapping[level] is not None:
                levels.append(level)
        elif level in _BASE_LEVELS:
            levels.append(level)
    return levels


def supports_xhigh(model: Model) -> bool:
    """The model offers the ``xhigh`` level."""
    return "xhigh" in available_thinking_levels(model)


def supports_thinking_off(model: Model) -> bool:
    """False for reasoning models whose thinking cannot be turned off."""
    return "off" in available_thinking_levels(model)


def clamp_thinking_level(model: Model, level: str) -> str:
    """The level ``model`` will use for ``level``: itself when offered, else the nearest offered level
    above it, else the nearest below (so "off" on a model that always thinks becomes its lowest level).

    Unknown levels (they come from user files) fall back to the model's first offered level.
    """
    offered = available_thinking_levels(model)
    if level in offered:
        return level
    if level not in MODEL_THINKING_LEVELS:
        return offered[0]
    index = MODEL_THINKING_LEVELS.index(level)
    above = [lvl for lvl in MODEL_THINKING_LEVELS[index + 1 :] if lvl in offered]
    if above:
        return above[0]
    below = [lvl for lvl in MODEL_THINKING_LEVELS[:index] if lvl in offered]
    return below[-1] if below else offered[0]


def provider_thinking_value(model: Model, level: str) -> str | None:
    """The provider's value for ``level`` from the model's map (None: not mapped, use the API default)."""
    value = (model.thinkingLevelMap or {}).get(level)
    return value if isinstance(value, str) else None
