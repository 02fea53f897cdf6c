"""One cancellation mechanism for the whole stack: an AbortController/AbortSignal pair backed by asyncio.

Providers race their network reads against :meth:`AbortSignal.wait`; tools poll ``signal.aborted`` or
register a callback (bash kills its process group from one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class AbortError(Exception):
    """Raised inside a tool or provider when its signal fires."""

    def __init__(self, message: str = "Operation aborted") -> None:
        super().__init__(message)


class AbortSignal:
    __slots__ = ("_aborted", "_event", "_callbacks", "reason")

    def __init__(self) -> None:
        self._aborted = False
        self._event: asyncio.Event | None = None
        self._callbacks: list[Callable[[], Any]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    def _fire(self, reason: str | None) -> None:
        if self._aborted:
            return
        self._aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            try:
                cb()
            except Exception:  # a listener must never break abort for the others
                pass

    def add_listener(self, cb: Callable[[], Any]) -> Callable[[], None]:
        """Call ``cb`` once on abort (immediately if already aborted). Returns a remover."""
        if self._aborted:
            cb()
            return lambda: None
        self._callbacks.append(cb)

        def remove() -> None:
            try:
                self._callbacks.remove(cb)
            except ValueError:
                pass

        return remove

    async def wait(self) -> None:
        if self._aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def throw_if_aborted(self) -> None:
        if self._aborted:
            raise AbortError()


class AbortController:
    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        self.signal._fire(reason)


async def race_abort(aw: Awaitable[T], signal: AbortSignal | None) -> T:
    """Await ``aw`` unless ``signal`` fires first, in which case cancel it and raise AbortError."""
    if signal is None:
        return await aw
    if signal.aborted:
        if asyncio.iscoroutine(aw):
            aw.close()
        raise AbortError()
    task = asyncio.ensure_future(aw)
    waiter = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        waiter.cancel()
        raise
    if task in done:
        waiter.cancel()
        return task.result()
    task.cancel()
    try:
        await task
    except BaseException:
        pass
    raise AbortError()
