"""Picking the first model with pi 1.6's catalogue and defaults (keys from the environment)."""

from __future__ import annotations

import pytest

from pi_app.ai.env_keys import ENV_API_KEY_VARS
from pi_app.session.config import AuthStorage, ModelRegistry, find_initial_model, resolve_cli_model


@pytest.fixture
def registry(tmp_path, monkeypatch):
    for names in ENV_API_KEY_VARS.values():
        for name in (names,) if isinstance(names, str) else names:
            monkeypatch.delenv(name, raising=False)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return ModelRegistry(AuthStorage.in_memory(), tmp_path / "models.json")


@pytest.mark.parametrize(
    "env,provider,model_id",
    [
        ("DEEPSEEK_API_KEY", "deepseek", "deepseek-v4-pro"),
        ("MOONSHOT_API_KEY", "moonshotai", "kimi-k2.7-code"),
        ("QWEN_TOKEN_PLAN_API_KEY", "qwen-token-plan", "qwen3.8-max"),
        ("XIAOMI_API_KEY", "xiaomi", "mimo-v2.6-pro"),
        ("ANTHROPIC_API_KEY", "anthropic", "claude-opus-5-5"),
    ],
)
def test_new_providers_are_usable_with_their_key(registry, monkeypatch, env, provider, model_id):
    monkeypatch.setenv(env, "k")
    chosen = find_initial_model(registry).model
    assert (chosen.provider, chosen.id) == (provider, model_id)


def test_preference_follows_pi16s_provider_order(registry, monkeypatch):
    for env in ("XAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.setenv(env, "k")
    # pi 1.6's order: ... deepseek, google, ... xai
    assert find_initial_model(registry).model.provider == "deepseek"


def test_saved_default_needs_a_credential(registry, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    saved = {"default_provider": "anthropic", "default_model_id": "claude-haiku-4-5"}
    chosen = find_initial_model(registry, **saved).model
    assert (chosen.provider, chosen.id) == ("google", "gemini-4-argon")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    chosen = find_initial_model(registry, **saved).model
    assert (chosen.provider, chosen.id) == ("anthropic", "claude-haiku-4-5")


def test_cli_model_by_provider_only_builds_that_provider(registry):
    result = resolve_cli_model(registry, "mistral/mistral-large-4:max")
    assert (result.model.id, result.thinking_level) == ("mistral-large-4", "max")
    assert set(registry._blocks) == {"mistral"}
    # An unknown id on a known provider falls back to pi 1.6's default model of that provider, renamed.
    fallback = resolve_cli_model(registry, "my-deployment", "zai")
    assert fallback.model.id == "my-deployment" and fallback.model.contextWindow > 0
    assert "Using custom model id" in fallback.warning
    assert set(registry._blocks) == {"mistral", "zai"}
    assert (
        resolve_cli_model(registry, "kimi-k2.7-code").model is not None
    )  # a bare id searches every provider
    assert len(registry._blocks) == len(registry.providers())
