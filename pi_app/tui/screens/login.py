"""``/login``: store an API key for a provider in auth.json (provider, then key)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pi_app.tui.screens.model_select import DIALOG_CSS


class LoginScreen(ModalScreen[tuple[str, str] | None]):
    # Two one-row fields: the one being typed in is marked by its background.
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="LoginScreen") + "LoginScreen Input:focus { background: $pi-selected-bg; }"
    )
    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True)]

    def __init__(self, provider: str = "", providers: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.provider = provider
        self.providers = providers or []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Login: store an API key in auth.json", classes="title")
            if self.providers:
                yield Static("Known providers: " + ", ".join(self.providers), classes="hint")
            yield Input(value=self.provider, placeholder="provider (e.g. anthropic)", id="login-provider")
            yield Input(placeholder="API key", password=True, id="login-key")
            yield Static("enter next/save · esc cancel", classes="hint")

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False
        target = "#login-key" if self.provider else "#login-provider"
        self.query_one(target, Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        provider = self.query_one("#login-provider", Input).value.strip()
        key = self.query_one("#login-key", Input).value.strip()
        if event.input.id == "login-provider" and provider:
            self.query_one("#login-key", Input).focus()
            return
        if provider and key:
            self.dismiss((provider, key))

    def action_cancel(self) -> None:
        self.dismiss(None)
