"""SessionManager: an append-only session tree in a JSONL file (pi's SessionManager, format v3).

Nothing is written until the first assistant message exists; then the buffered lines go out at once and every
later entry is appended as one line with a single ``os.write`` on an ``O_APPEND`` descriptor, so two processes
appending to the same file never interleave partial lines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

try:
    import fcntl
except ImportError:  # Windows: single O_APPEND writes still keep lines whole
    fcntl = None  # type: ignore[assignment]

from ..messages import message_role
from . import lock
from .context import (
    UNSET,
    SessionContext,
    TreeNode,
    build_session_context,
    build_tree,
    children_of,
    common_ancestor,
    path_to_root,
)
from .entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
    dump_entry,
    new_header,
    parse_entry,
    to_line,
)
from .jsonl import SessionFileError, load_session_file, write_atomic
from .paths import default_session_dir, iso_now, new_entry_id, session_file_name, uuid7
from .record import EntryRecord, bulk, collect_before_settling, settle_heap

Entry = EntryRecord
_SETTLE_AT = 5_000  # entries; a smaller session costs the cyclic GC little
_COLLECT_FROM_BYTES = 1 << 20  # a file this big may hold _SETTLE_AT entries: collect before loading it


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def append_bytes(path: str, data: bytes) -> None:
    """Append with one write; if the file's last line was cut (crash), end it first so ours stands alone."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # Another of our processes may be mid-write: its size would look like a cut line without the lock.
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size > 0:
            rfd = os.open(path, os.O_RDONLY)
            try:
                if os.pread(rfd, 1, size - 1) != b"\n":
                    data = b"\n" + data
            finally:
                os.close(rfd)
        _write_all(fd, data)
    finally:
        os.close(fd)


class SessionManager:
    """One session: header + entries, the current leaf, labels; optionally persisted to a JSONL file."""

    def __init__(
        self, cwd: str, session_dir: str | os.PathLike[str] | None, session_file: str | None, persist: bool
    ) -> None:
        self.cwd = cwd
        self.session_dir: Path | None = Path(session_dir) if session_dir else None
        self.persist = persist
        self.session_file: str | None = None
        self.session_id = ""
        self.warnings: list[str] = []
        self._header: dict[str, Any] = {}
        self._entries: list[Entry] = []
        self._by_id: dict[str, Entry] = {}
        self._path_cache: tuple[str | None, list[Entry]] | None = None
        self._typed: dict[str, SessionEntry | dict[str, Any]] = {}
        self._labels: dict[str, str] = {}
        self._leaf_id: str | None = None
        self._written = 0  # lines of [header, *entries] already in the file
        self._has_assistant = False
        if persist and self.session_dir is not None:
            self.session_dir.mkdir(parents=True, exist_ok=True)
        if session_file:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(cls, cwd: str, session_dir: str | os.PathLike[str] | None = None) -> SessionManager:
        return cls(cwd, session_dir or default_session_dir(cwd), None, True)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None
    ) -> SessionManager:
        """Open an existing file (or adopt a path that does not exist yet, as ``--session`` does)."""
        from .jsonl import read_header

        header = read_header(path) if os.path.exists(path) else None
        recorded = header.get("cwd") if header else None
        cwd = recorded if isinstance(recorded, str) else os.getcwd()
        return cls(cwd, session_dir or Path(path).resolve().parent, str(path), True)

    @classmethod
    def continue_recent(cls, cwd: str, session_dir: str | os.PathLike[str] | None = None) -> SessionManager:
        from .listing import find_most_recent_session

        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        recent = find_most_recent_session(directory)
        return cls(cwd, directory, recent, True)

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        return cls(cwd or os.getcwd(), None, None, False)

    @classmethod
    def fork_from(
        cls,
        source_path: str | os.PathLike[str],
        target_cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
    ) -> SessionManager:
        """Copy another session's whole history into a new file for ``target_cwd`` (parentSession = source)."""
        loaded = load_session_file(source_path, rewrite_migrated=False)
        if loaded.header is None:
            raise SessionFileError(source_path, "Cannot fork: source session file is empty")
        directory = Path(session_dir) if session_dir else default_session_dir(target_cwd)
        directory.mkdir(parents=True, exist_ok=True)
        ts = iso_now()
        sid = uuid7()
        path = str(directory / session_file_name(ts, sid))
        write_atomic(path, [new_header(sid, ts, target_cwd, str(source_path)), *loaded.entries])
        mgr = cls(target_cwd, directory, path, True)
        mgr.warnings[:0] = loaded.warnings
        return mgr

    def set_session_file(self, session_file: str | os.PathLike[str]) -> None:
        """Load a file (migrating old versions). Empty file → fresh session at that path; bad header raises."""
        path = str(Path(session_file).resolve())
        if not os.path.exists(path):
            self.new_session()
            self.session_file = path
            return
        if os.path.getsize(path) >= _COLLECT_FROM_BYTES:
            collect_before_settling()  # a big file's load ends in settle_heap
        # Raises SessionFileError for a bad header: such a file is never overwritten.
        loaded = load_session_file(path, warnings=self.warnings)
        if loaded.header is None:
            self.new_session()
            self.session_file = path
            write_atomic(path, [self._header])  # nothing to lose: the file was empty
            self._written = 1
            return
        self._header = loaded.header
        self.session_id = str(loaded.header["id"])
        self.session_file = path
        self._entries = loaded.entries
        with bulk():
            self._rebuild_index()
        self._written = 1 + len(self._entries)
        if len(self._entries) > _SETTLE_AT:
            settle_heap()

    def new_session(self, id: str | None = None, parent_session: str | None = None) -> str | None:
        ts = iso_now()
        self.session_id = id or uuid7()
        self._header = new_header(self.session_id, ts, self.cwd, parent_session)
        self._entries = []
        self._by_id = {}
        self._path_cache = None
        self._typed = {}
        self._labels = {}
        self._leaf_id = None
        self._written = 0
        self._has_assistant = False
        if self.persist and self.session_dir is not None:
            self.session_file = str(self.session_dir / session_file_name(ts, self.session_id))
        return self.session_file

    def _rebuild_index(self) -> None:
        self._path_cache = None
        self._by_id = {}
        self._typed = {}
        self._labels = {}
        self._has_assistant = False
        for e in self._entries:
            if e.id in self._by_id:
                self.warnings.append(f"{self.session_file}: duplicate entry id {e.id} (later one wins)")
            self._by_id[e.id] = e
            self._track(e)
        self._leaf_id = self._entries[-1].id if self._entries else None

    def _track(self, e: Entry) -> None:
        kind = e.type
        if kind == "label":
            target = e.get("targetId")
            if isinstance(target, str):
                if e.get("label"):
                    self._labels[target] = str(e["label"])
                else:
                    self._labels.pop(target, None)
        elif kind == "message" and not self._has_assistant:
            msg = e.peek("message")
            self._has_assistant = isinstance(msg, dict) and msg.get("role") == "assistant"

    # ------------------------------------------------------------------ persistence
    def _persist(self, entry: Entry) -> None:
        if not self.persist or not self.session_file:
            return
        if not self._has_assistant:
            return  # written together with the first assistant message
        if self._written == len(self._entries):  # everything but this entry is on disk
            append_bytes(self.session_file, entry.line())
        else:
            # Counting lines (rather than a flushed flag) never writes the header twice.
            Path(self.session_file).parent.mkdir(parents=True, exist_ok=True)
            pending: list[EntryRecord | dict[str, Any]] = [self._header]
            pending = [*pending, *self._entries][self._written :]
            append_bytes(
                self.session_file,
                b"".join(e.line() if isinstance(e, EntryRecord) else to_line(e) for e in pending),
            )
        self._written = 1 + len(self._entries)

    def _append(self, model: BaseModel) -> str:
        entry = EntryRecord.from_dict(dump_entry(model))  # type: ignore[arg-type]
        if entry.id in self._by_id:
            self._path_cache = None  # a duplicate id replaces an entry (paths through it may change)
        self._entries.append(entry)
        self._by_id[entry.id] = entry
        self._leaf_id = entry.id
        self._track(entry)
        self._persist(entry)
        return entry.id

    def _base(self) -> dict[str, Any]:
        return {"id": new_entry_id(self._by_id), "parentId": self._leaf_id, "timestamp": iso_now()}

    # ------------------------------------------------------------------ appending (each returns the new id)
    def append_message(self, message: BaseModel | dict[str, Any]) -> str:
        """A user/assistant/toolResult/bashExecution/custom message as child of the leaf."""
        role = message_role(message)
        if role in ("branchSummary", "compactionSummary"):
            raise ValueError(
                f"{role} messages are stored as their own entries: use append_compaction/branch_with_summary"
            )
        return self._append(MessageEntry(**self._base(), message=message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(ThinkingLevelChangeEntry(**self._base(), thinkingLevel=thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(ModelChangeEntry(**self._base(), provider=provider, modelId=model_id))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        return self._append(
            CompactionEntry(
                **self._base(),
                summary=summary,
                firstKeptEntryId=first_kept_entry_id,
                tokensBefore=tokens_before,
                details=details,
                fromHook=from_hook,
            )
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        return self._append(CustomEntry(**self._base(), customType=custom_type, data=data))

    def append_session_info(self, name: str) -> str:
        return self._append(SessionInfoEntry(**self._base(), name=name.strip()))

    def append_custom_message_entry(
        self, custom_type: str, content: str | list[Any], display: bool, details: Any = None
    ) -> str:
        return self._append(
            CustomMessageEntry(
                **self._base(), customType=custom_type, content=content, display=display, details=details
            )
        )

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or with None/"" clear) the label of an entry."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append(LabelEntry(**self._base(), targetId=target_id, label=label or None))

    def append_context_edit(self, target_id: str, replacement: Any) -> str:
        """Change what ``target_id`` contributes to the model context from here on (None: omit it)."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append(ContextEditEntry(**self._base(), targetId=target_id, replacement=replacement))

    def append_usage(self, kind: str, provider: str, model: str, usage: Any) -> str:
        """Model usage that is not a message (pi 1.6's ``usage`` entry): counted, never context."""
        return self._append(
            UsageEntry(**self._base(), kind=kind, provider=provider, model=model, usage=usage)
        )

    # ------------------------------------------------------------------ reading
    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_entry(self, entry_id: str) -> SessionEntry | dict[str, Any] | None:
        """Typed entry (validated on first access); unknown entry types as their raw dict."""
        if entry_id not in self._by_id:
            return None
        typed = self._typed.get(entry_id)
        if typed is None:
            typed = self._typed[entry_id] = parse_entry(self._by_id[entry_id].data)
        return typed

    def get_leaf_entry(self) -> SessionEntry | dict[str, Any] | None:
        return self.get_entry(self._leaf_id) if self._leaf_id else None

    def get_raw_entry(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    def raw_entries(self) -> list[Entry]:
        """All entry dicts in file order (header excluded). Treat as read-only."""
        return list(self._entries)

    def get_entries(self) -> list[SessionEntry | Entry]:
        return [self.get_entry(e["id"]) for e in self._entries]  # type: ignore[misc]

    def get_header(self) -> SessionHeader:
        return SessionHeader.model_validate(self._header)

    def raw_header(self) -> dict[str, Any]:
        return dict(self._header)

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return children_of(self._entries, parent_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def labels(self) -> dict[str, str]:
        return dict(self._labels)

    def get_branch(self, from_id: str | None = None) -> list[Entry]:
        """Entries root → ``from_id`` (default: the leaf), every type included."""
        return list(self._path(from_id if from_id is not None else self._leaf_id))

    def _path(self, leaf_id: str | None) -> list[Entry]:
        """The root→leaf path, remembered for the last leaf asked: resuming walks the same 50k-entry
        path several times (context, settings, compaction checks). Entries are append-only and a path
        never changes once its leaf exists; the index rebuild (a different session) forgets it."""
        cached = self._path_cache
        if cached is not None and cached[0] == leaf_id:
            return cached[1]
        entry = self._by_id.get(leaf_id) if leaf_id is not None else None
        steps = _steps_below(self._by_id, entry, cached[0]) if cached is not None and cached[1] else None
        if cached is not None and steps is not None:
            # the usual case: a few entries appended under the remembered leaf (a prompt and its answer)
            path = [*cached[1], *steps]
        else:
            path = path_to_root(self._by_id, leaf_id)
        self._path_cache = (leaf_id, path)
        return path

    def build_session_context(
        self, leaf_id: str | None = UNSET, *, context_edits: bool = True
    ) -> SessionContext:
        """The model's context at ``leaf_id``; ``context_edits=False``: the messages as stored (views)."""
        leaf = self._leaf_id if leaf_id is UNSET else leaf_id
        path = self._path(leaf) if leaf is not None and leaf in self._by_id else None
        return build_session_context(
            self._entries, leaf, self._by_id, self.warnings, path=path, context_edits=context_edits
        )

    def get_tree(self) -> list[TreeNode]:
        return build_tree(self._entries, self._labels)

    def common_ancestor(self, a: str | None, b: str | None) -> str | None:
        return common_ancestor(self._by_id, a, b)

    def get_session_name(self) -> str | None:
        for e in reversed(self._entries):
            if e.get("type") == "session_info" and e.get("name"):
                return str(e["name"])
        return None

    # ------------------------------------------------------------------ moving the leaf
    def branch(self, entry_id: str) -> None:
        if entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Leaf before the first entry: the next append starts a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self, entry_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> str:
        """Move the leaf to ``entry_id`` and append a branch_summary of the abandoned path there."""
        if entry_id is not None and entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self._leaf_id = entry_id
        base = self._base()
        return self._append(
            BranchSummaryEntry(
                **base, fromId=entry_id or "root", summary=summary, details=details, fromHook=from_hook
            )
        )

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Switch to a new session holding only root→``leaf_id`` (labels re-created); returns its path."""
        path = self.get_branch(leaf_id)
        if not path:
            raise KeyError(f"Entry {leaf_id} not found")
        previous = self.session_file
        kept = [e for e in path if e.get("type") != "label"]
        kept_ids = {e["id"] for e in kept}
        ts = iso_now()
        sid = uuid7()
        header = new_header(sid, ts, self.cwd, previous if self.persist else None)
        parent = kept[-1]["id"] if kept else None
        label_entries: list[Entry] = []
        taken = set(kept_ids)
        for target, label in self._labels.items():
            if target in kept_ids:
                model = LabelEntry(
                    id=new_entry_id(taken), parentId=parent, timestamp=iso_now(), targetId=target, label=label
                )
                entry = EntryRecord.from_dict(dump_entry(model))
                taken.add(entry.id)
                label_entries.append(entry)
                parent = entry.id
        self._header = header
        self.session_id = sid
        self._entries = [*kept, *label_entries]
        self._rebuild_index()
        if not self.persist or self.session_dir is None:
            return None
        self.session_file = str(self.session_dir / session_file_name(ts, sid))
        if self._has_assistant:
            write_atomic(self.session_file, [header, *self._entries])
            self._written = 1 + len(self._entries)
        else:
            self._written = 0
        return self.session_file

    # ------------------------------------------------------------------ second-instance detection
    def claim_instance(self) -> str | None:
        """Mark this session as open here; returns (and records) a warning if another live pi has it open."""
        if not self.persist or not self.session_file:
            return None
        warning = lock.claim(self.session_file)
        if warning:
            self.warnings.append(warning)
        return warning

    def release_instance(self) -> None:
        if self.session_file:
            lock.release(self.session_file)

    def is_persisted(self) -> bool:
        return self.persist

    @property
    def has_file(self) -> bool:
        return bool(self.session_file) and os.path.exists(self.session_file or "")


_MAX_STEPS = 64  # entries appended under a remembered leaf that are walked instead of the whole path


def _steps_below(by_id: dict[str, Entry], entry: Entry | None, ancestor: str | None) -> list[Entry] | None:
    """The entries from just below ``ancestor`` down to ``entry`` when ``entry`` descends from it within a
    few steps, else None."""
    steps: list[Entry] = []
    current = entry
    while current is not None and len(steps) < _MAX_STEPS:
        steps.append(current)
        parent = current.parent_id
        if parent is not None and parent == ancestor:
            steps.reverse()
            return steps
        current = by_id.get(parent) if parent is not None else None
    return None
