"""The built-in catalogue: contents, defaults, copies, thinking-level helpers."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from pi_app.ai import models as M
from pi_app.ai.types import Model

SUPPORTED_APIS = {"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"}


def test_spec_example_sonnet_4_5():
    m = M.get_model("anthropic", "claude-sonnet-4-5")
    assert m is not None
    assert m.api == "anthropic-messages" and m.baseUrl == "https://api.anthropic.com"
    assert m.reasoning is True and m.input == ["text", "image"]
    assert (m.cost.input, m.cost.output, m.cost.cacheRead, m.cost.cacheWrite) == (3, 15, 0.3, 3.75)
    assert (m.contextWindow, m.maxTokens) == (200000, 64000)


@pytest.mark.parametrize(
    "provider,ids",
    [
        ("anthropic", ["claude-opus-4-6", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-1"]),
        (
            "openai",
            ["gpt-5.4", "gpt-5.2", "gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4o", "o3", "o4-mini"],
        ),
        ("google", ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview"]),
        ("mistral", ["devstral-medium-latest"]),
        ("xai", ["grok-4-fast-non-reasoning"]),
        ("groq", ["openai/gpt-oss-120b"]),
        ("zai", ["glm-4.6"]),
        ("openrouter", ["openai/gpt-5.1-codex"]),
    ],
)
def test_expected_models_present(provider, ids):
    for model_id in ids:
        m = M.get_model(provider, model_id)
        assert m is not None, f"{provider}/{model_id}"
        assert m.provider == provider and m.id == model_id


def test_every_model_uses_an_implemented_api_and_is_well_formed():
    models = M.get_builtin_models()
    assert len(models) > 300
    seen = set()
    for m in models:
        assert m.api in SUPPORTED_APIS, m
        assert m.baseUrl.startswith("https://"), m
        assert m.contextWindow > 0 and m.maxTokens > 0
        assert (m.provider, m.id) not in seen
        seen.add((m.provider, m.id))


def test_api_per_provider():
    assert M.get_model("openai", "gpt-5.4").api == "openai-responses"
    assert (
        M.get_model("google", "gemini-2.5-pro").baseUrl == "https://generativelanguage.googleapis.com/v1beta"
    )
    assert M.get_model("xai", "grok-4-fast-non-reasoning").baseUrl == "https://api.x.ai/v1"
    assert M.get_model("zai", "glm-4.6").compat == {"supportsDeveloperRole": False, "thinkingFormat": "zai"}


def test_mistral_served_through_openai_completions_with_compat():
    m = M.get_model("mistral", "devstral-medium-latest")
    assert m.api == "openai-completions" and m.baseUrl == "https://api.mistral.ai/v1"
    assert m.compat["maxTokensField"] == "max_tokens"
    assert m.compat["requiresToolResultName"] is True


def test_providers_and_defaults():
    providers = M.get_providers()
    for p in ("anthropic", "openai", "google", "xai", "groq", "cerebras", "openrouter", "zai", "mistral"):
        assert p in providers
    # OAuth / cloud-SDK providers are not in the catalogue.
    for p in ("github-copilot", "amazon-bedrock", "google-vertex", "openai-codex"):
        assert p not in providers
        assert M.get_models(p) == []
    assert M.default_model_id("anthropic") == "claude-opus-4-6"
    assert M.default_model_id("openai") == "gpt-5.4"
    assert M.default_model_id("google") == "gemini-2.5-pro"
    assert M.default_model_id("nope") is None
    raw = json.loads(resources.files("pi_app.ai.data").joinpath("models.json").read_text())
    assert raw["providers"]["anthropic"]["defaultModel"] == "claude-opus-4-6"


def test_unknown_lookups():
    assert M.get_model("anthropic", "no-such-model") is None
    assert M.get_model("no-such-provider", "gpt-4o") is None


def test_returned_models_are_copies():
    m = M.get_model("openai", "gpt-4o")
    m.baseUrl = "http://elsewhere"
    m.cost.input = 999
    again = M.get_model("openai", "gpt-4o")
    assert again.baseUrl == "https://api.openai.com/v1" and again.cost.input == 2.5


def _m(model_id: str, reasoning: bool = True) -> Model:
    return Model(id=model_id, api="openai-responses", provider="openai", reasoning=reasoning)


@pytest.mark.parametrize(
    "model_id,expected",
    [
        ("gpt-5.2", True),
        ("gpt-5.3-codex", True),
        ("gpt-5.4", True),
        ("claude-opus-4-6", True),
        ("anthropic/claude-opus-4.6", True),
        ("gpt-5.1", False),
        ("claude-sonnet-4-5", False),
    ],
)
def test_supports_xhigh(model_id, expected):
    assert M.supports_xhigh(_m(model_id)) is expected


def test_clamp_thinking_level():
    assert M.clamp_thinking_level(_m("gpt-5.1"), "xhigh") == "high"
    assert M.clamp_thinking_level(_m("gpt-5.2"), "xhigh") == "xhigh"
    assert M.clamp_thinking_level(_m("gpt-5.2"), "max") == "xhigh"
    assert M.clamp_thinking_level(_m("gpt-5.1"), "medium") == "medium"
    assert M.clamp_thinking_level(_m("gpt-4o", reasoning=False), "high") == "off"
    assert M.clamp_thinking_level(_m("gpt-5.1"), "bogus") == "off"
    assert M.available_thinking_levels(_m("gpt-4o", reasoning=False)) == ["off"]
    assert M.available_thinking_levels(_m("gpt-5.1")) == ["off", "minimal", "low", "medium", "high"]
    assert M.available_thinking_levels(_m("gpt-5.4"))[-1] == "xhigh"
