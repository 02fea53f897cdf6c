"""``/changelog``: the project's CHANGELOG.md rendered as Markdown in the chat."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from widgets.rendering import ThemedMarkdown, on_theme_change


class ChangelogView(Static):
    DEFAULT_CSS = """
    ChangelogView { padding: 0 1; margin: 1 0 0 0; height: auto; }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        self.text = text
        super().__init__(**kwargs)

    def on_mount(self) -> None:
        self._render_text()
        on_theme_change(self, self._render_text)

    def _render_text(self) -> None:
        self.update(ThemedMarkdown(self.text, lambda: self.app.theme_variables))
