"""models.json merged with the built-in catalogue: custom providers, overrides, re-routing, broken files."""

from __future__ import annotations

import json

import pytest

from pi_app.session.config import AuthStorage, ModelRegistry, ProviderRegistration, clear_config_value_cache


@pytest.fixture
def make(tmp_path):
    path = tmp_path / "models.json"

    def build(config=None, auth=None):
        if config is not None:
            path.write_text(config if isinstance(config, str) else json.dumps(config))
        return ModelRegistry(auth or AuthStorage.in_memory(), path)

    yield build, path
    clear_config_value_cache()


OLLAMA = {
    "providers": {
        "ollama": {
            "baseUrl": "http://localhost:11434/v1",
            "api": "openai-completions",
            "apiKey": "ollama",
            "compat": {"supportsDeveloperRole": False, "openRouterRouting": {"only": ["a"]}},
            "models": [
                {"id": "llama3.1:8b"},
                {
                    "id": "gpt-oss:20b",
                    "reasoning": True,
                    "compat": {"supportsReasoningEffort": False, "openRouterRouting": {"order": ["b"]}},
                },
            ],
        }
    }
}


def test_no_file_gives_builtins(make):
    build, _ = make
    reg = build()
    assert reg.error is None
    assert reg.find("anthropic", "claude-sonnet-4-5") is not None
    assert reg.get_available() == []


def test_custom_ollama_provider_defaults_and_compat(make):
    build, _ = make
    reg = build(OLLAMA)
    assert reg.error is None
    llama = reg.find("ollama", "llama3.1:8b")
    assert llama.api == "openai-completions" and llama.baseUrl == "http://localhost:11434/v1"
    assert (llama.name, llama.reasoning, llama.input) == ("llama3.1:8b", False, ["text"])
    assert (llama.contextWindow, llama.maxTokens, llama.cost.input) == (128000, 16384, 0)
    assert llama.compat == {"supportsDeveloperRole": False, "openRouterRouting": {"only": ["a"]}}
    oss = reg.find("ollama", "gpt-oss:20b")
    assert oss.reasoning is True
    assert oss.compat == {
        "supportsDeveloperRole": False,
        "supportsReasoningEffort": False,
        "openRouterRouting": {"only": ["a"], "order": ["b"]},
    }
    # The provider's apiKey makes its models available (fallback resolver), and only those.
    assert {m.provider for m in reg.get_available()} == {"ollama"}
    assert reg.get_api_key_sync(llama) == "ollama"


async def test_api_key_env_name_and_auth_header(make, monkeypatch):
    build, _ = make
    monkeypatch.setenv("PROXY_KEY", "sk-proxy")
    reg = build(
        {
            "providers": {
                "proxy": {
                    "baseUrl": "https://proxy.example/v1",
                    "api": "anthropic-messages",
                    "apiKey": "PROXY_KEY",
                    "authHeader": True,
                    "headers": {"x-team": "!printf blue"},
                    "models": [{"id": "m1", "headers": {"x-model": "yes"}}],
                }
            }
        }
    )
    m = reg.find("proxy", "m1")
    assert m.headers == {"x-team": "blue", "x-model": "yes", "Authorization": "Bearer sk-proxy"}
    assert await reg.get_api_key(m) == "sk-proxy"


def test_reroute_builtin_provider_keeps_models(make, monkeypatch):
    build, _ = make
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    before = len([m for m in build().get_all() if m.provider == "anthropic"])
    reg = build({"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9999", "headers": {"x-a": "1"}}}})
    anthropic = [m for m in reg.get_all() if m.provider == "anthropic"]
    assert len(anthropic) == before
    assert all(m.baseUrl == "http://127.0.0.1:9999" and m.headers == {"x-a": "1"} for m in anthropic)
    assert reg.find("openai", "gpt-4o").baseUrl == "https://api.openai.com/v1"
    assert {m.provider for m in reg.get_available()} == {"anthropic"}


def test_model_overrides_partial_cost_and_unknown_ids(make):
    build, _ = make
    reg = build(
        {
            "providers": {
                "openai": {
                    "modelOverrides": {
                        "gpt-4o": {"name": "GPT-4o (team)", "cost": {"input": 1.0}, "contextWindow": 64000},
                        "no-such-model": {"name": "ignored"},
                    }
                }
            }
        }
    )
    assert reg.error is None
    m = reg.find("openai", "gpt-4o")
    assert (m.name, m.cost.input, m.cost.output, m.contextWindow) == ("GPT-4o (team)", 1.0, 10.0, 64000)
    assert reg.find("openai", "no-such-model") is None


def test_custom_model_upserts_into_builtin_provider(make):
    build, _ = make
    reg = build(
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "https://api.anthropic.com",
                    "apiKey": "ANTHROPIC_API_KEY",
                    "api": "anthropic-messages",
                    "models": [
                        {"id": "claude-sonnet-4-5", "name": "Mine", "contextWindow": 1000},
                        {"id": "claude-new"},
                    ],
                }
            }
        }
    )
    ids = [m.id for m in reg.get_all() if m.provider == "anthropic"]
    assert ids.count("claude-sonnet-4-5") == 1 and "claude-new" in ids and "claude-opus-4-6" in ids
    assert reg.find("anthropic", "claude-sonnet-4-5").contextWindow == 1000


@pytest.mark.parametrize(
    "text,needle",
    [
        ('{"providers": {', "Failed to parse models.json"),
        (
            {
                "providers": {
                    "x": {
                        "baseUrl": "u",
                        "api": "openai-completions",
                        "apiKey": "k",
                        "models": [{"id": "a", "contextWindow": "big"}],
                    }
                }
            },
            "/providers/x/models/0/contextWindow",
        ),
        (
            {"providers": {"x": {"api": "openai-completions", "apiKey": "k", "models": [{"id": "a"}]}}},
            '"baseUrl" is required',
        ),
        (
            {"providers": {"x": {"baseUrl": "u", "apiKey": "k", "models": [{"id": "a"}]}}},
            'no "api" specified',
        ),
        ({"providers": {"x": {}}}, 'must specify "baseUrl"'),
        ({"providers": {"x": {"baseUrl": "u", "compat": {"maxTokensField": "tokens"}}}}, "maxTokensField"),
        ([], "Invalid models.json schema"),
    ],
)
def test_broken_models_json_reported_builtins_survive(make, text, needle):
    build, path = make
    reg = build(text)
    assert reg.error is not None and needle in reg.error and str(path) in reg.error
    assert reg.find("openai", "gpt-4o") is not None
    assert not any(m.provider == "x" for m in reg.get_all())


def test_refresh_rereads_file(make):
    build, path = make
    reg = build()
    assert reg.find("ollama", "llama3.1:8b") is None
    path.write_text(json.dumps(OLLAMA))
    reg.refresh()
    assert reg.find("ollama", "llama3.1:8b") is not None
    path.write_text("{broken")
    reg.refresh()
    assert reg.error and reg.find("ollama", "llama3.1:8b") is None


def test_register_and_unregister_provider(make):
    build, _ = make
    reg = build()
    reg.register_provider(
        "ext",
        ProviderRegistration(
            baseUrl="http://x/v1",
            apiKey="k",
            api="openai-completions",
            models=[{"id": "e1", "reasoning": True}],
        ),
    )
    assert reg.find("ext", "e1").reasoning is True
    reg.refresh()  # registrations survive a reload
    assert reg.find("ext", "e1") is not None
    reg.unregister_provider("ext")
    assert reg.find("ext", "e1") is None
    with pytest.raises(ValueError, match="baseUrl"):
        reg.register_provider("bad", ProviderRegistration(models=[{"id": "z"}]))


def test_available_uses_auth_json(make):
    build, _ = make
    reg = build(auth=AuthStorage.in_memory({"groq": {"type": "api_key", "key": "g"}}))
    assert {m.provider for m in reg.get_available()} == {"groq"}
