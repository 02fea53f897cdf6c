"""The interactive (Textual) front end: ``run_interactive(session)``."""

from pi_app.tui.app import PiApp, run_interactive
from pi_app.tui.options import TuiOptions

__all__ = ["PiApp", "TuiOptions", "run_interactive"]
