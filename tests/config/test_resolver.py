"""Model patterns (§4.7) and the initial-model choice."""

from __future__ import annotations

import pytest

from pi_app.ai.types import Model
from pi_app.session.config import (
    AuthStorage,
    ModelRegistry,
    find_initial_model,
    parse_model_pattern,
    resolve_cli_model,
    resolve_model_scope,
    restore_model_from_session,
)
from pi_app.session.config.resolver import glob_matches, is_alias


def _m(provider: str, model_id: str, name: str = "") -> Model:
    return Model(id=model_id, name=name or model_id, api="openai-completions", provider=provider)


MODELS = [
    _m("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5"),
    _m("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5 alias"),
    _m("anthropic", "claude-3-5-haiku-20241022"),
    _m("anthropic", "claude-3-5-haiku-20240601"),
    _m("openai", "gpt-4o"),
    _m("openrouter", "gpt-4o"),
    _m("openrouter", "openai/gpt-4o:extended"),
    _m("openrouter", "anthropic/claude-sonnet-4"),
]


def test_is_alias():
    assert is_alias("claude-sonnet-4-5") and is_alias("claude-3-5-sonnet-latest")
    assert not is_alias("claude-sonnet-4-5-20250929")


@pytest.mark.parametrize(
    "pattern,expected",
    [
        ("anthropic/claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("OPENAI/GPT-4O", ("openai", "gpt-4o")),
        ("sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),  # substring prefers the alias
        ("haiku", ("anthropic", "claude-3-5-haiku-20241022")),  # no alias: latest date
        ("Sonnet 4.5 alias", ("anthropic", "claude-sonnet-4-5")),  # name substring
        ("openai/gpt-4o:extended", ("openrouter", "openai/gpt-4o:extended")),  # colon inside an id
        ("nothing-like-this", None),
    ],
)
def test_parse_model_pattern(pattern, expected):
    got = parse_model_pattern(pattern, MODELS).model
    assert ((got.provider, got.id) if got else None) == expected


def test_ambiguous_bare_id_is_not_exact():
    # "gpt-4o" exists on two providers: no exact match, so substring matching picks one deterministically.
    parsed = parse_model_pattern("gpt-4o", [_m("openai", "gpt-4o"), _m("openrouter", "gpt-4o")])
    assert parsed.model is not None and parsed.model.id == "gpt-4o"


def test_thinking_suffix():
    parsed = parse_model_pattern("sonnet-4-5:high", MODELS)
    assert (
        parsed.model.id == "claude-sonnet-4-5" and parsed.thinking_level == "high" and parsed.warning is None
    )
    bad = parse_model_pattern("sonnet-4-5:turbo", MODELS)
    assert bad.model.id == "claude-sonnet-4-5" and bad.thinking_level is None and "turbo" in bad.warning
    strict = parse_model_pattern("sonnet-4-5:turbo", MODELS, allow_invalid_thinking_level_fallback=False)
    assert strict.model is None


def test_globs_do_not_cross_slashes():
    assert glob_matches("anthropic/*", MODELS[0])
    assert glob_matches("*sonnet*", MODELS[1])
    assert not glob_matches("*sonnet*", MODELS[7])  # "anthropic/claude-sonnet-4" id has a slash
    assert glob_matches("openrouter/**sonnet*", MODELS[7])


def test_resolve_model_scope():
    scoped, warnings = resolve_model_scope(["anthropic/*haiku*:low", "gpt-4o", "sonnet-4-5", "zzz*"], MODELS)
    got = [(s.model.provider, s.model.id, s.thinking_level) for s in scoped]
    assert got[:2] == [
        ("anthropic", "claude-3-5-haiku-20241022", "low"),
        ("anthropic", "claude-3-5-haiku-20240601", "low"),
    ]
    assert ("anthropic", "claude-sonnet-4-5", None) in got
    assert warnings == ['No models match pattern "zzz*"']
    again, _ = resolve_model_scope(["*haiku*", "anthropic/claude-3-5-haiku-20241022"], MODELS)
    assert len(again) == 2  # no duplicates


@pytest.fixture
def registry(tmp_path, monkeypatch):
    return ModelRegistry(AuthStorage.in_memory(), tmp_path / "models.json")


def test_cli_model(registry):
    r = resolve_cli_model(registry, "anthropic/claude-sonnet-4-5")
    assert (r.model.provider, r.model.id, r.error) == ("anthropic", "claude-sonnet-4-5", None)
    r = resolve_cli_model(registry, "sonnet-4-5:high", "anthropic")
    assert r.model.id == "claude-sonnet-4-5" and r.thinking_level == "high"
    r = resolve_cli_model(registry, "my-finetune", "openai")
    assert (
        r.model.id == "my-finetune" and r.model.provider == "openai" and "Using custom model id" in r.warning
    )
    r = resolve_cli_model(registry, "x", "nope")
    assert r.model is None and 'Unknown provider "nope"' in r.error
    r = resolve_cli_model(registry, "definitely-not-a-model-xyz")
    assert r.model is None and "not found" in r.error


def test_initial_model_prefers_settings_then_provider_defaults(registry, monkeypatch):
    none = find_initial_model(registry)
    assert none.model is None and "No models available" in none.error
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("GROQ_API_KEY", "k")
    first = find_initial_model(registry)
    assert (first.model.provider, first.model.id, first.thinking_level) == ("openai", "gpt-6.2-sol", "medium")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert find_initial_model(registry).model.id == "claude-opus-5-5"  # anthropic comes first in pi's order
    chosen = find_initial_model(
        registry,
        default_provider="groq",
        default_model_id="openai/gpt-oss-120b",
        default_thinking_level="high",
    )
    assert (chosen.model.provider, chosen.thinking_level) == ("groq", "high")
    cli = find_initial_model(
        registry,
        cli_model="gpt-4o",
        cli_provider="openai",
        default_provider="groq",
        default_model_id="openai/gpt-oss-120b",
    )
    assert (cli.model.provider, cli.model.id) == ("openai", "gpt-4o")


async def test_restore_model_from_session(registry, monkeypatch):
    model, msg = await restore_model_from_session(registry, "openai", "gpt-4o", None)
    assert model is None and msg is None
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    model, msg = await restore_model_from_session(registry, "openai", "gpt-4o", None)
    assert model.id == "gpt-4o" and msg is None
    model, msg = await restore_model_from_session(registry, "anthropic", "claude-opus-4-6", None)
    assert model.provider == "openai" and "no API key available" in msg
