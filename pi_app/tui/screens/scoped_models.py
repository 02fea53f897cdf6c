"""``/scoped-models``: choose the models Ctrl+P cycles through (saved as ``enabledModels``).

Space toggles the highlighted model, Ctrl+A enables all, Ctrl+X clears all, Alt+Up/Down move the highlighted
model in the cycle order, Enter saves and Esc leaves without saving. The screen returns the chosen
``provider/id`` keys in cycle order, or ``[]`` for "every model" (all enabled, or none chosen)."""

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

HINT = "space toggle · ctrl+a all · ctrl+x none · alt+↑↓ reorder · enter save · esc cancel"


class ScopedModelsScreen(ModalScreen[list[str] | None]):
    # The list keeps its borderless look when focused (Textual's OptionList:focus rule is more specific).
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="ScopedModelsScreen") + "ScopedModelsScreen OptionList:focus { border: none; }"
    )
    BINDINGS = [
        # Every key is a priority binding of the screen: a burst (space, down, space) is handled in the order
        # typed (a non-priority list key would be handled after the priority ones that followed it).
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True),
        Binding("up", "move(-1)", "Up", show=False, priority=True),
        Binding("down", "move(1)", "Down", show=False, priority=True),
        Binding("enter", "save", "Save", show=False, priority=True),
        Binding("space", "toggle_model", "Toggle", show=False, priority=True),
        Binding("ctrl+a", "all(True)", "Enable all", show=False, priority=True),
        Binding("ctrl+x", "all(False)", "Clear all", show=False, priority=True),
        Binding("alt+up", "reorder(-1)", "Move up", show=False, priority=True),
        Binding("alt+down", "reorder(1)", "Move down", show=False, priority=True),
    ]

    def __init__(self, keys: list[str], enabled: list[str], **kwargs: Any) -> None:
        """``keys``: the models that can be chosen; ``enabled``: the current scope, in cycle order (empty:
        every model cycles, shown as all enabled)."""
        super().__init__(**kwargs)
        chosen = [k for k in enabled if k in keys]
        self.order = chosen + [k for k in keys if k not in chosen]
        self.enabled = set(chosen) if chosen else set(keys)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Scoped models (Ctrl+P cycles through the enabled ones)", classes="title")
            yield OptionList(id="scoped-options")
            yield Static("", id="scoped-count", classes="hint")
            yield Static(HINT, classes="hint")

    def on_mount(self) -> None:
        self._render_rows(0)
        self.query_one(OptionList).focus()

    def _render_rows(self, highlighted: int) -> None:
        options = self.query_one(OptionList)
        rows = []
        for key in self.order:
            on = key in self.enabled
            provider, _, model_id = key.partition("/")
            rows.append(
                Option(
                    Content.assemble(
                        Content.styled("[x] " if on else "[ ] ", "$pi-success" if on else "$pi-dim"),
                        Content.styled(f"{provider}/", "$pi-dim"),
                        model_id,
                    )
                )
            )
        options.set_options(rows)
        if rows:
            options.highlighted = max(0, min(highlighted, len(rows) - 1))
        count = len(self.enabled)
        self.query_one("#scoped-count", Static).update(
            f"{count} of {len(self.order)} enabled" if count else "none enabled (every model cycles)"
        )

    def _current(self) -> int:
        return self.query_one(OptionList).highlighted or 0

    def action_move(self, delta: int) -> None:
        if self.order:
            self.query_one(OptionList).highlighted = (self._current() + delta) % len(self.order)

    def action_toggle_model(self) -> None:
        if not self.order:
            return
        key = self.order[self._current()]
        self.enabled.symmetric_difference_update({key})
        self._render_rows(self._current())

    def action_all(self, on: bool) -> None:
        self.enabled = set(self.order) if on else set()
        self._render_rows(self._current())

    def action_reorder(self, delta: int) -> None:
        i = self._current()
        j = i + delta
        if 0 <= j < len(self.order):
            self.order[i], self.order[j] = self.order[j], self.order[i]
            self._render_rows(j)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # Enter is the save key; a click toggles
        self.action_toggle_model()

    def action_save(self) -> None:
        chosen = [k for k in self.order if k in self.enabled]
        self.dismiss([] if len(chosen) in (0, len(self.order)) else chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
