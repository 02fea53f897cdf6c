"""The app's side of the extension runtime: the UI it binds, where errors and shutdown requests go, the
shortcuts extensions registered (with keybindings.json's ``ext.*`` keys) and the keys they clash on.

Composed into :class:`~pi_app.tui.app.PiApp` (``app.extensions``) as :class:`KeyActions` and
:class:`Dialogs` are; nothing here runs while no extension was found.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding

if TYPE_CHECKING:
    from pi_app.extensions.runner import ExtensionError, ExtensionRunner
    from pi_app.tui.context import AppContext
    from pi_app.tui.extension_ui import BoundShortcut, ExtensionSlots


class AppExtensions:
    def __init__(
        self, app: AppContext, host: ExtensionSlots, app_bindings: Callable[[], list[tuple[str, Binding]]]
    ) -> None:
        self.app = app
        self.host = host
        self._app_bindings = app_bindings  # the app's own keys in effect, for the clash check
        self.keys: dict[str, list[str]] = {}  # keybindings.json's "ext.*" entries

    @property
    def runner(self) -> ExtensionRunner | None:
        return self.app.options.extensions

    def load_keys(self, keybindings_path: Path) -> list[str]:
        """Read the ``ext.<extension>.<name>`` entries of keybindings.json; returns their warnings."""
        if self.runner is None:
            return []
        from pi_app.tui.extension_ui import extension_key_overrides

        self.keys, warnings = extension_key_overrides(keybindings_path)
        return warnings

    def shortcuts(self) -> list[BoundShortcut]:
        """Extension shortcuts with the keys they answer to (asked each time: a handler may register one)."""
        runner = self.runner
        if runner is None:
            return []
        from pi_app.tui.extension_ui import bound_shortcuts

        return bound_shortcuts(runner, self.keys)

    def bind(self) -> None:
        """Once the session is ready: the runtime gets the app's UI, reports errors in the chat, may ask the
        app to exit, and starts; shortcuts on keys already in use are reported."""
        runner = self.runner
        if runner is None:
            return
        app = self.app
        from pi_app.tui.extension_ui import TuiExtensionUI
        from widgets.notices import ErrorNotice, Notice

        runner.set_ui("tui", TuiExtensionUI(app, self.host))

        def report(error: ExtensionError) -> None:
            app.run_worker(app.chat.add(ErrorNotice(str(error))), group="extension-ui", exit_on_error=False)

        runner.on_error = report

        def shutdown() -> None:
            app.run_worker(self._exit_when_idle(), exit_on_error=False)

        runner.on_shutdown_request = shutdown
        for warning in self.clashes():
            app.run_worker(
                app.chat.add(Notice(warning, kind="warning")), group="extension-ui", exit_on_error=False
            )
        app.run_worker(runner.start(), group="extensions", exit_on_error=False)

    def clashes(self) -> list[str]:
        """Extension shortcuts on keys the app or the editor already uses (those keys keep their action)."""
        if self.runner is None:
            return []
        from pi_app.tui.extension_ui import shortcut_clashes

        used = {key: binding.description or binding.action for key, binding in self._app_bindings()}
        used.update({k: f"editor: {a}" for k, a in self.app.editor.key_actions.items()})
        return shortcut_clashes(self.shortcuts(), used)

    def run_shortcut(self, event: events.Key) -> None:
        """A key nothing else used: the extension shortcut bound to it runs (pi's registerShortcut)."""
        runner = self.runner
        if runner is None:
            return
        for bound in self.shortcuts():
            if event.key in bound.keys:
                event.stop()
                self.app.run_worker(
                    runner.run_shortcut(bound.extension, bound.shortcut),
                    group="extensions",
                    exit_on_error=False,
                )
                return

    async def _exit_when_idle(self) -> None:
        await self.app.session.wait_for_idle()
        self.app.exit()
