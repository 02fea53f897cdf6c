"""The built-in catalogue (pi 1.6's, generated): contents, defaults, copies, per-model thinking levels."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from pi_app.ai import models as M
from pi_app.ai.types import Model

SUPPORTED_APIS = {"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"}

# Chat models per provider in pi-ai 1.6.0 (dist/providers/data/*.json, type "chat"). Providers pi serves
# through APIs we do not implement (bedrock, vertex, codex, azure deployments, radius) or whose base URL
# needs account ids (cloudflare) or whose sign-in we lack (github-copilot) are not shipped.
PI16_CHAT_COUNTS = {
    "ant-ling": 3,
    "anthropic": 18,
    "baseten": 15,
    "cerebras": 2,
    "deepseek": 2,
    "fireworks": 27,
    "google": 26,
    "groq": 7,
    "huggingface": 87,
    "kimi-coding": 6,
    "meta": 7,
    "minimax": 4,
    "minimax-cn": 4,
    "mistral": 34,
    "moonshotai": 6,
    "moonshotai-cn": 6,
    "nvidia": 12,
    "openai": 47,
    "opencode": 84,
    "opencode-go": 33,
    "openrouter": 417,
    "qwen-token-plan": 20,
    "qwen-token-plan-cn": 20,
    "qwen-token-plan-individual": 13,
    "qwen-token-plan-individual-cn": 13,
    "together": 16,
    "vercel-ai-gateway": 305,
    "xai": 4,
    "xiaomi": 3,
    "xiaomi-token-plan-ams": 2,
    "xiaomi-token-plan-cn": 2,
    "xiaomi-token-plan-sgp": 2,
    "zai": 7,
    "zai-coding-cn": 4,
}


def test_counts_per_provider_match_pi16():
    assert {p: len(M.get_models(p)) for p in M.get_providers()} == PI16_CHAT_COUNTS
    assert M.catalogue_version() == "1.6.0"


def test_every_model_uses_an_implemented_api_and_is_well_formed():
    models = M.get_builtin_models()
    assert len(models) == sum(PI16_CHAT_COUNTS.values())
    seen = set()
    for m in models:
        assert m.api in SUPPORTED_APIS, m
        assert m.baseUrl.startswith("https://") and "{" not in m.baseUrl, m
        assert m.contextWindow > 0 and m.maxTokens > 0
        assert (m.provider, m.id) not in seen
        seen.add((m.provider, m.id))


def test_data_file_validates_strictly():
    """Every entry is a valid Model with only known thinking levels in its map."""
    raw = json.loads(resources.files("pi_app.ai.data").joinpath("models.json").read_text())
    assert raw["source"] == {"package": "@earendil-works/pi-ai", "version": "1.6.0"}
    for provider, entry in raw["providers"].items():
        for data in entry["models"]:
            model = Model.model_validate(data)
            assert model.provider == provider
            assert set(model.thinkingLevelMap or {}) <= set(M.MODEL_THINKING_LEVELS), model.id


def test_spec_example_sonnet_4_5():
    m = M.get_model("anthropic", "claude-sonnet-4-5")
    assert m is not None
    assert m.api == "anthropic-messages" and m.baseUrl == "https://api.anthropic.com"
    assert m.reasoning is True and m.input == ["text", "image"]
    assert (m.cost.input, m.cost.output, m.cost.cacheRead, m.cost.cacheWrite) == (3, 15, 0.3, 3.75)
    assert (m.contextWindow, m.maxTokens) == (200000, 64000)


def test_pi16_facts_for_new_models():
    m = M.get_model("anthropic", "claude-fable-5")
    assert (m.cost.input, m.cost.output, m.contextWindow, m.maxTokens) == (10, 50, 1000000, 128000)
    assert m.inputLimits["images"]["maxPerRequest"] == 600
    assert m.inputLimits["images"]["resize"]["maxWidth"] == 2000
    assert M.get_model("openai", "gpt-6.2-sol").api == "openai-responses"
    assert M.get_model("xai", "grok-4.7").baseUrl == "https://api.x.ai/v1"
    assert M.get_model("deepseek", "deepseek-v4-pro").baseUrl == "https://api.deepseek.com"
    # OpenCode serves all four of our APIs under one provider.
    apis = {m.api for m in M.get_models("opencode")}
    assert apis == SUPPORTED_APIS


def test_mistral_served_through_openai_completions_with_compat():
    m = M.get_model("mistral", "devstral-medium-latest")
    assert m.api == "openai-completions" and m.baseUrl == "https://api.mistral.ai/v1"
    assert m.compat["maxTokensField"] == "max_tokens"
    assert m.compat["requiresToolResultName"] is True
    assert m.compat["requiresMistralToolIds"] is True


@pytest.mark.parametrize(
    "provider,model_id",
    [
        ("anthropic", "claude-opus-5-5"),
        ("openai", "gpt-6.2-sol"),
        ("google", "gemini-4-argon"),
        ("openrouter", "moonshotai/kimi-k2.7-code"),
        ("vercel-ai-gateway", "zai/glm-5.3"),
        ("xai", "grok-4.7"),
        ("groq", "openai/gpt-oss-120b"),
        ("cerebras", "gpt-oss-120b"),
        ("zai", "glm-5.3"),
        ("mistral", "devstral-medium-latest"),
        ("minimax", "MiniMax-M3"),
        ("huggingface", "moonshotai/Kimi-K2.7-Code"),
        ("opencode", "kimi-k2.7-code"),
        ("opencode-go", "kimi-k3.1-pro"),
        ("kimi-coding", "kimi-for-coding"),
        ("deepseek", "deepseek-v4-pro"),
    ],
)
def test_default_model_per_provider_is_pi16s_and_shipped(provider, model_id):
    assert M.default_model_id(provider) == model_id
    assert M.get_model(provider, model_id) is not None


def test_every_shipped_provider_has_its_default_model():
    for provider in M.get_providers():
        default = M.default_model_id(provider)
        assert default is not None and M.get_model(provider, default) is not None, provider


def test_default_order_and_removed_providers():
    defaults = M.default_model_per_provider()
    order = list(defaults)
    assert order[:4] == ["amazon-bedrock", "ant-ling", "anthropic", "openai"]
    # Providers pi no longer has are gone from the defaults and the catalogue.
    for gone in ("google-gemini-cli", "google-antigravity", "azure-openai-responses"):
        assert gone not in defaults
    for p in ("github-copilot", "amazon-bedrock", "google-vertex", "openai-codex", "azure", "radius"):
        assert p not in M.get_providers()
        assert M.get_models(p) == []
    assert M.default_model_id("nope") is None


def test_unknown_lookups():
    assert M.get_model("anthropic", "no-such-model") is None
    assert M.get_model("no-such-provider", "gpt-4o") is None


def test_returned_models_are_copies():
    m = M.get_model("openai", "gpt-4o")
    m.baseUrl = "http://elsewhere"
    m.cost.input = 999
    m.thinkingLevelMap = {"off": None}
    again = M.get_model("openai", "gpt-4o")
    assert again.baseUrl == "https://api.openai.com/v1" and again.cost.input == 2.5
    assert again.thinkingLevelMap is None


# ---------------------------------------------------------------- thinking levels from the catalogue
@pytest.mark.parametrize(
    "provider,model_id,levels",
    [
        # No map: off…high.
        ("anthropic", "claude-haiku-4-5", ["off", "minimal", "low", "medium", "high"]),
        # Thinking cannot be off; xhigh and max named.
        ("anthropic", "claude-opus-5-5", ["low", "medium", "high", "xhigh", "max"]),
        ("anthropic", "claude-fable-5", ["minimal", "low", "medium", "high", "xhigh", "max"]),
        ("openai", "gpt-6.2-sol", ["low", "medium", "high", "xhigh", "max"]),
        ("google", "gemini-4-argon", ["low", "medium", "high"]),
        ("mistral", "mistral-large-4", ["low", "medium", "high"]),
        ("mistral", "magistral-medium-latest", ["off", "high"]),
        ("mistral", "glm-5-2", ["off", "high", "max"]),
        # Non-reasoning models offer only off.
        ("openai", "gpt-4o", ["off"]),
        ("mistral", "codestral-latest", ["off"]),
    ],
)
def test_available_levels_follow_the_models_map(provider, model_id, levels):
    assert M.available_thinking_levels(M.get_model(provider, model_id)) == levels


def test_thinking_cannot_be_off():
    opus = M.get_model("anthropic", "claude-opus-5-5")
    assert opus.thinkingLevelMap["off"] is None
    assert not M.supports_thinking_off(opus)
    assert M.clamp_thinking_level(opus, "off") == "low"
    assert M.clamp_thinking_level(opus, "minimal") == "low"
    assert M.supports_thinking_off(M.get_model("anthropic", "claude-haiku-4-5"))


def test_xhigh_and_max_availability():
    haiku = M.get_model("anthropic", "claude-haiku-4-5")
    assert not M.supports_xhigh(haiku)
    assert M.clamp_thinking_level(haiku, "xhigh") == "high"
    assert M.clamp_thinking_level(haiku, "max") == "high"
    sol = M.get_model("openai", "gpt-6.2-sol")
    assert M.supports_xhigh(sol)
    assert M.clamp_thinking_level(sol, "max") == "max"
    glm = M.get_model("mistral", "glm-5-2")  # max without xhigh
    assert M.clamp_thinking_level(glm, "xhigh") == "max"
    assert M.clamp_thinking_level(glm, "medium") == "high"
    assert M.clamp_thinking_level(glm, "minimal") == "high"
    counts = {"xhigh": 0, "max": 0, "no-off": 0}
    for m in M.builtin_models_shared():
        levels = M.available_thinking_levels(m)
        counts["xhigh"] += "xhigh" in levels
        counts["max"] += "max" in levels
        counts["no-off"] += "off" not in levels
    assert all(n > 50 for n in counts.values()), counts


def _m(reasoning: bool = True, levels: dict[str, str | None] | None = None) -> Model:
    return Model(id="m", api="openai-responses", provider="p", reasoning=reasoning, thinkingLevelMap=levels)


def test_clamp_prefers_the_next_level_up_then_down():
    only_high = _m(levels={"off": None, "minimal": None, "low": None, "medium": None})
    assert M.available_thinking_levels(only_high) == ["high"]
    assert M.clamp_thinking_level(only_high, "off") == "high"
    assert M.clamp_thinking_level(only_high, "max") == "high"
    gap = _m(levels={"medium": None})
    assert M.clamp_thinking_level(gap, "medium") == "high"
    assert M.clamp_thinking_level(_m(), "max") == "high"
    assert M.clamp_thinking_level(_m(), "bogus") == "off"
    assert M.clamp_thinking_level(only_high, "bogus") == "high"
    assert M.clamp_thinking_level(_m(reasoning=False), "high") == "off"
    assert M.available_thinking_levels(_m(reasoning=False, levels={"high": "high"})) == ["off"]


def test_provider_thinking_value():
    m = _m(levels={"minimal": "low", "high": "HIGH", "off": None})
    assert M.provider_thinking_value(m, "minimal") == "low"
    assert M.provider_thinking_value(m, "high") == "HIGH"
    assert M.provider_thinking_value(m, "off") is None
    assert M.provider_thinking_value(m, "medium") is None
