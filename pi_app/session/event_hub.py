"""The session's listener list: subscribe, emit in subscription order, schedule from synchronous code."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

Listener = Callable[[Any], Any]
Emit = Callable[[Any], Awaitable[None]]


class EventHub:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return unsubscribe

    async def emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:  # a broken UI listener must not take the run (or the file) down with it
                log.exception("session listener failed on %s", getattr(event, "type", event))

    def schedule(self, event: Any) -> None:
        """Emit from synchronous setters: now if no loop runs, else as a task (listeners may be async)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.emit(event))
            return
        task = loop.create_task(self.emit(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
