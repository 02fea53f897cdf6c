"""The interactive (Textual) front end: ``await PiApp(session, options).run_async()``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_app.tui.app import PiApp
    from pi_app.tui.options import TuiOptions

__all__ = ["PiApp", "TuiOptions"]


def __getattr__(name: str) -> Any:
    # lazy: importing a submodule (pi_app.tui.options, .keybindings, ...) must not import the whole app
    if name == "PiApp":
        from pi_app.tui.app import PiApp

        return PiApp
    if name == "TuiOptions":
        from pi_app.tui.options import TuiOptions

        return TuiOptions
    raise AttributeError(name)
