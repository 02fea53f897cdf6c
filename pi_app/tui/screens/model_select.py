"""Ctrl+L / ``/model``: fuzzy search over provider/id; the current model is marked."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pi_app.ai.types import Model
from pi_app.tui.fuzzy import fuzzy_filter

# The one-row fields name ``:focus`` too: Textual's own ``Input:focus`` rule (a tall border) is more specific
# than ``{name} Input`` and would squeeze the text out of a one-row field as soon as it had the focus.
DIALOG_CSS = """
{name} {{ align: center middle; background: $background 60%; }}
{name} > Vertical {{
    width: 90%; max-width: 100; height: auto; max-height: 80%;
    border: round $pi-border-accent; background: $background; padding: 0 1;
}}
{name} .title {{ color: $pi-accent; text-style: bold; }}
{name} .hint {{ color: $pi-dim; }}
{name} Input, {name} Input:focus {{ border: none; height: 1; padding: 0 1; background: $background; }}
{name} OptionList {{ border: none; height: auto; max-height: 20; background: $background; padding: 0; }}
{name} OptionList > .option-list--option-highlighted {{ background: $pi-selected-bg; }}
"""


def model_key(model: Model) -> str:
    return f"{model.provider}/{model.id}"


class ModelSelectScreen(ModalScreen[Model | None]):
    DEFAULT_CSS = DIALOG_CSS.format(name="ModelSelectScreen")
    BINDINGS = [
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True),
        Binding("up", "move(-1)", "Up", show=False, priority=True),
        Binding("down", "move(1)", "Down", show=False, priority=True),
        Binding("enter", "choose", "Select", show=False, priority=True),
    ]

    def __init__(self, models: list[Model], current: Model | None, query: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.models = models
        self.current = current
        self.query_text = query
        self.shown: list[Model] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Select model", classes="title")
            yield Input(value=self.query_text, placeholder="Search models...", id="model-search")
            yield OptionList(id="model-options")
            yield Static("↑↓ navigate · enter select · esc cancel", classes="hint")

    def on_mount(self) -> None:
        search = self.query_one(Input)
        search.cursor_blink = False
        search.focus()
        self._refresh(self.query_text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._refresh(event.value)

    def _is_current(self, model: Model) -> bool:
        cur = self.current
        return cur is not None and cur.provider == model.provider and cur.id == model.id

    def _refresh(self, query: str) -> None:
        self.shown = fuzzy_filter(self.models, query, model_key)
        options = self.query_one(OptionList)
        rows = []
        for model in self.shown:
            label = Content.assemble(
                Content.styled(f"{model.provider}/", "$pi-dim"),
                model.id,
                Content.styled(" ✓", "$pi-success") if self._is_current(model) else "",
            )
            rows.append(Option(label))
        options.set_options(rows)
        if rows:
            current = next((i for i, m in enumerate(self.shown) if self._is_current(m)), 0)
            options.highlighted = current if not query else 0

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + delta) % len(self.shown)

    def action_choose(self) -> None:
        options = self.query_one(OptionList)
        if self.shown and options.highlighted is not None:
            self.dismiss(self.shown[options.highlighted])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
