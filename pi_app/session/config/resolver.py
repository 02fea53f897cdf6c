"""Model selection: ``--model`` / ``--models`` / ``enabledModels`` patterns and the initial model (pi §4.7).

Pattern forms: ``provider/id`` or a bare id (exact, case-insensitive; an id shared by several providers is
ambiguous and not an exact match), else a substring of id or name (aliases such as ``claude-sonnet-4-5``
or ``*-latest`` beat dated ids such as ``...-20250929``; otherwise the latest date wins), an optional
``:<thinking level>`` suffix, and globs (``*``, ``?``, ``[..]``) matched against ``provider/id`` or id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cmp_to_key

from pi_app.ai.models import default_model_per_provider
from pi_app.ai.types import THINKING_LEVELS, Model, models_are_equal
from pi_app.session.config.registry import ModelRegistry
from pi_app.session.config.settings_schema import DEFAULT_THINKING_LEVEL

_DATED = re.compile(r"-\d{8}$")


@dataclass
class ScopedModel:
    """A model in the ``--models`` / ``enabledModels`` scope, with the thinking level its pattern named."""

    model: Model
    thinking_level: str | None = None  # only when the pattern named one


@dataclass
class ParsedModel:
    """The model a pattern matched (None: none), the thinking level of its ``:level`` suffix, and a warning."""

    model: Model | None
    thinking_level: str | None = None
    warning: str | None = None


@dataclass
class CliModelResult:
    """The model ``--model`` / ``--provider`` chose, with its thinking level and a warning, or the error."""

    model: Model | None
    thinking_level: str | None = None
    warning: str | None = None
    error: str | None = None  # set when no model could be chosen; suitable for the CLI


@dataclass
class InitialModel:
    """The model and thinking level a session starts with, and a warning about the choice or why there is none."""

    model: Model | None
    thinking_level: str
    fallback_message: str | None = None
    error: str | None = None


def is_valid_thinking_level(level: str) -> bool:
    return level in THINKING_LEVELS


def is_alias(model_id: str) -> bool:
    """True unless the id ends in a -YYYYMMDD date (``-latest`` counts as an alias)."""
    return model_id.endswith("-latest") or not _DATED.search(model_id)


def find_exact_model_reference_match(reference: str, models: Sequence[Model]) -> Model | None:
    """``provider/id`` or a bare id, case-insensitively; None when absent or ambiguous."""
    ref = reference.strip()
    if not ref:
        return None
    lower = ref.lower()
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == lower]
    if canonical:
        return canonical[0] if len(canonical) == 1 else None
    provider, slash, model_id = ref.partition("/")
    if slash and provider.strip() and model_id.strip():
        p, i = provider.strip().lower(), model_id.strip().lower()
        hits = [m for m in models if m.provider.lower() == p and m.id.lower() == i]
        if hits:
            return hits[0] if len(hits) == 1 else None
    ids = [m for m in models if m.id.lower() == lower]
    return ids[0] if len(ids) == 1 else None


def _compare_ids_desc(a: Model, b: Model) -> int:
    ka, kb = (a.id.lower(), a.id), (b.id.lower(), b.id)
    return (ka < kb) - (ka > kb)


def try_match_model(pattern: str, models: Sequence[Model]) -> Model | None:
    exact = find_exact_model_reference_match(pattern, models)
    if exact is not None:
        return exact
    needle = pattern.lower()
    matches = [m for m in models if needle in m.id.lower() or (m.name and needle in m.name.lower())]
    if not matches:
        return None
    aliases = [m for m in matches if is_alias(m.id)]
    pool = aliases or matches
    return sorted(pool, key=cmp_to_key(_compare_ids_desc))[0]


def parse_model_pattern(
    pattern: str, models: Sequence[Model], *, allow_invalid_thinking_level_fallback: bool = True
) -> ParsedModel:
    """Match ``pattern``; if nothing matches, peel a ``:suffix`` off the end (ids may contain colons)."""
    found = try_match_model(pattern, models)
    if found is not None:
        return ParsedModel(found)
    prefix, colon, suffix = pattern.rpartition(":")
    if not colon:
        return ParsedModel(None)
    if is_valid_thinking_level(suffix):
        inner = parse_model_pattern(
            prefix, models, allow_invalid_thinking_level_fallback=allow_invalid_thinking_level_fallback
        )
        if inner.model is not None:
            return ParsedModel(inner.model, None if inner.warning else suffix, inner.warning)
        return inner
    if not allow_invalid_thinking_level_fallback:
        return ParsedModel(None)
    inner = parse_model_pattern(prefix, models)
    if inner.model is not None:
        return ParsedModel(
            inner.model,
            None,
            f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.',
        )
    return inner


# ---------------------------------------------------------------- globs
def _glob_to_regex(glob: str) -> re.Pattern[str]:
    """minimatch semantics that matter here: ``*``/``?`` stop at ``/``, ``**`` crosses it, ``[..]`` classes."""
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def glob_matches(pattern: str, model: Model) -> bool:
    rx = _glob_to_regex(pattern)
    return bool(rx.fullmatch(f"{model.provider}/{model.id}") or rx.fullmatch(model.id))


def resolve_model_scope(
    patterns: Sequence[str], models: Sequence[Model]
) -> tuple[list[ScopedModel], list[str]]:
    """Scoped models for ``--models`` / ``enabledModels`` (pass the *available* models) and warnings."""
    scoped: list[ScopedModel] = []
    warnings: list[str] = []

    def add(model: Model, level: str | None) -> None:
        if not any(models_are_equal(s.model, model) for s in scoped):
            scoped.append(ScopedModel(model, level))

    for pattern in patterns:
        if is_glob(pattern):
            glob, level = pattern, None
            head, colon, suffix = pattern.rpartition(":")
            if colon and is_valid_thinking_level(suffix):
                glob, level = head, suffix
            hits = [m for m in models if glob_matches(glob, m)]
            if not hits:
                warnings.append(f'No models match pattern "{pattern}"')
            for model in hits:
                add(model, level)
            continue
        parsed = parse_model_pattern(pattern, models)
        if parsed.warning:
            warnings.append(parsed.warning)
        if parsed.model is None:
            warnings.append(f'No models match pattern "{pattern}"')
            continue
        add(parsed.model, parsed.thinking_level)
    return scoped, warnings


# ---------------------------------------------------------------- CLI and initial model
def _exact_anywhere(text: str, models: Sequence[Model]) -> Model | None:
    lower = text.lower()
    for m in models:
        if m.id.lower() == lower or f"{m.provider}/{m.id}".lower() == lower:
            return m
    return None


def _fallback_model(provider: str, model_id: str, mine: Sequence[Model]) -> Model | None:
    """An unknown id on a known provider: the provider's default model renamed (custom deployments)."""
    if not mine:
        return None
    default_id = default_model_per_provider().get(provider)
    base = next((m for m in mine if m.id == default_id), mine[0])
    return base.model_copy(update={"id": model_id, "name": model_id}, deep=True)


def resolve_cli_model(
    registry: ModelRegistry, cli_model: str | None, cli_provider: str | None = None
) -> CliModelResult:
    """``--model`` (and ``--provider``) against *all* models, so ``--api-key`` works for first use.

    A pattern naming its provider is matched against that provider's models first, so the rest of the
    (large) catalogue is only built when it has to be searched.
    """
    if not cli_model:
        return CliModelResult(None)
    providers = registry.providers()
    if not providers:
        return CliModelResult(
            None, error="No models available. Check your installation or add models to models.json."
        )
    provider_map = {p.lower(): p for p in providers}
    provider = provider_map.get(cli_provider.lower()) if cli_provider else None
    if cli_provider and provider is None:
        return CliModelResult(
            None,
            error=f'Unknown provider "{cli_provider}". Use --list-models to see available providers/models.',
        )
    pattern, inferred = cli_model, False
    if provider is None:
        head, slash, rest = cli_model.partition("/")
        if slash and head.lower() in provider_map:
            provider, pattern, inferred = provider_map[head.lower()], rest, True
    if provider is None:
        models = registry.get_all()
        if (exact := _exact_anywhere(cli_model, models)) is not None:
            return CliModelResult(exact)
    if cli_provider and provider and cli_model.lower().startswith(provider.lower() + "/"):
        pattern = cli_model[len(provider) + 1 :]
    candidates = registry.get_provider_models(provider) if provider else registry.get_all()
    parsed = parse_model_pattern(pattern, candidates, allow_invalid_thinking_level_fallback=False)
    if parsed.model is not None:
        return CliModelResult(parsed.model, parsed.thinking_level, parsed.warning)
    if inferred:
        # "openai/gpt-4o:extended" may be an OpenRouter id rather than provider "openai".
        models = registry.get_all()
        if (exact := _exact_anywhere(cli_model, models)) is not None:
            return CliModelResult(exact)
        again = parse_model_pattern(cli_model, models, allow_invalid_thinking_level_fallback=False)
        if again.model is not None:
            return CliModelResult(again.model, again.thinking_level, again.warning)
    if provider and (fallback := _fallback_model(provider, pattern, candidates)) is not None:
        note = f'Model "{pattern}" not found for provider "{provider}". Using custom model id.'
        return CliModelResult(fallback, None, f"{parsed.warning} {note}" if parsed.warning else note)
    display = f"{provider}/{pattern}" if provider else cli_model
    return CliModelResult(
        None, None, parsed.warning, f'Model "{display}" not found. Use --list-models to see available models.'
    )


def pick_default_available(available: Sequence[Model]) -> Model | None:
    """The first provider's default model (in pi's provider order) that is available, else the first."""
    for provider, default_id in default_model_per_provider().items():
        for m in available:
            if m.provider == provider and m.id == default_id:
                return m
    return available[0] if available else None


def find_initial_model(
    registry: ModelRegistry,
    *,
    cli_provider: str | None = None,
    cli_model: str | None = None,
    scoped_models: Sequence[ScopedModel] = (),
    is_continuing: bool = False,
    default_provider: str | None = None,
    default_model_id: str | None = None,
    default_thinking_level: str | None = None,
) -> InitialModel:
    """CLI → first scoped model (unless continuing) → settings default with a credential → first available
    default → none."""
    if cli_model:
        resolved = resolve_cli_model(registry, cli_model, cli_provider)
        if resolved.error:
            return InitialModel(None, DEFAULT_THINKING_LEVEL, error=resolved.error)
        if resolved.model is not None:
            return InitialModel(
                resolved.model, resolved.thinking_level or DEFAULT_THINKING_LEVEL, resolved.warning
            )
    if scoped_models and not is_continuing:
        first = scoped_models[0]
        level = first.thinking_level or default_thinking_level or DEFAULT_THINKING_LEVEL
        return InitialModel(first.model, level)
    if default_provider and default_model_id:
        found = registry.find(default_provider, default_model_id)
        # pi 1.6: the saved default only while its provider has a credential configured.
        if found is not None and registry.auth.has_auth(found.provider):
            return InitialModel(found, default_thinking_level or DEFAULT_THINKING_LEVEL)
    chosen = pick_default_available(registry.get_available())
    if chosen is not None:
        return InitialModel(chosen, DEFAULT_THINKING_LEVEL)
    return InitialModel(
        None,
        DEFAULT_THINKING_LEVEL,
        error="No models available. Set an API key (e.g. ANTHROPIC_API_KEY) or add a provider in models.json.",
    )


async def restore_model_from_session(
    registry: ModelRegistry, saved_provider: str, saved_model_id: str, current: Model | None
) -> tuple[Model | None, str | None]:
    """(model, fallback message) for resuming: the session's model if it exists and has a key."""
    restored = registry.find(saved_provider, saved_model_id)
    has_key = restored is not None and bool(await registry.get_api_key(restored))
    if restored is not None and has_key:
        return restored, None
    reason = "model no longer exists" if restored is None else "no API key available"
    fallback = current or pick_default_available(registry.get_available())
    if fallback is None:
        return None, None
    return fallback, (
        f"Could not restore model {saved_provider}/{saved_model_id} ({reason}). "
        f"Using {fallback.provider}/{fallback.id}."
    )
