"""The interactive (Textual) front end: ``await PiApp(session, options).run_async()``."""

from pi_app.tui.app import PiApp
from pi_app.tui.options import TuiOptions

__all__ = ["PiApp", "TuiOptions"]
