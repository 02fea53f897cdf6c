"""Deferred: a message not typed yet, standing in a transcript until something reads it.

A resumed session's history holds its stored messages as Deferreds (see ``pi_app.agent.history``). Each
knows its ``role`` without being typed (read from its line), so the passes that only sort messages by role
(the tool-set log, the conversion to LLM messages, the transcript's system prompt) leave it untyped; the
provider's transform types it (:func:`materialize`) just before converting and encoding it. A one-shot
request from a 50,000-message history then never holds all the typed messages at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")

UNSET: Any = object()  # not typed yet (None is a typed unusable message)


class Deferred(Generic[T]):
    """One message not typed yet; :meth:`value` types it once (None: unusable, to be dropped).

    A plain base class, not an ABC: transcripts ask ``isinstance(m, Deferred)`` of every message, and an
    ABC's check costs four times a plain one's. Subclasses give :attr:`role` and :meth:`make`."""

    __slots__ = ("_value",)

    def __init__(self) -> None:
        self._value: T | None | object = UNSET

    @property
    def role(self) -> str | None:
        """The message's role as stored, known without typing it (it may still turn out unusable)."""
        raise NotImplementedError

    def make(self) -> T | None:
        """Build the typed message (None: unusable, reported by ``make``)."""
        raise NotImplementedError

    def value(self) -> T | None:
        # Memoized: copies of a history share their Deferreds, so each message is typed once.
        if self._value is UNSET:
            self._value = self.make()
        return self._value  # type: ignore[return-value]

    @property
    def found_unusable(self) -> bool:
        """Typed already and found unusable (reported then, and left out of every read since)."""
        return self._value is None

    def transient(self) -> T | None:
        """The typed message without keeping it (the kept one if typed already). An unusable message is
        remembered as such, so it is reported once however often it is read."""
        if self._value is not UNSET:
            return self._value  # type: ignore[return-value]
        built = self.make()
        if built is None:
            self._value = None
        return built


def materialize(messages: Iterable[Any]) -> Iterator[Any]:
    """``messages`` with each Deferred typed for this read only (unusable ones left out)."""
    for msg in messages:
        if isinstance(msg, Deferred):
            msg = msg.transient()
            if msg is None:
                continue
        yield msg


def typed(msg: Any) -> Any:
    """``msg`` typed (kept) if it is a Deferred; None for an unusable one."""
    return msg.value() if isinstance(msg, Deferred) else msg
