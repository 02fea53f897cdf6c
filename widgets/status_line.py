"""The loader line: spinner + ``Working... (esc to interrupt)``, retries, compaction."""

from __future__ import annotations

import math
import time
from typing import Any

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
WORKING = "Working... (esc to interrupt)"
COMPACTING = "Compacting context... (esc to cancel)"
AUTO_COMPACTING = "Auto-compacting context... (esc to cancel)"


def retry_text(attempt: int, max_attempts: int, seconds: float) -> str:
    return f"Retrying ({attempt}/{max_attempts}) in {round(seconds)}s... (esc to cancel)"


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; color: $pi-muted; display: none; }
    StatusLine.-active { display: block; }
    StatusLine.-retry { color: $pi-warning; }
    """

    def __init__(self, spinner: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spinner_enabled = spinner
        self.message: str | None = None
        self._frame = 0
        self._timer: Timer | None = None
        self._retry: tuple[int, int, float] | None = None  # attempt, max, deadline on self.clock
        self.clock = time.monotonic  # injectable for tests

    def show_working(self, message: str | None = None) -> None:
        self._show(message or WORKING, retry=False)

    def show_retry(self, attempt: int, max_attempts: int, seconds: float) -> None:
        # The spinner's ticks count the wait down (pi updates its countdown every second).
        self._retry = (attempt, max_attempts, self.clock() + seconds)
        self._show(retry_text(attempt, max_attempts, seconds), retry=True)

    def show_compacting(self, automatic: bool = False) -> None:
        self._show(AUTO_COMPACTING if automatic else COMPACTING, retry=False)

    def clear(self) -> None:
        self._retry = None
        self.message = None
        self.set_class(False, "-active")
        self.set_class(False, "-retry")
        if self._timer is not None:  # no idle timers: a stopped spinner costs nothing
            self._timer.stop()
            self._timer = None
        self.update("")

    def _show(self, message: str, retry: bool) -> None:
        if not retry:
            self._retry = None
        self.message = message
        self.set_class(True, "-active")
        self.set_class(retry, "-retry")
        if self.spinner_enabled and self._timer is None:
            self._timer = self.set_interval(0.08, self._advance)
        self._paint()

    def _advance(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER_FRAMES)
        if self._retry is not None:
            attempt, max_attempts, deadline = self._retry
            self.message = retry_text(attempt, max_attempts, max(0.0, math.ceil(deadline - self.clock())))
        self._paint()

    def _paint(self) -> None:
        if self.message is None:
            return
        glyph = SPINNER_FRAMES[self._frame] if self.spinner_enabled else "•"
        self.update(Content.assemble(Content.styled(glyph, "$pi-accent"), " ", self.message))
