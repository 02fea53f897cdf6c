"""Where extensions put persistent UI: a status row (``ctx.ui.set_status``), widget areas above and below
the editor (``ctx.ui.set_widget``) and above the conversation (``ctx.ui.set_header``). Keyed, so an extension
replaces or clears its own entries. Each widget sits in an error boundary (:mod:`widgets.custom_render`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from widgets.custom_render import ExtensionBoundary


class ExtensionStatus(Static):
    """One dim row of ``text`` per key, joined; hidden while empty."""

    DEFAULT_CSS = """
    ExtensionStatus { height: auto; padding: 0 1; color: $text-muted; display: none; }
    ExtensionStatus.-shown { display: block; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self._entries: dict[str, str] = {}

    def set_entry(self, key: str, text: str | None) -> None:
        if text:
            self._entries[key] = text
        else:
            self._entries.pop(key, None)
        self.update(Text("  ·  ".join(self._entries.values())))
        self.set_class(bool(self._entries), "-shown")

    @property
    def entries(self) -> dict[str, str]:
        return dict(self._entries)


class ExtensionWidgetArea(Vertical):
    """Extension widgets by key: a Textual widget as given, or lines of text (plain or Rich renderables)."""

    DEFAULT_CSS = """
    ExtensionWidgetArea { height: auto; max-height: 50%; padding: 0 1; }
    ExtensionWidgetArea > .-lines { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._widgets: dict[str, Widget] = {}

    async def set_entry(
        self,
        key: str,
        content: Widget | list[Any] | tuple[Any, ...] | str | None,
        owner: str = "extension",
    ) -> None:
        """Show ``content`` under ``key`` (None removes it); ``owner`` names the extension in an error line."""
        old = self._widgets.pop(key, None)
        if old is not None:
            await old.remove()
        if content is None:
            return
        widget: Widget
        if isinstance(content, Widget):
            widget = ExtensionBoundary(owner, content)
        else:
            lines = [content] if isinstance(content, str) else list(content)
            widget = Static(_join(lines), classes="-lines", markup=False)
        self._widgets[key] = widget
        await self.mount(widget)

    @property
    def keys(self) -> list[str]:
        return list(self._widgets)


def _join(lines: list[Any]) -> Any:
    if all(isinstance(line, str) for line in lines):
        return "\n".join(lines)
    from rich.console import Group

    return Group(*lines)
