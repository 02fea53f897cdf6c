"""Shown when no model is available: how to add one."""

from __future__ import annotations

import os
from typing import Any

from textual.widgets import Static

from widgets.rendering import ThemedMarkdown, on_theme_change


def no_model_text(agent_dir: str) -> str:
    """The first-run guidance, naming the agent dir in use (``PI_CODING_AGENT_DIR`` moves it)."""
    return f"""\
## No model available

pi needs a model to talk to. Any of these works:

- **An API key in the environment**, e.g. `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`,
  `OPENROUTER_API_KEY` or `GROQ_API_KEY`, then restart pi.
- **`/login <provider>`** to paste an API key; it is stored in `{agent_dir}/auth.json`.
  (Subscription sign-in, e.g. Claude Pro/Max or ChatGPT, is not available here yet.)
- **A local server** (Ollama, llama.cpp, vLLM, LM Studio) described in `{agent_dir}/models.json`:

```json
{{
  "providers": {{
    "ollama": {{
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [{{"id": "qwen2.5-coder:7b"}}]
    }}
  }}
}}
```

For llama.cpp (`llama-server`) use `http://localhost:8080/v1`; for vLLM `http://localhost:8000/v1`.
Then pick the model with `/model` or **ctrl+l** (it lists the models that have credentials).
"""


def agent_dir_display(home: str | None = None) -> str:
    """The agent dir as the user would type it (``~`` for the home directory)."""
    from pi_app.session.config.paths import agent_dir

    path = str(agent_dir())
    home = home if home is not None else os.path.expanduser("~")
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


class NoModelPanel(Static):
    DEFAULT_CSS = """
    NoModelPanel {
        border: round $pi-warning;
        padding: 0 1;
        margin: 1 0 0 0;
        height: auto;
    }
    """

    def __init__(self, text: str | None = None, **kwargs: Any) -> None:
        self.text = text if text is not None else no_model_text(agent_dir_display())
        super().__init__(**kwargs)

    def on_mount(self) -> None:
        self._render_text()
        on_theme_change(self, self._render_text)

    def _render_text(self) -> None:
        self.update(ThemedMarkdown(self.text, lambda: self.app.theme_variables))
