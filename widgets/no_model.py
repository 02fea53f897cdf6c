"""Shown when no model is available: how to add one."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from widgets.rendering import ThemedMarkdown, on_theme_change

NO_MODEL_TEXT = """\
## No model available

pi needs a model to talk to. Any of these works:

- **An API key in the environment**, e.g. `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`,
  `OPENROUTER_API_KEY` or `GROQ_API_KEY`, then restart pi.
- **`/login`** to sign in with a subscription (Claude Pro/Max, ChatGPT, GitHub Copilot, ...).
- **A local server** (Ollama, llama.cpp, vLLM, LM Studio) described in `~/.pi/agent/models.json`:

```json
{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [{"id": "qwen2.5-coder:7b"}]
    }
  }
}
```

For llama.cpp (`llama-server`) use `http://localhost:8080/v1`; for vLLM `http://localhost:8000/v1`.
Then pick the model with `/model` or **ctrl+l**.
"""


class NoModelPanel(Static):
    DEFAULT_CSS = """
    NoModelPanel {
        border: round $pi-warning;
        padding: 0 1;
        margin: 1 0 0 0;
        height: auto;
    }
    """

    def __init__(self, text: str = NO_MODEL_TEXT, **kwargs: Any) -> None:
        self.text = text
        super().__init__(**kwargs)

    def on_mount(self) -> None:
        self._render_text()
        on_theme_change(self, self._render_text)

    def _render_text(self) -> None:
        self.update(ThemedMarkdown(self.text, lambda: self.app.theme_variables))
