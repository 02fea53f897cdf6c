"""Pure tree functions over entry dicts: path walks, context rebuild, labels, children, tree, ancestors."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from pydantic import TypeAdapter

from ...agent.history import Deferred, MessageHistory
from ...ai.deferred import UNSET as UNTYPED
from ...ai.types import LLM_ROLES, MESSAGE_CLASSES
from ..messages import AgentMessage, iso_to_ms, parse_agent_message
from .record import EntryRecord, bulk, collect_before_settling, settle_heap

# An entry dict or an EntryRecord (which answers get()/[] like the dict it stands for).
Entry = Any


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # "no leaf given" (use the last entry) as opposed to None (before the first entry)


@dataclass(frozen=True)
class ModelRef:
    """The model a session path last used: its latest model change or assistant reply."""

    provider: str
    model_id: str


@dataclass
class SessionContext:
    """What the agent resumes with: messages on the active path, thinking level and model.

    ``sources`` holds, per message, the entry it comes from and the message dict when one was built here
    (custom messages, summaries); ``None`` means "the entry's ``message``", read only when asked for, so a
    resumed 50k-entry session is not held twice (as dicts and as models).
    """

    sources: list[tuple[Entry, dict[str, Any] | None]]
    thinking_level: str = "off"
    model: ModelRef | None = None
    # ids of the entries each message came from (the compaction entry for its summary)
    entry_ids: list[str] = field(default_factory=list)
    # where unusable messages are reported (the session manager's warnings); None: not reported
    warnings: list[str] | None = None
    # whether a thinking_level_change entry is on the path (``thinking_level`` is "off" without one too)
    thinking_entry: bool = False

    @cached_property
    def raw_messages(self) -> list[dict[str, Any]]:
        """The message dicts as stored (parsed now; the records keep only their lines)."""
        out: list[dict[str, Any]] = []
        for entry, built in self.sources:
            msg = built if built is not None else _peek(entry, "message")
            if isinstance(msg, dict):
                out.append(msg)
        return out

    @cached_property
    def messages(self) -> list[AgentMessage]:
        """Typed messages, validated on first access (a 50k-entry rebuild stays cheap until then).

        A message that cannot be used (``content: 12``, a non-object) is skipped with a warning naming the
        file and line; the rest of the session resumes and the file is left as it is.
        """
        if "history" in self.__dict__:  # typed on access already: share it (each message is typed once)
            return list(self.history)
        out: list[AgentMessage] = []
        if len(self.sources) > _SETTLE_AT:
            collect_before_settling()
        early = self._early
        with bulk():
            for i, (entry, built) in enumerate(self.sources):
                msg = early[i] if i in early else _typed(entry, built, self.warnings)
                if msg is not None:
                    out.append(msg)
        if len(out) > _SETTLE_AT:
            settle_heap()
        return out

    @cached_property
    def history(self) -> ResumedHistory:
        """The same messages as :attr:`messages`, typed when read (see MessageHistory): a resumed session's
        chat draws its tail without typing the whole history first. An unusable message is reported (as in
        :attr:`messages`) when it is typed."""
        if "messages" in self.__dict__:
            return ResumedHistory(self.messages)
        early = self._early
        warnings = self.warnings
        items: list[AgentMessage | Deferred[AgentMessage]] = []
        append = items.append
        typed = 0
        for i, src in enumerate(self.sources):  # (50k entries of a resumed session: kept lean)
            if i not in early:
                role = _role_head(src)
                if role and role != "system":
                    append(_PendingMessage(src[0], src[1], warnings, role))
                    continue
                # System messages (few; their text shapes the system prompt) and messages whose role is not
                # known from their line are typed now: every Deferred can tell its role untyped.
                early[i] = _typed(src[0], src[1], warnings)
            if (msg := early[i]) is not None:  # (an unusable one was reported)
                append(msg)
                typed += 1
        return ResumedHistory(items, untyped=len(items) - typed)

    @cached_property
    def _early(self) -> dict[int, AgentMessage | None]:
        """Messages typed before the rest (by :meth:`system_messages`), by source index."""
        return {}

    def system_messages(self) -> list[AgentMessage]:
        """The typed system messages only (the tool-set log), found from the lines' message heads: the rest
        stays untyped. Each is typed once, shared with :attr:`messages` and :attr:`history`."""
        if "messages" in self.__dict__:
            return [m for m in self.messages if m.role == "system"]
        early = self._early
        if "history" in self.__dict__:
            # The history typed every system message (and every message of unknown role) up front, into
            # ``_early``: reading them there leaves the rest untyped (iterating the history would type it all).
            return [m for _, m in sorted(early.items()) if m is not None and m.role == "system"]
        out: list[AgentMessage] = []
        for i, src in enumerate(self.sources):
            if _role_head(src) in ("system", None) and _is_system(src):
                if i not in early:
                    early[i] = _typed(src[0], src[1], self.warnings)
                msg = early[i]
                if msg is not None:
                    out.append(msg)
        return out


_SETTLE_AT = 5_000  # messages; below this a full GC pass is cheap enough


class _PendingMessage(Deferred[AgentMessage]):
    """One stored message, typed (or reported unusable) when the history first reads it."""

    __slots__ = ("entry", "built", "warnings", "_role")

    def __init__(
        self, entry: Entry, built: dict[str, Any] | None, warnings: list[str] | None, role: str
    ) -> None:
        self._value = UNTYPED  # (Deferred.__init__, without the call: one of these per resumed message)
        self.entry = entry
        self.built = built
        self.warnings = warnings
        self._role = role

    @property
    def role(self) -> str:
        return self._role

    def make(self) -> AgentMessage | None:
        return _typed(self.entry, self.built, self.warnings)


class ResumedHistory(MessageHistory[AgentMessage]):
    """A resumed session's history: typing all of it is done as one bulk build (see SessionContext.messages)."""

    __slots__ = ()

    def type_all(self) -> None:
        many = self.untyped > _SETTLE_AT
        if many:
            collect_before_settling()
        with bulk():
            super().type_all()
        if many:
            settle_heap()

    def type_some(self, limit: int) -> bool:
        with bulk():
            done = super().type_some(limit)
        if done and len(self) > _SETTLE_AT:
            settle_heap()  # typed in steps, settled once
        return done


def _role_head(src: tuple[Entry, dict[str, Any] | None]) -> str | None:
    """The message's role when known without parsing (a built dict, or the record's line prefix)."""
    entry, built = src
    if built is not None:
        role = built.get("role")
        return role if isinstance(role, str) else ""
    head = entry.message_head if type(entry) is EntryRecord else None
    return head[0] if head is not None else None


def _peek(entry: Entry, key: str) -> Any:
    return entry.peek(key) if type(entry) is EntryRecord else entry.get(key)


@cache
def _line_adapter(role: str | None = None) -> TypeAdapter[Any]:
    """Validates a whole ``message`` entry line straight from JSON into the typed LLM message: of ``role``
    when the line's head shows it (a tagged union has to find its tag before validating, ~1 µs a line),
    else of any LLM role."""
    from pydantic import BaseModel, ConfigDict

    from ...ai.types import Message

    kind = MESSAGE_CLASSES.get(role, Message)

    class MessageLine(BaseModel):
        model_config = ConfigDict(extra="ignore")
        message: kind  # type: ignore[valid-type]

    return TypeAdapter(MessageLine)


_LINE_ROLES = frozenset({*LLM_ROLES, None})  # roles with a line adapter (None: not shown by the line)


@cache
def _validate_line(role: str | None) -> Callable[[bytes], Any]:
    """pydantic-core's own ``validate_json`` for :func:`_line_adapter` (run once per resumed message: the
    adapter's Python wrapper around it cost a tenth of the typing)."""
    return _line_adapter(role).validator.validate_json


# role -> its model's validator, straight from JSON
_VALIDATE_MESSAGE: dict[str, Callable[[bytes], Any]] = {
    role: cls.__pydantic_validator__.validate_json for role, cls in MESSAGE_CLASSES.items()
}


def _typed(entry: Entry, built: dict[str, Any] | None, warnings: list[str] | None) -> AgentMessage | None:
    data: Any = built
    if data is None:
        if type(entry) is EntryRecord:
            # Fast paths, no intermediate dict: pydantic parses the bytes itself, the message cut from its
            # line (pi's compact form) or else the whole line. Other roles (bashExecution, custom, ...),
            # invalid UTF-8 and anything odd take the dict path below, which also words the error.
            head = entry.message_head
            role = head[0] if head is not None else None
            validate = _VALIDATE_MESSAGE.get(role)  # type: ignore[arg-type]
            if validate is not None and (body := entry.message_json()):
                try:
                    return validate(body)  # type: ignore[no-any-return]
                except ValueError:
                    pass
            raw = entry.unparsed_bytes()
            if raw is not None and role in _LINE_ROLES:
                try:
                    return _validate_line(role)(raw).message  # type: ignore[no-any-return]
                except ValueError:
                    pass
        data = _peek(entry, "message")
    try:
        if not isinstance(data, dict):
            raise ValueError(f"message is {type(data).__name__}, not an object")
        return parse_agent_message(data)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        if warnings is not None:
            warnings.append(
                f"{_where(entry)}: skipped unusable message entry {entry.get('id')}: {_reason(exc)}"
            )
        return None


def _where(entry: Entry) -> str:
    where = entry.where if type(entry) is EntryRecord else ""
    return where or "session"


def _reason(exc: ValueError) -> str:
    """One line: the first pydantic error as ``loc: msg`` (never the whole dump with input values)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors(include_input=False, include_url=False)[0]
            loc = ".".join(str(p) for p in first.get("loc", ()))
            more = len(errors()) - 1
            tail = f" (+{more} more)" if more > 0 else ""
            return f"{loc}: {first.get('msg', 'invalid')}{tail}" if loc else f"{first.get('msg')}{tail}"
        except Exception:  # noqa: BLE001 - wording only; fall through to str()
            pass
    return str(exc).splitlines()[0][:200]


def index_entries(entries: Sequence[Entry]) -> dict[str, Entry]:
    return {e["id"]: e for e in entries}


def path_to_root(by_id: Mapping[str, Entry], leaf_id: str | None) -> list[Entry]:
    """Entries from the root down to ``leaf_id`` (inclusive); stops at a missing parent or a cycle."""
    path: list[Entry] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    get = by_id.get
    while current is not None:
        # Attribute access for records: this loop runs once per entry of a possibly 50k-deep path.
        if type(current) is EntryRecord:
            cid, parent = current.id, current.parent_id
        else:
            cid, parent = current["id"], current.get("parentId")
        if cid in seen:
            break
        seen.add(cid)
        path.append(current)
        current = get(parent) if parent is not None else None
    path.reverse()
    return path


def _as_source(entry: Entry, kind: str) -> tuple[Entry, dict[str, Any] | None] | None:
    """(entry, built message dict or None for "its ``message``") when the entry contributes a message."""
    if kind == "message":
        if type(entry) is EntryRecord and not entry.is_parsed:
            return entry, None  # read when the messages are (a bad body is reported then)
        msg = entry.get("message")
        return (entry, msg) if isinstance(msg, dict) else None
    if kind == "custom_message":
        msg = {
            "role": "custom",
            "customType": entry.get("customType", ""),
            "content": entry.get("content", ""),
            "display": entry.get("display", True),
            "timestamp": iso_to_ms(entry.get("timestamp", "")),
        }
        if entry.get("details") is not None:
            msg["details"] = entry["details"]
        return entry, msg
    if kind == "branch_summary" and entry.get("summary"):
        msg = {
            "role": "branchSummary",
            "summary": entry["summary"],
            "fromId": entry.get("fromId", ""),
            "timestamp": iso_to_ms(entry.get("timestamp", "")),
        }
        return entry, msg
    return None


def build_session_context(
    entries: Sequence[Entry],
    leaf_id: str | None = UNSET,
    by_id: Mapping[str, Entry] | None = None,
    warnings: list[str] | None = None,
    *,
    path: list[Entry] | None = None,
    context_edits: bool = True,
) -> SessionContext:
    """Rebuild the LLM-facing state at ``leaf_id`` (default: the last entry; None: empty context).

    Along the root→leaf path the last thinking_level_change and model_change / assistant message win. With a
    compaction on the path, its ``systemMessage`` checkpoint (pi 1.6) and its summary come first, then the
    kept entries from ``firstKeptEntryId`` up to the compaction (system messages among them dropped when
    there is a checkpoint), then everything after it. ``context_edit`` entries on the path apply (the latest
    per target); ``context_edits=False`` gives the messages as stored, for views of the raw history.
    """
    if leaf_id is None:
        return SessionContext([], warnings=warnings)
    if by_id is None:
        by_id = index_entries(entries)
    leaf = by_id.get(leaf_id) if leaf_id is not UNSET else None
    if leaf is None:
        if not entries:
            return SessionContext([], warnings=warnings)
        leaf = entries[-1]
    if path is None or not path or path[-1] is not leaf:
        path = path_to_root(by_id, leaf["id"])

    # Scan from the leaf up: the nearest setting wins, and only the entries looked at get parsed.
    thinking: str | None = None
    model: ModelRef | None = None
    compaction_at = -1
    for i in range(len(path) - 1, -1, -1):
        entry = path[i]
        kind = entry.type if type(entry) is EntryRecord else entry.get("type")
        if kind == "message" and model is None:
            msg = _peek(entry, "message")
            if isinstance(msg, dict) and msg.get("role") == "assistant":
                model = ModelRef(str(msg.get("provider", "")), str(msg.get("model", "")))
        elif kind == "thinking_level_change" and thinking is None:
            thinking = str(entry.get("thinkingLevel", "off"))
        elif kind == "model_change" and model is None:
            model = ModelRef(str(entry.get("provider", "")), str(entry.get("modelId", "")))
        elif kind == "compaction" and compaction_at < 0:
            compaction_at = i
        if model is not None and thinking is not None and compaction_at >= 0:
            break

    sources: list[tuple[Entry, dict[str, Any] | None]] = []
    ids: list[str] = []
    edits = _context_edits(path) if context_edits else {}

    def emit(entries_: Sequence[Entry], drop_system: bool = False) -> None:
        for e in entries_:
            src = _as_source(e, e.type if type(e) is EntryRecord else e.get("type"))
            if src is None or (drop_system and _is_system(src)):
                continue
            eid = e.id if type(e) is EntryRecord else e["id"]
            if eid in edits:
                src = _edited(src, edits[eid])
                if src is None:
                    continue
            sources.append(src)
            ids.append(eid)

    if compaction_at < 0:
        emit(path)
    else:
        comp = path[compaction_at]
        checkpoint = comp.get("systemMessage")
        if isinstance(checkpoint, dict):
            sources.append((comp, checkpoint))
            ids.append(comp["id"])
        else:
            checkpoint = None
        summary = {
            "role": "compactionSummary",
            "summary": comp.get("summary", ""),
            "tokensBefore": comp.get("tokensBefore", 0),
            "timestamp": iso_to_ms(comp.get("timestamp", "")),
        }
        sources.append((comp, summary))
        ids.append(comp["id"])
        first_kept = comp.get("firstKeptEntryId")
        start = next((i for i in range(compaction_at) if path[i]["id"] == first_kept), compaction_at)
        emit(path[start:compaction_at], drop_system=checkpoint is not None)
        emit(path[compaction_at + 1 :])
    return SessionContext(sources, thinking or "off", model, ids, warnings, thinking is not None)


def _context_edits(path: Sequence[Entry]) -> dict[str, Entry]:
    """The latest ``context_edit`` per target among ``path`` (only edits are parsed; the rest is not read)."""
    edits: dict[str, Entry] = {}
    for e in path:
        if (e.type if type(e) is EntryRecord else e.get("type")) == "context_edit":
            target = e.get("targetId")
            if isinstance(target, str):
                edits[target] = e
    return edits


# Roles whose content must be a list of blocks: a string replacement becomes one text block.
_BLOCK_ROLES = frozenset({"assistant", "toolResult"})


def _edited(
    src: tuple[Entry, dict[str, Any] | None], edit: Entry
) -> tuple[Entry, dict[str, Any] | None] | None:
    """``src`` as ``edit`` leaves it for the model: None when omitted, else its message with new content."""
    replacement = edit.get("replacement")
    if replacement is None:
        return None
    entry, built = src
    msg = built if built is not None else _peek(entry, "message")
    if not isinstance(msg, dict) or msg.get("role") in ("branchSummary", "compactionSummary"):
        return src  # summaries have no content to replace
    content = replacement
    if isinstance(content, str) and msg.get("role") in _BLOCK_ROLES:
        content = [{"type": "text", "text": content}]
    return entry, {**msg, "content": content}


_SYSTEM_ROLE = re.compile(r'"message"\s*:\s*\{\s*"role"\s*:\s*"system"')


def _is_system(src: tuple[Entry, dict[str, Any] | None]) -> bool:
    """Whether a kept entry holds a system-role message, read from the line without parsing it."""
    entry, built = src
    if built is not None:
        return built.get("role") == "system"
    line = entry.unparsed_line if type(entry) is EntryRecord else None
    if line is not None:
        found = _SYSTEM_ROLE.search(line)
        if found is not None:
            return True
        if '"system"' not in line:
            return False
    msg = _peek(entry, "message")
    return isinstance(msg, dict) and msg.get("role") == "system"


def labels_of(entries: Sequence[Entry]) -> dict[str, str]:
    """Current label per target id: later label entries win, an empty/absent label clears."""
    labels: dict[str, str] = {}
    for e in entries:
        if e.get("type") == "label":
            target = e.get("targetId")
            if not isinstance(target, str):
                continue
            if e.get("label"):
                labels[target] = str(e["label"])
            else:
                labels.pop(target, None)
    return labels


def _ts_key(entry: Entry) -> int:
    return iso_to_ms(entry.get("timestamp", ""))


def children_of(entries: Sequence[Entry], parent_id: str | None) -> list[Entry]:
    """Direct children, oldest first (stable for equal timestamps)."""
    return sorted((e for e in entries if e.get("parentId") == parent_id), key=_ts_key)


@dataclass
class TreeNode:
    """One entry of the session tree with its children (in file order) and its label, if any."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None


# Entries the conversation tree leaves out (pi 1.6 hides usage entries); their children hang on their parent.
TREE_HIDDEN_TYPES = frozenset({"usage"})


def build_tree(entries: Sequence[Entry], labels: Mapping[str, str] | None = None) -> list[TreeNode]:
    """Forest of entries: roots are parentId null (or self) and orphans; children sorted by timestamp.

    Usage entries are not shown: a child of one is placed under the nearest shown ancestor.
    """
    labels = labels if labels is not None else labels_of(entries)
    hidden: dict[str, str | None] = {
        e["id"]: e.get("parentId") for e in entries if e.get("type") in TREE_HIDDEN_TYPES
    }
    nodes = {e["id"]: TreeNode(e, label=labels.get(e["id"])) for e in entries if e["id"] not in hidden}
    roots: list[TreeNode] = []
    for e in entries:
        node = nodes.get(e["id"])
        if node is None:
            continue
        parent_id = e.get("parentId")
        seen: set[str] = set()
        while parent_id in hidden and parent_id not in seen:
            seen.add(parent_id)
            parent_id = hidden[parent_id]
        parent = nodes.get(parent_id) if parent_id is not None and parent_id != e["id"] else None
        if parent is None or parent is node:
            roots.append(node)
        else:
            parent.children.append(node)
    stack = list(roots)
    while stack:  # iterative: session trees can be thousands deep
        node = stack.pop()
        if len(node.children) > 1:  # most nodes have one child: no timestamp parse for them
            node.children.sort(key=lambda n: _ts_key(n.entry))
        stack.extend(node.children)
    return roots


def common_ancestor(by_id: Mapping[str, Entry], a: str | None, b: str | None) -> str | None:
    """Deepest entry on both root paths (None when the paths share nothing)."""
    on_a = {e["id"] for e in path_to_root(by_id, a)}
    for e in reversed(path_to_root(by_id, b)):
        if e["id"] in on_a:
            found: str = e["id"]
            return found
    return None
