"""Keyboard message selection in the chat: ctrl+up starts at the newest message, up/down move, c/enter copy.

What gets copied is the source: a message's Markdown, a tool's output, a bash command with its output.
"""

from __future__ import annotations

from textual.widget import Widget

from widgets.bash_view import BashExecutionView
from widgets.chat_log import ChatLog
from widgets.editor import PromptEditor
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.tool_panel import ToolPanel

SELECTED = "-pi-selected"


def copy_source(widget: Widget) -> str | None:
    if isinstance(widget, UserMessageView):
        return widget.text
    if isinstance(widget, AssistantMessageView):
        return widget.text.strip() or None
    if isinstance(widget, ToolPanel):
        return widget.result.output if widget.result is not None else None
    if isinstance(widget, BashExecutionView):
        return f"$ {widget.command}\n{widget.output}".rstrip("\n")
    return None


class MessageSelection:
    def __init__(self, chat: ChatLog, editor: PromptEditor) -> None:
        self.chat = chat
        self.editor = editor
        self.index: int | None = None

    @property
    def active(self) -> bool:
        return self.index is not None

    def candidates(self) -> list[Widget]:
        return [w for w in self.chat.items if w.display and copy_source(w) is not None]

    def start(self) -> None:
        items = self.candidates()
        if not items:
            return
        self.index = len(items) - 1
        self.chat.focus()  # the editor would swallow the printable "c" key
        self._paint(items)

    def move(self, delta: int) -> None:
        items = self.candidates()
        if self.index is None or not items:
            return
        self.index = max(0, min(len(items) - 1, self.index + delta))
        self._paint(items)

    def selected(self) -> Widget | None:
        items = self.candidates()
        if self.index is None or not items:
            return None
        return items[min(self.index, len(items) - 1)]

    def selected_text(self) -> str | None:
        widget = self.selected()
        return copy_source(widget) if widget is not None else None

    def stop(self) -> None:
        was_active = self.index is not None
        self.index = None
        if was_active:
            self.editor.focus()
        for widget in self.chat.items:
            widget.remove_class(SELECTED)

    def _paint(self, items: list[Widget]) -> None:
        assert self.index is not None
        for i, widget in enumerate(items):
            widget.set_class(i == self.index, SELECTED)
        self.chat.scroll_to_widget(items[self.index], animate=False)
