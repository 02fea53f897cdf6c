"""EntryRecord: one session line, with its tree fields read cheaply and the rest parsed on first use.

A 50k-entry file is mostly message bodies nobody looks at when resuming, so the loader reads ``type``, ``id``,
``parentId`` and ``timestamp`` from the line prefix (pi and this port write those keys first) and keeps the
line's bytes; ``json.loads`` of the whole line happens only when another field is asked for. Unchanged lines
are written back byte for byte. Records answer ``rec["key"]`` / ``rec.get("key")`` like the dict they stand for.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .entries import to_line

# The line prefix as JSON.stringify writes pi's entries (type, id, parentId, timestamp first); whitespace
# between tokens is allowed so files written by other JSON writers (``json.dumps`` defaults, ``jq``) stay lazy.
PREFIX = re.compile(
    r'\{\s*"type"\s*:\s*"([a-z_]+)"\s*,\s*"id"\s*:\s*"([^"\\]+)"\s*,\s*"parentId"\s*:\s*'
    r'(?:null|"([^"\\]+)")\s*,\s*"timestamp"\s*:\s*"([^"\\]*)"'
)
_MISSING = object()


def settle_heap() -> None:
    """Move every object alive now out of the cyclic GC's reach (``gc.freeze``).

    Called after a big session was loaded or its messages typed: those millions of acyclic objects would
    otherwise be traversed by each later full collection (seconds at 50,000 entries, paid again and again
    while the session is open). Frozen objects are still freed by reference counting; only garbage *cycles*
    among them would be kept, and session data has none (no collection first: after ``bulk()`` that
    would traverse everything just created, for nothing).
    """
    gc.freeze()


@contextmanager
def bulk() -> Iterator[None]:
    """No cyclic GC while creating tens of thousands of acyclic objects (it would rescan them repeatedly)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class EntryRecord:
    __slots__ = ("type", "id", "parent_id", "timestamp", "_raw", "_data", "_where", "_sink")

    def __init__(
        self,
        type: str,
        id: str,
        parent_id: str | None,
        timestamp: str,
        raw: str | None = None,
        data: dict[str, Any] | None = None,
        where: str = "",
        sink: list[str] | None = None,
    ) -> None:
        self.type = type
        self.id = id
        self.parent_id = parent_id
        self.timestamp = timestamp
        self._raw = raw
        self._data = data
        self._where = where
        self._sink = sink

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EntryRecord:
        ts = data.get("timestamp")
        parent = data.get("parentId")
        return cls(
            str(data.get("type")),
            str(data.get("id")),
            parent if isinstance(parent, str) else None,
            ts if isinstance(ts, str) else "",
            data=data,
        )

    @property
    def unparsed_line(self) -> str | None:
        """The original JSON line while the entry has not been parsed yet (for cheap peeks), else None."""
        return self._raw if self._data is None else None

    @property
    def where(self) -> str:
        """``file:line`` of a record read from a file ("" for entries made in this process)."""
        return self._where

    def peek(self, key: str, default: Any = None) -> Any:
        """Like :meth:`get`, but an unparsed line is parsed for this read only (the dict is not kept).

        For one-off reads of entries whose body is large and used elsewhere in another form (a message
        becomes a typed model): keeping the parsed dict too would double the memory of a resumed session.
        """
        if self._data is not None or self._raw is None or key in ("id", "type", "parentId"):
            return self.get(key, default)
        try:
            obj = json.loads(self._raw)
        except ValueError:
            return self.get(key, default)  # records the damage once, through the normal path
        return obj.get(key, default) if isinstance(obj, dict) else self.get(key, default)

    @property
    def data(self) -> dict[str, Any]:
        """The full entry dict (parsed now if it was not yet)."""
        if self._data is None:
            try:
                obj = json.loads(self._raw or "")
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                self._data = obj
            except ValueError as exc:
                # A damaged line found late: keep its tree position, drop the unreadable body.
                if self._sink is not None:
                    self._sink.append(f"{self._where}: skipped malformed line: {exc}")
                self._data = {
                    "type": self.type,
                    "id": self.id,
                    "parentId": self.parent_id,
                    "timestamp": self.timestamp,
                }
        return self._data

    def line(self) -> bytes:
        """The line to write: the original text when the record was read from a file."""
        if self._raw is not None:
            return (self._raw + "\n").encode("utf-8", "surrogateescape")
        return to_line(self.data)

    def get(self, key: str, default: Any = None) -> Any:
        if key == "id":
            return self.id
        if key == "type":
            return self.type
        if key == "parentId":
            return self.parent_id
        if key == "timestamp" and self.timestamp:
            return self.timestamp
        return self.data.get(key, default)

    def __getitem__(self, key: str) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: str) -> bool:
        return key in ("id", "type", "parentId") or key in self.data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EntryRecord):
            return self.data == other.data
        if isinstance(other, dict):
            return self.data == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryRecord(type={self.type!r}, id={self.id!r}, parentId={self.parent_id!r})"
