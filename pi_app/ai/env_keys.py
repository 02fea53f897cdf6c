"""API keys from environment variables (pi's ``getEnvApiKey``).

Empty variables count as unset. Providers authenticated by ambient cloud credentials (Vertex ADC, AWS)
return the sentinel ``"<authenticated>"`` instead of a key.
"""

from __future__ import annotations

import os
from pathlib import Path

AUTHENTICATED = "<authenticated>"

# provider -> the variables that may hold its key, first set wins.
ENV_API_KEY_VARS: dict[str, str | tuple[str, ...]] = {
    "ant-ling": "ANT_LING_API_KEY",
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": ("QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "azure": "AZURE_OPENAI_API_KEY",
    "nvidia": "NVIDIA_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "zai-coding-cn": "ZAI_CODING_CN_API_KEY",
    "moonshotai": "MOONSHOT_API_KEY",
    "moonshotai-cn": "MOONSHOT_API_KEY",
    "fireworks": "FIREWORKS_API_KEY",
    "together": "TOGETHER_API_KEY",
    "baseten": "BASETEN_API_KEY",
    "meta": "META_API_KEY",
    "xiaomi": "XIAOMI_API_KEY",
    "xiaomi-token-plan-cn": "XIAOMI_TOKEN_PLAN_CN_API_KEY",
    "xiaomi-token-plan-ams": "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
    "xiaomi-token-plan-sgp": "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
    "openai": "OPENAI_API_KEY",
    "azure-openai-responses": "AZURE_OPENAI_API_KEY",
    "google": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "xai": "XAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "vercel-ai-gateway": "AI_GATEWAY_API_KEY",
    "zai": "ZAI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "minimax": "MINIMAX_API_KEY",
    "minimax-cn": "MINIMAX_CN_API_KEY",
    "huggingface": "HF_TOKEN",
    "opencode": "OPENCODE_API_KEY",
    "opencode-go": "OPENCODE_API_KEY",
    "kimi-coding": "KIMI_API_KEY",
}

_AWS_SINGLE_VARS = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def _env(name: str) -> str | None:
    return os.environ.get(name) or None


def _first(*names: str) -> str | None:
    for name in names:
        if value := _env(name):
            return value
    return None


def _has_vertex_adc_credentials() -> bool:
    explicit = _env("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        return Path(explicit).exists()
    return (Path.home() / ".config" / "gcloud" / "application_default_credentials.json").exists()


def get_env_api_key(provider: str) -> str | None:
    """The key (or ``"<authenticated>"``) the environment provides for ``provider``, else None."""
    if provider == "github-copilot":
        return _first("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
    if provider == "anthropic":
        # An OAuth token (Claude Pro/Max) wins over a plain API key.
        return _first("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")
    if provider == "google-vertex":
        if key := _env("GOOGLE_CLOUD_API_KEY"):
            return key
        has_project = bool(_first("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"))
        if has_project and _env("GOOGLE_CLOUD_LOCATION") and _has_vertex_adc_credentials():
            return AUTHENTICATED
        return None
    if provider == "amazon-bedrock":
        has_keys = bool(_env("AWS_ACCESS_KEY_ID") and _env("AWS_SECRET_ACCESS_KEY"))
        if has_keys or _first(*_AWS_SINGLE_VARS):
            return AUTHENTICATED
        return None
    names = ENV_API_KEY_VARS.get(provider)
    if names is None:
        return None
    return _first(*names) if isinstance(names, tuple) else _env(names)
