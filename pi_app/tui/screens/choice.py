"""A small list dialog that returns one value: ``/thinking`` without an argument."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pi_app.tui.screens.model_select import DIALOG_CSS


class ChoiceScreen(ModalScreen[str | None]):
    """``choices`` are (value, description); the current value is marked and highlighted first."""

    # The list keeps its borderless look when focused (Textual's OptionList:focus rule is more specific).
    DEFAULT_CSS = DIALOG_CSS.format(name="ChoiceScreen") + "ChoiceScreen OptionList:focus { border: none; }"
    BINDINGS = [
        # All priority, so a burst (down, enter) is handled in the order typed.
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True),
        Binding("up", "move(-1)", "Up", show=False, priority=True),
        Binding("down", "move(1)", "Down", show=False, priority=True),
        Binding("enter", "choose", "Select", show=False, priority=True),
    ]

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if self.choices:
            options.highlighted = ((options.highlighted or 0) + delta) % len(self.choices)

    def __init__(
        self, title: str, choices: list[tuple[str, str]], current: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.title_text = title
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            width = max((len(v) for v, _ in self.choices), default=0)
            options = []
            for value, description in self.choices:
                mark = Content.styled(" ✓", "$pi-success") if value == self.current else Content("")
                label = Content.assemble(
                    f"{value:<{width}}", "  ", Content.styled(description, "$pi-dim"), mark
                )
                options.append(Option(label, id=value))
            yield OptionList(*options, id="choice-options")
            yield Static("↑↓ navigate · enter select · esc cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [v for v, _ in self.choices]
        options.highlighted = values.index(self.current) if self.current in values else 0
        options.focus()

    def action_choose(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None and self.choices:
            self.dismiss(self.choices[options.highlighted][0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
