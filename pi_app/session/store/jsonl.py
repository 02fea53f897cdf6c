"""Reading session files: tolerant line parsing, header check, v1→v2→v3 migrations.

Lines stay plain dicts (``json.loads`` per line) so a 50k-entry file loads fast and whatever a newer pi wrote
is written back unchanged. A bad line is skipped with a warning naming file and line; a bad header raises
:class:`SessionFileError` and the file is never touched.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern
from typing import Any

from .entries import CURRENT_SESSION_VERSION, to_line
from .paths import new_entry_id
from .record import (
    NONBLANK_TEXT,
    PI_PREFIX,
    PREFIX,
    STOP_REASON,
    EntryRecord,
    LineSource,
    MessageHead,
    bulk,
    head_of,
    hidden_from_stops,
    message_head,
    text_after_parts,
)


class SessionFileError(Exception):
    """A session file that cannot be used (e.g. its first line is not a session header)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"Invalid session file {self.path}: {reason}")


@dataclass
class LoadedSession:
    """A session file as read: its header, its entries as records, and what was found wrong or migrated."""

    path: str
    header: dict[str, Any] | None  # None: the file was empty (or whitespace only)
    entries: list[EntryRecord]
    warnings: list[str] = field(default_factory=list)
    ends_with_newline: bool = True
    migrated_from: int | None = None  # original version when a migration rewrote the file
    backup_path: str | None = None


def is_valid_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str)


def parse_lines(
    data: bytes, path: str, warnings: list[str]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Header and entry dicts from file bytes; raises SessionFileError for a bad header."""
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    loads = json.loads
    lines = data.split(b"\n")
    last = len(lines) - 1
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except ValueError as exc:
            if header is None:
                raise SessionFileError(path, f"line {lineno} is not valid JSON ({exc})")
            cut = " (truncated last line)" if lineno - 1 == last else ""
            warnings.append(f"{path}:{lineno}: skipped malformed line{cut}: {exc}")
            continue
        if header is None:
            if not is_valid_header(obj):
                raise SessionFileError(path, f"line {lineno} is not a session header")
            header = obj
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            warnings.append(f"{path}:{lineno}: skipped line without an entry type")
            continue
        if obj["type"] == "session":
            warnings.append(f"{path}:{lineno}: skipped a second session header")
            continue
        entry: dict[str, Any] = obj
        entry["__line"] = lineno  # removed again below, after migrations
        entries.append(entry)
    return header, entries


def migrate_v1_to_v2(header: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    """Give every entry an 8-hex id, chain parentIds in file order, map firstKeptEntryIndex to an id."""
    header["version"] = 2
    taken: set[str] = set()
    prev: str | None = None
    for entry in entries:
        entry["id"] = new_entry_id(taken)
        taken.add(entry["id"])
        entry["parentId"] = prev
        prev = entry["id"]
    for entry in entries:
        if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
            index = entry.pop("firstKeptEntryIndex")
            # The index counted file lines with the header at 0.
            if isinstance(index, int) and 1 <= index <= len(entries):
                entry["firstKeptEntryId"] = entries[index - 1]["id"]


def migrate_v2_to_v3(header: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    """``hookMessage`` became the ``custom`` role."""
    header["version"] = 3
    for entry in entries:
        msg = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(msg, dict) and msg.get("role") == "hookMessage":
            msg["role"] = "custom"


def migrate(header: dict[str, Any], entries: list[dict[str, Any]]) -> int | None:
    """Bring entries to the current version in place; returns the original version if anything changed."""
    version = header.get("version")
    version = version if isinstance(version, int) else 1
    if version >= CURRENT_SESSION_VERSION:
        return None
    if version < 2:
        migrate_v1_to_v2(header, entries)
    if version < 3:
        migrate_v2_to_v3(header, entries)
    return version


def backup_path_for(path: str) -> str:
    candidate = f"{path}.bak"
    n = 1
    while os.path.exists(candidate):
        candidate = f"{path}.bak{n}"
        n += 1
    return candidate


def write_atomic(path: str, lines: Iterable[dict[str, Any] | EntryRecord]) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as fh:
        fh.write(b"".join(x.line() if isinstance(x, EntryRecord) else to_line(x) for x in lines))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


_PREFIX_B = re.compile(PREFIX.pattern.encode())
_PI_PREFIX_B = re.compile(PI_PREFIX.pattern.encode())


_NONBLANK_TEXT_B = re.compile(NONBLANK_TEXT.encode())
_STOP_REASON_B = re.compile(STOP_REASON.encode())
# message heads by role bytes and what is known of the text: a dict look-up per message line, no decode
_HEADS: dict[tuple[bytes, bool, bool | None], MessageHead] = {}
_READ_BUFFER_MAX = 1 << 20


def _read_buffer(path: str) -> int:
    """The read size for going through a session file's lines: a sixteenth of the file, up to 1 MiB. The
    default 8 KiB makes a 29 MB file ~3,600 read calls, each several microseconds in a sandbox (a third of
    the time it takes to go through its lines); a sixteenth keeps the buffer small beside what is loaded."""
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    return min(_READ_BUFFER_MAX, max(io.DEFAULT_BUFFER_SIZE, size // 16))


_KINDS: dict[bytes, str] = {}  # entry types as read -> the interned str (a handful of them)


def _kind(raw: bytes) -> str:
    kind = intern(raw.decode())
    if len(_KINDS) < 256:  # (types are a closed set; a hostile file cannot grow this without bound)
        _KINDS[raw] = kind
    return kind


def _entry_from_line(
    raw: bytes, src: LineSource, offset: int, lineno: int, warnings: list[str]
) -> EntryRecord | None:
    """A record for one v3 line (``raw`` with its newline, if any): its tree fields (and a message's role)
    read from the line's prefix where possible, its body left in the file; anything else parsed now to be
    checked."""
    cut = not raw.endswith(b"\n")
    # the line's bytes are searched as read (with the newline): no copy of every line
    m = _PI_PREFIX_B.match(raw)
    compact = m is not None  # pi's own spacing: the byte patterns below are written for it
    if m is None:
        m = _PREFIX_B.match(raw)
    # A line without its newline is parsed in full: that is where a crash leaves a cut line.
    if m is not None and not cut and raw.endswith(b"}\n"):
        kind_b, eid_b, parent_b, ts_b, role, text = m.groups()
        try:
            eid, ts = eid_b.decode(), ts_b.decode()
            pid = parent_b.decode() if parent_b else None
        except UnicodeDecodeError:
            pass  # not UTF-8: the line is read whole below, as any line the prefix cannot vouch for
        else:
            kind = _KINDS.get(kind_b) or _kind(kind_b)
            head = None
            if role is not None and kind == "message":
                has_text, hidden = text is not None, None
                if not has_text and role == b"assistant" and compact:
                    # what the tree would read the line for, judged from the bytes at hand
                    if text_after_parts(raw, m.end()):
                        has_text = True  # thinking first, then text
                    elif _NONBLANK_TEXT_B.search(raw, m.end()) is None:
                        hidden = hidden_from_stops(_STOP_REASON_B.findall(raw))  # tool calls only (or failed)
                key = (role, has_text, hidden)
                head = _HEADS.get(key)
                if head is None:
                    head = _HEADS[key] = message_head(role.decode(), has_text, hidden)
            return EntryRecord.at(src, offset, raw, len(raw) - 1, lineno, kind, eid, pid, ts, head)
    body = raw if cut else raw[:-1]
    if not body.strip():
        return None
    where = f"{src.path}:{lineno}"
    try:
        obj = json.loads(body.decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        warnings.append(f"{where}: skipped malformed line{' (truncated last line)' if cut else ''}: {exc}")
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        warnings.append(f"{where}: skipped line without an entry type")
    elif obj["type"] == "session":
        warnings.append(f"{where}: skipped a second session header")
    elif not isinstance(obj.get("id"), str):
        warnings.append(f"{where}: skipped entry without an id")
    elif cut:
        return EntryRecord.from_dict(obj)
    else:
        # Checked, but left in the file like prefix-read lines: memory stays proportional to what is
        # used, whatever key order or spacing the writer chose.
        parent, ts = obj.get("parentId"), obj.get("timestamp")
        return EntryRecord.at(
            src,
            offset,
            body,
            len(body),
            lineno,
            intern(obj["type"]),
            obj["id"],
            parent if isinstance(parent, str) else None,
            ts if isinstance(ts, str) else "",
            head_of(obj),
        )
    return None


def _stream_entries(
    lines: Iterable[bytes], src: LineSource, offset: int, lineno: int, warnings: list[str]
) -> list[EntryRecord]:
    """Records for the v3 lines after the header, read one line at a time: the file is never held whole
    (and never as one str, which one non-Latin-1 character would make four bytes per character)."""
    out: list[EntryRecord] = []
    append = out.append
    prev = ""
    for raw in lines:
        lineno += 1
        rec = _entry_from_line(raw, src, offset, lineno, warnings)
        offset += len(raw)
        if rec is not None:
            if rec.parent_id == prev:
                # One string for the id and the next line's parentId (most lines follow the one before):
                # less memory, and looking the parent up compares pointers, its hash already known.
                rec.parent_id = prev
            prev = rec.id
            append(rec)
    return out


def load_session_file(
    path: str | os.PathLike[str], rewrite_migrated: bool = True, warnings: list[str] | None = None
) -> LoadedSession:
    """Read and validate a session file, migrating (with a ``.bak`` of the original) when it is old.

    Warnings go to ``warnings`` (also later ones, from lines found damaged when first parsed).
    """
    p = str(path)
    warnings = warnings if warnings is not None else []
    with open(p, "rb", buffering=_read_buffer(p)) as fh:
        lineno = 0
        offset = 0
        first: bytes | None = None
        last = b""
        for raw in fh:
            lineno += 1
            offset += len(raw)
            last = raw
            if raw.strip():
                first = raw
                break
        if first is None:
            return LoadedSession(p, None, [], warnings, not last or last.endswith(b"\n"))
        try:
            header = json.loads(first)
        except ValueError as exc:
            raise SessionFileError(p, f"line {lineno} is not valid JSON ({exc})")
        if not is_valid_header(header):
            raise SessionFileError(p, f"line {lineno} is not a session header")
        version = header.get("version")
        if isinstance(version, int) and version >= CURRENT_SESSION_VERSION:
            with bulk():
                entries = _stream_entries(fh, LineSource(p, warnings), offset, lineno, warnings)
            ends = _ends_with_newline(fh)
            return LoadedSession(p, header, entries, warnings, ends)

    # Old format (small, rare): parse everything, migrate, keep a backup, rewrite.
    data = Path(p).read_bytes()
    ends = not data or data.endswith(b"\n")
    header, raw_entries = parse_lines(data, p, warnings)
    assert header is not None
    loaded = LoadedSession(p, header, [], warnings, ends)
    loaded.migrated_from = migrate(header, raw_entries)
    for entry in raw_entries:
        lineno_ = entry.pop("__line", "?")
        if not isinstance(entry.get("id"), str):
            warnings.append(f"{p}:{lineno_}: skipped entry without an id")
            continue
        loaded.entries.append(EntryRecord.from_dict(entry))
    if loaded.migrated_from is not None and rewrite_migrated:
        loaded.backup_path = backup_path_for(p)
        shutil.copy2(p, loaded.backup_path)
        write_atomic(p, [header, *loaded.entries])
        loaded.ends_with_newline = True
        warnings.append(
            f"{p}: migrated from session format v{loaded.migrated_from} to v{CURRENT_SESSION_VERSION}"
            f" (original kept at {loaded.backup_path})"
        )
    return loaded


def _ends_with_newline(fh: Any) -> bool:
    size = os.fstat(fh.fileno()).st_size
    return size == 0 or os.pread(fh.fileno(), 1, size - 1) == b"\n"


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The header of a session file from its first 4 KB, or None when the file is not a session."""
    try:
        with open(path, "rb") as fh:
            first = fh.read(4096).split(b"\n", 1)[0]
        obj = json.loads(first)
    except (OSError, ValueError):
        return None
    return obj if is_valid_header(obj) else None
