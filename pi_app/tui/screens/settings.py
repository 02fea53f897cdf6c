"""``/settings``: the main boolean and choice settings (saved on each change) and a theme picker with preview."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pi_app.tui.screens.model_select import DIALOG_CSS


@dataclass(frozen=True)
class SettingRow:
    """One line of /settings: the settings.json key, its label, and the values it toggles or cycles through."""

    key: str  # settings.json key, dotted for nested ("compaction.enabled")
    label: str
    choices: tuple[Any, ...] = (True, False)  # booleans toggle; others cycle


SETTING_ROWS: list[SettingRow] = [
    SettingRow("compaction.enabled", "Auto-compact"),
    SettingRow("hideThinkingBlock", "Hide thinking blocks"),
    SettingRow("quietStartup", "Quiet startup"),
    SettingRow("terminal.showImages", "Show images"),
    SettingRow("images.blockImages", "Block images"),
    SettingRow("retry.enabled", "Auto-retry"),
    SettingRow("steeringMode", "Steering mode", ("one-at-a-time", "all")),
    SettingRow("followUpMode", "Follow-up mode", ("one-at-a-time", "all")),
    SettingRow("doubleEscapeAction", "Double-escape action", ("tree", "fork", "none")),
    SettingRow("branchSummary.skipPrompt", "Skip branch summary prompt"),
    SettingRow("treeFilterMode", "Tree filter", ("default", "no-tools", "user-only", "labeled-only", "all")),
    SettingRow("thinking", "Thinking level", ()),  # the session's level; choices come from the model
    SettingRow("theme", "Theme", ()),  # opens the theme picker
    SettingRow("images.autoResize", "Auto-resize images"),
    SettingRow("enableSkillCommands", "Skill commands"),
    SettingRow("editorPaddingX", "Editor padding", (0, 1, 2, 3)),
    SettingRow("autocompleteMaxVisible", "Autocomplete max items", (3, 5, 7, 10, 15, 20)),
]


LABEL_WIDTH = max(len(row.label) for row in SETTING_ROWS) + 2  # the longest label keeps a gap to its value


def setting_label(row: SettingRow) -> str:
    return f"{row.label:<{LABEL_WIDTH}}"


def read_setting(settings: Any, key: str) -> Any:
    value: Any = settings.settings
    for part in key.split("."):
        value = getattr(value, part, None)
    return value


def show_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def next_choice(row: SettingRow, value: Any) -> Any:
    if row.choices == (True, False):
        return not bool(value)
    choices = list(row.choices)
    return choices[(choices.index(value) + 1) % len(choices)] if value in choices else choices[0]


class SettingsScreen(ModalScreen[None]):
    # The list keeps its borderless look when focused (Textual's OptionList:focus rule is more specific).
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="SettingsScreen") + "SettingsScreen OptionList:focus { border: none; }"
    )
    BINDINGS = [
        Binding("escape,ctrl+c", "close", "Close", priority=True),
        Binding("space", "activate", "Change", show=False),
    ]

    def __init__(
        self,
        settings: Any,
        on_change: Callable[[str, Any], None],
        current_theme: Callable[[], str],
        thinking: Callable[[], tuple[str, list[str]]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.thinking = thinking  # () -> (current level, levels the model supports)
        self.settings = settings
        self.on_change = on_change
        self.current_theme = current_theme

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Settings", classes="title")
            yield OptionList(id="settings-options")
            yield Static("↑↓ navigate · enter/space change · esc close", classes="hint")

    def on_mount(self) -> None:
        self._refresh()
        self.query_one(OptionList).focus()

    def _value(self, row: SettingRow) -> Any:
        if row.key == "theme":
            return self.current_theme()
        if row.key == "thinking":
            return self.thinking()[0] if self.thinking else "off"
        return read_setting(self.settings, row.key)

    def _refresh(self, keep: int | None = None) -> None:
        options = self.query_one(OptionList)
        rows = [
            Option(
                Content.assemble(
                    setting_label(row), Content.styled(show_value(self._value(row)), "$pi-accent")
                )
            )
            for row in SETTING_ROWS
        ]
        options.set_options(rows)
        options.highlighted = keep or 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._activate(event.option_index)

    def action_activate(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self._activate(index)

    def _activate(self, index: int) -> None:
        row = SETTING_ROWS[index]
        if row.key == "theme":
            self.app.push_screen(ThemeSelectScreen(self.current_theme()), lambda _: self._refresh(index))
            return
        if row.key == "thinking":
            if self.thinking is None:
                return
            current, levels = self.thinking()
            row = SettingRow(row.key, row.label, tuple(levels) or ("off",))
            value = next_choice(row, current)
        else:
            value = next_choice(row, self._value(row))
        self.on_change(row.key, value)
        self._refresh(index)

    def action_close(self) -> None:
        self.dismiss(None)


class ThemeSelectScreen(ModalScreen[str | None]):
    """Highlighting a theme previews it; Enter keeps it (saved), Escape restores the previous one.

    The app applies them: :class:`Previewed` (show this theme now) and :class:`Chosen` (show it and save it)."""

    class Previewed(Message):
        def __init__(self, theme: str) -> None:
            super().__init__()
            self.theme = theme

    class Chosen(Message):
        def __init__(self, theme: str) -> None:
            super().__init__()
            self.theme = theme

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="ThemeSelectScreen") + "ThemeSelectScreen OptionList:focus { border: none; }"
    )
    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True)]

    def __init__(self, original: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.original = original
        import themes

        self.names = themes.available_themes()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Select theme", classes="title")
            yield OptionList(*[Option(n) for n in self.names], id="theme-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.names.index(self.original) if self.original in self.names else 0
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.app.post_message(self.Previewed(self.names[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        name = self.names[event.option_index]
        self.app.post_message(self.Chosen(name))
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.app.post_message(self.Previewed(self.original))
        self.dismiss(None)
