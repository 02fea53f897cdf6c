"""EntryRecord: one session line, with its tree fields read cheaply and the rest parsed on first use.

A 50k-entry file is mostly message bodies nobody looks at when resuming, so the loader reads ``type``, ``id``,
``parentId`` and ``timestamp`` from the line prefix (pi and this port write those keys first) and keeps the
line's bytes; ``json.loads`` of the whole line happens only when another field is asked for. Unchanged lines
are written back byte for byte. Records answer ``rec["key"]`` / ``rec.get("key")`` like the dict they stand for.

A message line's prefix also shows its role (pi writes ``"message":{"role":…`` right after the timestamp) and,
for most assistant turns, that the content opens with text: kept as ``message_head`` so the tree browser can
sort 50,000 entries into user turns, tool results and tool-call-only turns without reading a line again.
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...heap_freeze import freeze, frozen_before
from .entries import to_line

# The line prefix as JSON.stringify writes pi's entries (type, id, parentId, timestamp first); whitespace
# between tokens is allowed so files written by other JSON writers (``json.dumps`` defaults, ``jq``) stay lazy.
# Only what JSON allows there is matched (its four whitespace characters; no raw control character in a
# string): a line whose prefix is not valid JSON is parsed whole at load and reported, never read lazily.
_PREFIX_TEMPLATE = (
    r'\{<ws>"type"<ws>:<ws>"([a-z_]+)"<ws>,<ws>"id"<ws>:<ws>"([^"\\\x00-\x1f]+)"<ws>,<ws>"parentId"<ws>:<ws>'
    r'(?:null|"([^"\\\x00-\x1f]+)")<ws>,<ws>"timestamp"<ws>:<ws>"([^"\\\x00-\x1f]*)"'
    # a message's role, then (group 6 set) content that is a string, or opens with a text part, with a visible
    # ASCII character before anything but spaces and escaped \n \r \t \f: the message has text (anything
    # rarer, e.g. thinking first: not known here)
    r'(?:<ws>,<ws>"message"<ws>:<ws>\{<ws>"role"<ws>:<ws>"([A-Za-z_]+)"'
    r'(?:<ws>,<ws>"content"<ws>:<ws>(?:\[<ws>\{<ws>"type"<ws>:<ws>"text"<ws>,<ws>"text"<ws>:<ws>)?"'
    r'(?: |\\[nrtf])*([!#-\[\]-~]|\\["\\/]))?)?'
)
PREFIX = re.compile(_PREFIX_TEMPLATE.replace("<ws>", r"[ \t\n\r]*"))
# The same, exactly as pi writes it (no whitespace): tried first, as it matches in two thirds of the time.
PI_PREFIX = re.compile(_PREFIX_TEMPLATE.replace("<ws>", ""))
_TEXT_PART = b'},{"type":"text","text":"'
_VISIBLE = re.compile(rb'(?: |\\[nrtf])*(?:[!#-\[\]-~]|\\["\\/])')


def text_after_parts(body: bytes, pos: int) -> bool:
    """Whether an assistant line (pi's compact form) whose content does not open with text has a visible text
    part after its first parts (thinking first, then text), ``pos`` being the end of its prefix match.

    Byte searches, no parse: ``{"type":"text"`` with bare quotes cannot sit inside a JSON string, so the first
    one after the content opens is a content part — unless a tool call came first, whose arguments may hold
    anything: then it is not judged here (nor when the text is blank or starts with a rarer character)."""
    if not body.startswith(b',"content":[{', pos):
        return False
    at = body.find(_TEXT_PART, pos)
    if at < 0 or body.find(b'"type":"toolCall"', pos, at) >= 0:
        return False
    return _VISIBLE.match(body, at + len(_TEXT_PART)) is not None


# a text part with something besides whitespace (raw, or escaped as \n \r \t \f) in it, and an answer's stop
# reason: how a line's bytes tell a tool-calls-only turn (the tree's peek uses the same patterns on text)
NONBLANK_TEXT = r'"type":"text","text":"(?:\s|\\[nrtf])*(?:[^"\\\s]|\\[^nrtf])'
STOP_REASON = r'"stopReason":"([A-Za-z]+)"'

# (role, has text, hidden): what a message line tells without a parse; one shared tuple per kind (records only
# point at it). ``hidden``: a tool-calls-only answer (no text; stopped to use tools, or as usual); None when
# not known from the bytes (the line is read when asked). Other roles, and answers with text, are never hidden.
MessageHead = tuple[str, bool, bool | None]
_HEADS: dict[tuple[str, bool, bool | None], MessageHead] = {}


def message_head(role: str, has_text: bool, hidden: bool | None = None) -> MessageHead:
    """The shared head tuple: ``has_text`` True when the message is known to have a non-blank text part, False
    when that is not known (or it has none); ``hidden`` as in :data:`MessageHead`."""
    if has_text or role != "assistant":
        hidden = False
    key = (role, has_text, hidden)
    head = _HEADS.get(key)
    if head is None:
        head = _HEADS[key] = (sys.intern(role), has_text, hidden)
    return head


def hidden_from_stops(stops: list[bytes] | list[str]) -> bool:
    """A turn without text is hidden unless its last stop reason says something went wrong (error, aborted)."""
    stop = stops[-1] if stops else None
    return not (stop and stop not in ("stop", "toolUse", b"stop", b"toolUse"))


def known_heads() -> list[MessageHead]:
    """Every head made so far (few: one per role and text flag)."""
    return list(_HEADS.values())


def head_of(entry: dict[str, Any]) -> MessageHead | None:
    """The message head of a parsed entry (None when it is not a message with a string role)."""
    msg = entry.get("message") if entry.get("type") == "message" else None
    role = msg.get("role") if isinstance(msg, dict) else None
    if not isinstance(role, str):
        return None
    content = msg.get("content")  # type: ignore[union-attr]
    if isinstance(content, str):
        texty = bool(content.strip())
    else:
        texty = isinstance(content, list) and any(
            isinstance(b, dict)
            and b.get("type") == "text"
            and isinstance(b.get("text"), str)
            and b["text"].strip()
            for b in content
        )
    return message_head(role, texty)


_MISSING = object()


def settle_heap() -> None:
    """Move every object alive now out of the cyclic GC's reach (``gc.freeze``).

    Called after a big session was loaded or its messages typed: those millions of acyclic objects would
    otherwise be traversed by each later full collection (seconds at 50,000 entries, paid again and again
    while the session is open). Frozen objects are still freed by reference counting; only garbage *cycles*
    among them would be kept, and session data has none (no collection first: after ``bulk()`` that
    would traverse everything just created, for nothing).
    """
    freeze()


def collect_before_settling() -> None:
    """Collect garbage cycles before a big build that will end in :func:`settle_heap`.

    Whatever is cyclic garbage when the heap is frozen is kept for good: a closed screen's widgets, a chat
    the app just replaced. Only once the heap has been settled before (:func:`frozen_before`): the collector
    then skips the frozen part and walks only what was made since. At startup nothing is frozen yet, and
    there is no garbage worth a walk over everything imported.
    """
    if frozen_before():
        gc.collect()


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


_WINDOW_BYTES = 64 * 1024  # read at once by LineSource (~100 long lines)


class LineSource:
    """The session file records read their lines from, on demand.

    A descriptor stays open for as long as records refer to it, so a file replaced by rename (another
    program's rewrite) still reads as it was loaded; appends (ours or another pi's) never move a line.
    Lines are read with ``pread``, through one small window of the file: a request built from a resumed
    history reads its lines in file order, and one read per ~100 lines costs far less than a system call
    per line (several microseconds each in a sandbox). Nothing else of the file is held in memory.
    """

    __slots__ = ("path", "warnings", "_fd", "_window", "__weakref__")

    def __init__(self, path: str, warnings: list[str] | None = None) -> None:
        self.path = path
        self.warnings = warnings  # where its records report a line found damaged when first parsed
        self._fd = os.open(path, os.O_RDONLY)
        self._window: tuple[int, bytes] = (0, b"")  # (offset, bytes) read last; replaced whole (threads)

    def read(self, offset: int, size: int) -> bytes:
        """The ``size`` bytes at ``offset`` (fewer if the file shrank under us: the caller treats the line
        as damaged)."""
        data, at = self._holding(offset, size)
        return data[at : at + size]

    def read_member(self, offset: int, size: int, key: bytes) -> bytes:
        """The bytes of the line at ``offset`` after its first ``key``, up to its last byte (excluded): the
        value of an object's last member when ``key`` is that member's ``,"name":``. b"" when the line has
        no ``key`` (or the file shrank). Only the value is copied, not the line."""
        data, at = self._holding(offset, size)
        return _after_key(data, at, at + size, key) if len(data) >= at + size else b""

    def _holding(self, offset: int, size: int) -> tuple[bytes, int]:
        """Bytes holding the ``size`` bytes at ``offset``, and where in them they start."""
        start, data = self._window
        end = offset + size
        if start <= offset and end <= start + len(data):
            return data, offset - start
        if size >= _WINDOW_BYTES:
            return self._pread(offset, size), 0  # a huge line (an image, say) is not kept in the window
        # Ahead of the last window: the next lines in file order; behind it: the ones before (a reader
        # walking back from the leaf). Lines never move, so a window stays valid however old it is.
        begin = max(0, end - _WINDOW_BYTES) if offset < start else offset
        data = self._pread(begin, _WINDOW_BYTES)
        if len(data) >= end - begin:
            self._window = (begin, data)
        return data, offset - begin  # (short if the file shrank under us)

    def _pread(self, offset: int, size: int) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self._fd, size, offset)
        os.lseek(self._fd, offset, os.SEEK_SET)  # Windows: no pread; records are read from one thread
        return os.read(self._fd, size)

    def __del__(self) -> None:
        try:
            os.close(self._fd)
        except (OSError, AttributeError):
            pass


_MESSAGE_KEY = b',"message":'  # (see EntryRecord.message_json)


def _after_key(data: bytes, start: int, end: int, key: bytes) -> bytes:
    """What follows the first ``key`` in ``data[start:end]`` (a line), up to its last byte excluded; b"" when
    there is no ``key``."""
    found = data.find(key, start, end)
    return data[found + len(key) : end - 1] if found >= 0 else b""


_SPAN_BITS = 32  # a line's place in its file, packed in one int: offset << 32 | length
INLINE_LINE_BYTES = 256  # lines up to this size are kept in memory


class EntryRecord:
    __slots__ = ("type", "id", "parent_id", "timestamp", "message_head", "_raw", "_data", "_where", "_src")

    def __init__(
        self,
        type: str,
        id: str,
        parent_id: str | None,
        timestamp: str,
        raw: str | int | None = None,
        data: dict[str, Any] | None = None,
        where: str | int = "",
        message_head: MessageHead | None = None,
        src: LineSource | None = None,
    ) -> None:
        self.type = type
        self.id = id
        self.parent_id = parent_id
        self.timestamp = timestamp
        # (role, has text) of a message, when known without parsing (see message_head()); else None
        self.message_head = message_head
        self._raw: str | int | None = raw  # the line, or its span in ``_src``
        self._data = data
        self._where: str | int = where  # "file:line", or the line number in ``_src``
        self._src = src

    @classmethod
    def at(
        cls,
        src: LineSource,
        offset: int,
        raw: bytes,
        size: int,
        lineno: int,
        type: str,
        id: str,
        parent_id: str | None,
        timestamp: str,
        head: MessageHead | None = None,
    ) -> EntryRecord:
        """A record for the line read at ``offset`` of ``src``: ``raw`` as read (its newline, if any, past
        ``size`` bytes, which are the line), with its tree fields.

        Short lines are kept as text (a read per line would cost more than it saves); long ones, where a
        session's bytes are, stay in the file.
        """
        line = raw[:size].decode("utf-8", "surrogateescape") if size <= INLINE_LINE_BYTES else None
        span = line if line is not None else offset << _SPAN_BITS | size
        return cls(type, id, parent_id, timestamp, span, None, lineno, head, src)

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
            message_head=head_of(data),
        )

    def _line_bytes(self) -> bytes:
        raw = self._raw
        if isinstance(raw, str):
            return raw.encode("utf-8", "surrogateescape")
        if raw is None or self._src is None:
            return b""
        size = raw & ((1 << _SPAN_BITS) - 1)
        data = self._src.read(raw >> _SPAN_BITS, size)
        return data if len(data) == size else b""  # the file shrank under us: treated as damaged

    def message_json(self) -> bytes:
        """The JSON of a message line's ``message``, cut from the unparsed line (b"" when there is none to
        cut: a parsed record, a line of another type or spacing).

        Found after the first ``,"message":`` of the line, pi's compact form: that byte sequence cannot sit
        inside a JSON string (its quotes would be escaped), so it is the key of the line's own member or of
        a nested object; what follows it to the line's closing brace is valid JSON only when it is the line's
        own ``message`` written last, as pi writes it (a nested one leaves its parents' closing braces
        after it). Callers parse it and fall back to the whole line when it is not valid JSON."""
        if self._data is not None or self.message_head is None:
            return b""
        raw = self._raw
        if isinstance(raw, int) and self._src is not None:
            return self._src.read_member(raw >> _SPAN_BITS, raw & ((1 << _SPAN_BITS) - 1), _MESSAGE_KEY)
        if isinstance(raw, str):
            line = raw.encode("utf-8", "surrogateescape")
            return _after_key(line, 0, len(line), _MESSAGE_KEY)
        return b""

    @property
    def is_parsed(self) -> bool:
        """True once the full entry dict exists (always for entries made in this process)."""
        return self._data is not None

    @property
    def unparsed_line(self) -> str | None:
        """The original JSON line while the entry has not been parsed yet (for cheap peeks), else None."""
        if self._data is not None or self._raw is None:
            return None
        raw = self._raw
        return raw if isinstance(raw, str) else self._line_bytes().decode("utf-8", "surrogateescape")

    def unparsed_bytes(self) -> bytes | None:
        """Like :attr:`unparsed_line`, as the file's bytes (for parsers that take UTF-8 directly)."""
        if self._data is not None or self._raw is None:
            return None
        return self._line_bytes()

    @property
    def where(self) -> str:
        """``file:line`` of a record read from a file ("" for entries made in this process)."""
        if isinstance(self._where, int):
            return f"{self._src.path if self._src else '?'}:{self._where}"
        return self._where

    def peek(self, key: str, default: Any = None) -> Any:
        """Like :meth:`get`, but an unparsed line is parsed for this read only (the dict is not kept).

        For one-off reads of entries whose body is large and used elsewhere in another form (a message
        becomes a typed model): keeping the parsed dict too would double the memory of a resumed session.
        """
        if self._data is not None or self._raw is None or key in ("id", "type", "parentId"):
            return self.get(key, default)
        try:
            obj = json.loads(self.unparsed_line or "")
        except ValueError:
            return self.get(key, default)  # records the damage once, through the normal path
        return obj.get(key, default) if isinstance(obj, dict) else self.get(key, default)

    @property
    def data(self) -> dict[str, Any]:
        """The full entry dict (parsed now if it was not yet)."""
        if self._data is None:
            try:
                obj = json.loads(self.unparsed_line or "")
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                self._data = obj
            except ValueError as exc:
                # A damaged line found late: keep its tree position, drop the unreadable body.
                sink = self._src.warnings if self._src is not None else None
                if sink is not None:
                    sink.append(f"{self.where}: skipped malformed line: {exc}")
                self._data = {
                    "type": self.type,
                    "id": self.id,
                    "parentId": self.parent_id,
                    "timestamp": self.timestamp,
                }
        return self._data

    def line(self) -> bytes:
        """The line to write: the original bytes when the record was read from a file."""
        if self._raw is not None:
            line = self._line_bytes()
            if line:
                return line + b"\n"
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
