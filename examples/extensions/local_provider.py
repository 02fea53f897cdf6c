"""A provider for a local OpenAI-compatible server (llama.cpp, Ollama, vLLM, LM Studio …).

The endpoint and models come from the environment, so one file serves every machine:

- ``PI_LOCAL_BASE_URL``: the server's OpenAI base URL (default ``http://localhost:8080/v1``, llama.cpp's);
- ``PI_LOCAL_MODELS``: comma-separated model ids the server offers (default ``local-model``);
- ``PI_LOCAL_API_KEY``: sent as the bearer key (default ``local``; most local servers ignore it);
- ``PI_LOCAL_CONTEXT``: the context window in tokens (default 32768).

The models appear as ``local/<id>`` in ``--list-models``, ``/model`` and ``--model``.

    PI_LOCAL_BASE_URL=http://localhost:11434/v1 PI_LOCAL_MODELS=qwen3:8b \\
        pi -e examples/extensions/local_provider.py --model local/qwen3:8b
"""

from __future__ import annotations

import os

from pi_app.extensions import ExtensionAPI

PROVIDER = "local"


def register(pi: ExtensionAPI) -> None:
    base_url = os.environ.get("PI_LOCAL_BASE_URL", "http://localhost:8080/v1").rstrip("/")
    ids = [m.strip() for m in os.environ.get("PI_LOCAL_MODELS", "local-model").split(",") if m.strip()]
    context_window = int(os.environ.get("PI_LOCAL_CONTEXT", "32768"))
    pi.register_provider(
        PROVIDER,
        {
            "baseUrl": base_url,
            # the name of an environment variable: resolved per request, the key itself is never stored
            "apiKey": "PI_LOCAL_API_KEY" if os.environ.get("PI_LOCAL_API_KEY") else "local",
            "api": "openai-completions",
            "models": [
                {
                    "id": model_id,
                    "name": f"{model_id} (local)",
                    "reasoning": False,
                    "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "contextWindow": context_window,
                    "maxTokens": min(8192, context_window // 2),
                }
                for model_id in ids
            ],
        },
    )
