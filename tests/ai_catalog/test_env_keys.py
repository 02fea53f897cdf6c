"""getEnvApiKey: variable per provider, precedence, cloud sentinels, empty values."""

from __future__ import annotations

import pytest

from pi_app.ai.env_keys import AUTHENTICATED, get_env_api_key

_CLOUD_VARS = (
    "GOOGLE_CLOUD_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
)


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for var in _CLOUD_VARS:
        monkeypatch.delenv(var, raising=False)


def test_anthropic_oauth_token_wins(monkeypatch):
    assert get_env_api_key("anthropic") is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert get_env_api_key("anthropic") == "sk-ant-api"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat-1")
    assert get_env_api_key("anthropic") == "sk-ant-oat-1"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "")  # empty counts as unset
    assert get_env_api_key("anthropic") == "sk-ant-api"


@pytest.mark.parametrize(
    "provider,var",
    [
        ("openai", "OPENAI_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("groq", "GROQ_API_KEY"),
        ("cerebras", "CEREBRAS_API_KEY"),
        ("xai", "XAI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
        ("vercel-ai-gateway", "AI_GATEWAY_API_KEY"),
        ("zai", "ZAI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("minimax-cn", "MINIMAX_CN_API_KEY"),
        ("huggingface", "HF_TOKEN"),
        ("opencode-go", "OPENCODE_API_KEY"),
        ("kimi-coding", "KIMI_API_KEY"),
        ("azure-openai-responses", "AZURE_OPENAI_API_KEY"),
    ],
)
def test_simple_mapping(monkeypatch, provider, var):
    monkeypatch.delenv(var, raising=False)
    assert get_env_api_key(provider) is None
    monkeypatch.setenv(var, "k-" + provider)
    assert get_env_api_key(provider) == "k-" + provider


def test_unknown_provider():
    assert get_env_api_key("my-ollama") is None


def test_github_copilot_order(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "c")
    assert get_env_api_key("github-copilot") == "c"
    monkeypatch.setenv("GH_TOKEN", "b")
    assert get_env_api_key("github-copilot") == "b"
    monkeypatch.setenv("COPILOT_GITHUB_TOKEN", "a")
    assert get_env_api_key("github-copilot") == "a"


def test_bedrock_sentinel(monkeypatch):
    assert get_env_api_key("amazon-bedrock") is None
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "id")
    assert get_env_api_key("amazon-bedrock") is None  # needs the secret too
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    assert get_env_api_key("amazon-bedrock") == AUTHENTICATED
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.setenv("AWS_PROFILE", "dev")
    assert get_env_api_key("amazon-bedrock") == "<authenticated>"


def test_vertex_key_then_adc(monkeypatch, tmp_path):
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    assert get_env_api_key("google-vertex") is None  # no credentials file under the test HOME
    creds = tmp_path / "adc.json"
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(creds))
    assert get_env_api_key("google-vertex") is None  # named file does not exist
    creds.write_text("{}")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION")
    assert get_env_api_key("google-vertex") is None
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "gk")
    assert get_env_api_key("google-vertex") == "gk"


def test_vertex_default_adc_path(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GCLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "eu")
    adc = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    adc.parent.mkdir(parents=True)
    adc.write_text("{}")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
