"""How the interactive app is set up: display overrides for deterministic tests, injected services."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pi_app.tui.clipboard import Clipboard

TAIL_MESSAGES = 100  # messages mounted when a session opens; earlier ones load on demand
DOUBLE_PRESS_S = 0.5  # Esc / Ctrl+C double-press window


@dataclass
class TuiOptions:
    # Shown instead of the real cwd/home/version (snapshots must not depend on the machine).
    cwd_display: str | None = None
    home: str | None = None
    version: str | None = None
    git_branch: str | None = None
    # test_mode: no spinner, no cursor blink, no ticking clocks, no background imports.
    test_mode: bool = False
    clipboard: Clipboard | None = None
    clock: Callable[[], float] = time.monotonic
    theme: str | None = None  # overrides the settings theme
    tail_messages: int = TAIL_MESSAGES
    warm_imports: bool = True
