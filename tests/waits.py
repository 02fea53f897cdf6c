"""Waiting in tests: on a real condition, bounded by a generous hang guard — never a fixed sleep, never a
wall-time assertion (the machine may be loaded; only a hang should fail a test for taking long)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

# Generous bound for something that must end on its own (an idle timeout, an abort, a kill).
HANG_GUARD_S = 60.0
# Poll step for state that offers no event to wait on (processes, files written by other processes).
POLL_S = 0.02


async def wait_until(predicate: Callable[[], object], what: str, timeout: float = HANG_GUARD_S) -> None:
    """Poll ``predicate`` until it is true; fail with ``what`` after the hang guard."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:g} s: {what}")
        await asyncio.sleep(POLL_S)


def wait_until_sync(predicate: Callable[[], object], what: str, timeout: float = HANG_GUARD_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:g} s: {what}")
        time.sleep(POLL_S)
