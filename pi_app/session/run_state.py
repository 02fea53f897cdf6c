"""What a prompt in progress holds: the busy flag, the idle event, an abort request and the retry wait."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from pi_app.ai.abort import AbortController


def _set_event() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


@dataclass
class RunState:
    """The prompt in progress: whether one is running, the idle event, an abort request and the retry wait."""

    running: bool = False  # a prompt is in progress (retry waits and compaction between runs included)
    idle: asyncio.Event = field(default_factory=_set_event)
    abort_requested: bool = False  # stop_all() during a prompt: no further run, retry or continue
    pre_prompt_compaction: bool = False  # abort() then cancels only that compaction (as pi)
    retry_attempt: int = 0
    retry_controller: AbortController | None = None

    def begin(self) -> None:
        self.running = True
        self.idle.clear()
        self.abort_requested = False

    def end(self) -> None:
        self.running = False
        self.idle.set()

    def take_retry_attempt(self) -> int:
        """The attempt count so far, reset (the retry sequence ended)."""
        attempt, self.retry_attempt = self.retry_attempt, 0
        return attempt
