"""``pi.events``: a small publish/subscribe bus shared by the extensions of one runtime."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EventBus:
    def __init__(self) -> None:
        self._subs: dict[str, list[Callable[[Any], Any]]] = {}

    def on(self, name: str, handler: Callable[[Any], Any]) -> Callable[[], None]:
        """Subscribe; returns an unsubscriber."""
        self._subs.setdefault(name, []).append(handler)

        def off() -> None:
            handlers = self._subs.get(name, [])
            if handler in handlers:
                handlers.remove(handler)

        return off

    def emit(self, name: str, data: Any = None) -> None:
        for handler in list(self._subs.get(name, ())):
            handler(data)

    def clear(self) -> None:
        self._subs.clear()
