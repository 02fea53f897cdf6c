"""The /fork picker: every user message of the session file (all branches, file order), newest selected first.

Returns the chosen entry id with ``dismiss(entry_id)`` (None on Esc); the App creates the new session file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.tree.entry_text import one_line, text_of


@dataclass(frozen=True)
class ForkMessage:
    """A user message the /fork picker lists: its entry id and text."""

    entry_id: str
    text: str


def fork_messages(entries: Sequence[Any]) -> list[ForkMessage]:
    """User messages in file order, as pi's ``get_fork_messages`` lists them (``{entryId, text}``)."""
    out: list[ForkMessage] = []
    for e in entries:
        if e.get("type") != "message":
            continue
        msg = e.get("message")
        if isinstance(msg, dict) and msg.get("role") == "user":
            out.append(ForkMessage(str(e.get("id")), text_of(msg.get("content"))))
    return out


class ForkPickerScreen(Screen[str | None]):
    DEFAULT_CSS = """
    ForkPickerScreen { background: $background; }
    ForkPickerScreen #fork-title { height: 1; padding: 0 1; text-style: bold; color: $pi-text; }
    ForkPickerScreen #fork-hint { height: 1; padding: 0 1; color: $pi-muted; }
    ForkPickerScreen OptionList { height: 1fr; border: none; background: $background; }
    ForkPickerScreen OptionList > .option-list--option-highlighted { background: $pi-selected-bg; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("escape,ctrl+c", "cancel", show=False, priority=True),
    ]

    def __init__(self, messages: Sequence[ForkMessage], *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.messages = list(messages)

    def compose(self) -> ComposeResult:
        yield Static("Fork from a previous message", id="fork-title")
        yield Static("↑/↓ move · enter fork into a new session · esc cancel", id="fork-hint")
        yield OptionList(
            *[
                Option(Text(one_line(m.text)[:300] or "(empty message)"), id=m.entry_id)
                for m in self.messages
            ],
            id="fork-list",
        )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if self.messages:
            options.highlighted = len(self.messages) - 1
        else:
            options.add_option(Option("No messages to fork from", disabled=True))

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        n = len(self.messages)
        if n:
            current = options.highlighted if options.highlighted is not None else n - 1
            options.highlighted = (current + delta) % n

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
