"""Tiny apps hosting the widgets under test, with pi's dark theme active."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget

import themes
from themes import textual_adapter


class PiTestApp(App[None]):
    def __init__(self, widgets: Iterable[Widget] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._widgets = list(widgets)
        self.messages: list[Any] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults()

    def on_mount(self) -> None:
        textual_adapter.register_all(self)
        self.theme = "dark"

    def compose(self) -> ComposeResult:
        yield from self._widgets
