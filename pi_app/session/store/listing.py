"""Session listing for /resume and --continue, with a per-file metadata cache keyed by (size, mtime).

The cache lives in ``<agentDir>/session-list-cache.json``; a warm listing only stats files. ``allMessagesText``
(used for searching) is stored capped at :data:`ALL_TEXT_LIMIT` characters to keep the cache small.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pi_app.ai.text import text_of

from ..messages import iso_to_ms
from .jsonl import SessionFileError, is_valid_header, parse_lines, read_header
from .paths import SESSION_SUFFIX, agent_dir, default_session_dir, sessions_dir

CACHE_FILE_NAME = "session-list-cache.json"
CACHE_VERSION = 1
ALL_TEXT_LIMIT = 4000


@dataclass
class SessionInfo:
    """One session file as the /resume picker lists it: ids, names, dates, counts and the first message."""

    path: str
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str


def _dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def summarize_file(path: str, mtime_ms: int) -> dict[str, Any] | None:
    """Cacheable metadata of one file (ms timestamps), or None if it is not a session file."""
    try:
        data = Path(path).read_bytes()
        header, entries = parse_lines(data, path, [])
    except (OSError, SessionFileError):
        return None
    if header is None:
        return None
    count = 0
    first = ""
    texts: list[str] = []
    text_len = 0
    name: str | None = None
    last_activity = 0
    for e in entries:
        kind = e.get("type")
        if kind == "session_info" and e.get("name"):
            name = str(e["name"]).strip()
        if kind != "message":
            continue
        count += 1
        msg = e.get("message")
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            continue
        ts = msg.get("timestamp")
        t = ts if isinstance(ts, (int, float)) else iso_to_ms(e.get("timestamp", ""))
        last_activity = max(last_activity, int(t))
        text = text_of(msg.get("content"), " ")
        if not text:
            continue
        if text_len < ALL_TEXT_LIMIT:
            texts.append(text)
            text_len += len(text) + 1
        if not first and msg.get("role") == "user":
            first = text
    created = iso_to_ms(str(header.get("timestamp", "")))
    modified = last_activity or created or mtime_ms
    return {
        "id": header["id"],
        "cwd": header.get("cwd") if isinstance(header.get("cwd"), str) else "",
        "name": name,
        "parentSessionPath": header.get("parentSession"),
        "created": created or mtime_ms,
        "modified": modified,
        "messageCount": count,
        "firstMessage": first or "(no messages)",
        "allMessagesText": " ".join(texts)[:ALL_TEXT_LIMIT],
    }


def _info(path: str, meta: dict[str, Any]) -> SessionInfo:
    return SessionInfo(
        path=path,
        id=meta["id"],
        cwd=meta["cwd"],
        name=meta.get("name"),
        parent_session_path=meta.get("parentSessionPath"),
        created=_dt(meta["created"]),
        modified=_dt(meta["modified"]),
        message_count=meta["messageCount"],
        first_message=meta["firstMessage"],
        all_messages_text=meta["allMessagesText"],
    )


class ListingCache:
    """path → {size, mtimeNs, meta}; loaded once per listing, saved only when something changed."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or agent_dir() / CACHE_FILE_NAME
        self.files: dict[str, dict[str, Any]] = {}
        self.dirty = False
        try:
            data = json.loads(self.path.read_bytes())
            if data.get("version") == CACHE_VERSION and isinstance(data.get("files"), dict):
                self.files = data["files"]
        except (OSError, ValueError, AttributeError):
            pass

    def lookup(self, path: str, st: os.stat_result) -> dict[str, Any] | None | bool:
        """Cached meta (None for "not a session"), or False on a miss."""
        hit = self.files.get(path)
        if hit is not None and hit["size"] == st.st_size and hit["mtimeNs"] == st.st_mtime_ns:
            cached: dict[str, Any] | None = hit["meta"]
            return cached
        meta = summarize_file(path, st.st_mtime_ns // 1_000_000)
        self.files[path] = {"size": st.st_size, "mtimeNs": st.st_mtime_ns, "meta": meta}
        self.dirty = True
        return meta

    def prune(self, keep_prefix: str, seen: set[str]) -> None:
        stale = [p for p in self.files if p.startswith(keep_prefix) and p not in seen]
        for p in stale:
            del self.files[p]
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"version": CACHE_VERSION, "files": self.files}), "utf-8")
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError:
            pass  # a cache that cannot be written only costs speed


def _scan_dir(directory: Path, cache: ListingCache, out: list[SessionInfo], seen: set[str]) -> None:
    try:
        it = os.scandir(directory)
    except OSError:
        return
    with it:
        for de in it:
            if not de.name.endswith(SESSION_SUFFIX):
                continue
            try:
                st = de.stat()
            except OSError:
                continue
            path = de.path
            seen.add(path)
            meta = cache.lookup(path, st)
            if meta:
                out.append(_info(path, meta))  # type: ignore[arg-type]


def list_sessions(
    cwd: str, session_dir: str | os.PathLike[str] | None = None, cache: ListingCache | None = None
) -> list[SessionInfo]:
    """Sessions of one cwd (or of an explicit session dir), newest activity first."""
    directory = Path(session_dir) if session_dir else default_session_dir(cwd, create=False)
    cache = cache or ListingCache()
    out: list[SessionInfo] = []
    seen: set[str] = set()
    _scan_dir(directory, cache, out, seen)
    cache.prune(str(directory) + os.sep, seen)
    cache.save()
    out.sort(key=lambda s: s.modified, reverse=True)
    return out


def list_all_sessions(cache: ListingCache | None = None) -> list[SessionInfo]:
    """Sessions of every cwd under ``<agentDir>/sessions``, newest activity first."""
    root = sessions_dir()
    cache = cache or ListingCache()
    out: list[SessionInfo] = []
    seen: set[str] = set()
    try:
        dirs = [Path(de.path) for de in os.scandir(root) if de.is_dir()]
    except OSError:
        dirs = []
    for d in dirs:
        _scan_dir(d, cache, out, seen)
    cache.prune(str(root) + os.sep, seen)
    cache.save()
    out.sort(key=lambda s: s.modified, reverse=True)
    return out


def find_most_recent_session(directory: str | os.PathLike[str]) -> str | None:
    """Most recently modified (mtime) file in ``directory`` whose first line is a valid header."""
    candidates: list[tuple[int, str]] = []
    try:
        with os.scandir(directory) as it:
            for de in it:
                if de.name.endswith(SESSION_SUFFIX):
                    try:
                        candidates.append((de.stat().st_mtime_ns, de.path))
                    except OSError:
                        continue
    except OSError:
        return None
    for _, path in sorted(candidates, reverse=True):
        if is_valid_header(read_header(path)):
            return path
    return None


def session_info_dict(info: SessionInfo) -> dict[str, Any]:
    """pi's SessionInfo shape (camelCase, ISO dates), e.g. for RPC."""
    d = asdict(info)
    return {
        "path": d["path"],
        "id": d["id"],
        "cwd": d["cwd"],
        "name": d["name"],
        "parentSessionPath": d["parent_session_path"],
        "created": info.created.isoformat().replace("+00:00", "Z"),
        "modified": info.modified.isoformat().replace("+00:00", "Z"),
        "messageCount": d["message_count"],
        "firstMessage": d["first_message"],
        "allMessagesText": d["all_messages_text"],
    }
