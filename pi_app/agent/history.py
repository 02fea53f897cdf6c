"""MessageHistory: the agent's transcript as a list whose resumed part is typed on first access.

A resumed session hands the agent thousands of stored messages; typing them all (pydantic models) before the
chat's last message can be drawn would put that cost on every resume. Each stored message is held as a
:class:`Deferred` until something reads it: an index or a slice types only what it covers (the chat's tail,
the footer's estimate from the last usage on), iterating types everything at once (:meth:`type_all`).

A message found unusable when typed is dropped (its :class:`Deferred` gives None), so the history always
reads as the list of usable messages; ``len()`` counts the not-yet-typed ones as usable until then.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSequence, Sequence
from typing import TypeVar, overload

from pi_app.ai.deferred import Deferred

__all__ = ["Deferred", "MessageHistory", "as_history", "stored_items"]

T = TypeVar("T")


class MessageHistory(MutableSequence[T]):
    """A list of messages, some of them still :class:`Deferred` (typed on access)."""

    __slots__ = ("_items", "_untyped", "_typed_below", "dropped")

    def __init__(self, items: Iterable[T | Deferred[T]] = (), untyped: int | None = None) -> None:
        """``untyped``: how many of ``items`` are Deferred, when the caller counted them as it made them."""
        self._items: list[T | Deferred[T]] = list(items)
        self._untyped = sum(1 for m in self._items if isinstance(m, Deferred)) if untyped is None else untyped
        self._typed_below = 0  # every item before this index is typed (where type_some goes on from)
        self.dropped = 0  # messages found unusable so far (removed from the list)

    # ------------------------------------------------------------------ what is typed
    @property
    def untyped(self) -> int:
        """How many messages are not typed yet."""
        return self._untyped

    def type_all(self) -> None:
        """Type every message still deferred (dropping the unusable ones)."""
        if not self._untyped:
            return
        kept: list[T | Deferred[T]] = []
        for item in self._items:
            if isinstance(item, Deferred):
                value = item.value()
                if value is None:
                    self.dropped += 1
                    continue
                kept.append(value)
            else:
                kept.append(item)
        self._items = kept
        self._untyped = 0
        self._typed_below = len(kept)

    def type_some(self, limit: int) -> bool:
        """Type up to ``limit`` deferred messages, oldest first (a step of typing in idle time); True when
        none is left."""
        items = self._items
        i = self._typed_below
        while self._untyped and limit > 0 and i < len(items):
            if isinstance(items[i], Deferred):
                limit -= 1
                if not self._settle(i):
                    continue  # dropped: the next one is at i now
            i += 1
        self._typed_below = i
        return not self._untyped

    def _settle(self, i: int) -> bool:
        """Type item ``i`` (a valid index) in place; False when it was unusable and is gone."""
        item = self._items[i]
        if not isinstance(item, Deferred):
            return True
        value = item.value()
        self._untyped -= 1
        if value is None:
            del self._items[i]
            self.dropped += 1
            return False
        self._items[i] = value
        return True

    def _settle_range(self, s: slice) -> None:
        while self._untyped:
            for j in range(*s.indices(len(self._items))):
                if not self._settle(j):
                    break  # the items after it moved: compute the range again
            else:
                return

    # ------------------------------------------------------------------ Sequence
    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            self._settle_range(index)
            return self._items[index]  # type: ignore[return-value]
        items = self._items
        i = index + len(items) if index < 0 else index
        while 0 <= i < len(items):
            if self._settle(i):
                return items[i]  # type: ignore[return-value]
            if index < 0:
                i -= 1  # counted from the end: the one before it is now at -index
        raise IndexError("history index out of range")

    @property
    def stored(self) -> Sequence[T | Deferred[T]]:
        """The items as held, typed or not (a Deferred answers ``.role``): for passes that only sort messages
        by role, which would otherwise type the whole history. Not to be mutated."""
        return self._items

    def __iter__(self) -> Iterator[T]:
        self.type_all()
        return iter(self._items)  # type: ignore[arg-type]

    def __reversed__(self) -> Iterator[T]:
        i = len(self._items) - 1
        while i >= 0:
            if i < len(self._items) and self._settle(i):
                yield self._items[i]  # type: ignore[misc]
            i -= 1

    def __contains__(self, value: object) -> bool:
        return any(m is value or m == value for m in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageHistory | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._items)} messages, {self._untyped} untyped)"

    # ------------------------------------------------------------------ MutableSequence
    @overload
    def __setitem__(self, index: int, value: T) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[T]) -> None: ...

    def __setitem__(self, index: int | slice, value: T | Iterable[T]) -> None:
        if isinstance(index, slice):
            self._items[index] = list(value)  # type: ignore[arg-type]
            self._recount()
            return
        if isinstance(self._items[index], Deferred):
            self._untyped -= 1
        self._items[index] = value  # type: ignore[assignment]

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            del self._items[index]
            self._recount()
            return
        i = index + len(self._items) if index < 0 else index
        if isinstance(self._items[index], Deferred):
            self._untyped -= 1
        del self._items[index]
        if i < self._typed_below:
            self._typed_below -= 1

    def clear(self) -> None:
        self._items = []
        self._untyped = self._typed_below = 0

    def insert(self, index: int, value: T) -> None:
        self._items.insert(index, value)
        self._typed_below = 0  # items moved: type_some looks from the start again

    def _recount(self) -> None:
        self._untyped = sum(1 for m in self._items if isinstance(m, Deferred))
        self._typed_below = 0

    def append(self, value: T) -> None:
        self._items.append(value)

    def copy(self) -> MessageHistory[T]:
        """A shallow copy sharing the deferred messages (each is still typed once, for both)."""
        twin = type(self).__new__(type(self))
        twin._items = list(self._items)
        twin._untyped = self._untyped
        twin._typed_below = self._typed_below
        twin.dropped = self.dropped
        return twin


def as_history(messages: Sequence[T]) -> MessageHistory[T] | list[T]:
    """A copy of ``messages`` for the agent to own: a history stays lazy, anything else becomes a list."""
    return messages.copy() if isinstance(messages, MessageHistory) else list(messages)


def stored_items(messages: Sequence[T]) -> Sequence[T | Deferred[T]]:
    """``messages`` as held: a history's items typed or not (see :attr:`MessageHistory.stored`), else itself."""
    return messages.stored if isinstance(messages, MessageHistory) else messages
