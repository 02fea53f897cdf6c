"""One-line notices (errors, aborts, retries, info) and collapsible compaction/branch summaries."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.reactive import var
from textual.visual import VisualType
from textual.widgets import Static

from widgets.footer_format import wrap_at_separators
from widgets.rendering import SelectableLines, ThemedMarkdown, on_theme_change
from widgets.tool_format import EXPAND_KEY


class Notice(Static):
    """A status line appended to the chat; ``kind`` picks the colour."""

    DEFAULT_CSS = """
    Notice { padding: 0 1; margin: 1 0 0 0; color: $pi-muted; }
    Notice.-error { color: $pi-error; }
    Notice.-warning { color: $pi-warning; }
    Notice.-success { color: $pi-success; }
    Notice.-info { color: $pi-muted; }
    """

    KIND = "info"

    def __init__(self, text: str, kind: str | None = None, **kwargs: Any) -> None:
        self.text = text
        self.kind = kind or self.KIND
        super().__init__(Content(text), classes=f"-{self.kind}", **kwargs)

    def render(self) -> VisualType:
        # A long path breaks after a separator, not mid-name (Textual folds a long word anywhere).
        wrapped = wrap_at_separators(self.text, self.content_size.width)
        return Content(wrapped) if wrapped is not None else super().render()

    def on_resize(self) -> None:
        self.refresh(layout=True)


class ErrorNotice(Notice):
    """Errors and aborts, e.g. ``Error: rate limited`` or ``Operation aborted``."""

    KIND = "error"


class InfoNotice(Notice):
    """Informational lines (``Thinking blocks: hidden``, retry notices use kind="warning")."""

    KIND = "info"


class StatusNotice(InfoNotice):
    """A status line; a new status replaces the previous one when nothing came in between (as pi does)."""


class _Summary(SelectableLines, Static):
    """``[label]`` then a one-line summary; expanded shows the markdown body. Selectable with the
    mouse; selecting all of it copies :attr:`plain`."""

    DEFAULT_CSS = """
    _Summary {
        background: $pi-custom-message-bg;
        color: $pi-custom-message-text;
        padding: 1 1;
        margin: 1 0 0 0;
    }
    """

    LABEL = ""
    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(self, summary: str, expanded: bool = False, **kwargs: Any) -> None:
        self.summary = summary
        super().__init__(**kwargs)
        self.set_reactive(_Summary.expanded, expanded)

    def collapsed_line(self) -> str:
        raise NotImplementedError

    def expanded_markdown(self) -> str:
        raise NotImplementedError

    def on_mount(self) -> None:
        self._render_summary()
        on_theme_change(self, self._render_summary)

    def watch_expanded(self) -> None:
        self._render_summary()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def _render_summary(self) -> None:
        from rich.console import Group
        from rich.text import Text

        variables = self.app.theme_variables
        label = Text(f"[{self.LABEL}]", style=f"bold {variables.get('pi-custom-message-label', '')}".strip())
        if self.expanded:
            body: Any = ThemedMarkdown(self.expanded_markdown(), lambda: self.app.theme_variables)
        else:
            body = Text.assemble(
                self.collapsed_line() + " (", (EXPAND_KEY, variables.get("pi-dim", "")), " to expand)"
            )
        self.update(Group(label, Text(""), body))

    def selection_source(self) -> str | None:
        return self.plain

    @property
    def plain(self) -> str:
        if self.expanded:
            return f"[{self.LABEL}]\n\n{self.expanded_markdown()}"
        return f"[{self.LABEL}]\n\n{self.collapsed_line()} ({EXPAND_KEY} to expand)"


class CompactionSummaryView(_Summary):
    LABEL = "compaction"

    def __init__(self, summary: str, tokens_before: int, expanded: bool = False, **kwargs: Any) -> None:
        self.tokens_before = tokens_before
        super().__init__(summary, expanded, **kwargs)

    def collapsed_line(self) -> str:
        return f"Compacted from {self.tokens_before:,} tokens"

    def expanded_markdown(self) -> str:
        return f"**Compacted from {self.tokens_before:,} tokens**\n\n{self.summary}"


class BranchSummaryView(_Summary):
    LABEL = "branch"

    def collapsed_line(self) -> str:
        return "Branch summary"

    def expanded_markdown(self) -> str:
        return f"**Branch Summary**\n\n{self.summary}"
