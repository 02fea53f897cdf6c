"""The session's listeners: subscribe, emit (each listener awaited in subscription order), and schedule an
emit from synchronous code."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from pi_app.session.session_events import SessionEvent

log = logging.getLogger(__name__)

Listener = Callable[[SessionEvent], Awaitable[None]]
Emit = Callable[[SessionEvent], Awaitable[None]]


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

    async def emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                await listener(event)
            except Exception:  # a broken UI listener must not take the run (or the file) down with it
                log.exception("session listener failed on %s", event.type)

    def schedule(self, event: SessionEvent) -> None:
        """Emit from synchronous setters: now if no loop runs, else as a task (listeners may be async)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.emit(event))
            return
        task = loop.create_task(self.emit(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
