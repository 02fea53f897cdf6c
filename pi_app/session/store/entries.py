"""Typed views of session file lines (format v3).

The store keeps every line as the dict it was read from, so unknown fields and unknown entry types are written
back byte-for-byte in meaning; these models are built on demand (``parse_entry``) for typed access and used to
create new entries (``dump_entry``).
"""

from __future__ import annotations

import json
from typing import Any, Literal, Union

from pi_app.ai.types import UserContent, WireModel

from ..messages import AgentMessage, parse_agent_message

CURRENT_SESSION_VERSION = 3


class SessionHeader(WireModel):
    type: Literal["session"] = "session"
    version: int | None = None  # absent in v1 files
    id: str
    timestamp: str = ""
    cwd: str = ""
    parentSession: str | None = None


class _EntryBase(WireModel):
    id: str
    parentId: str | None = None
    timestamp: str = ""


class MessageEntry(_EntryBase):
    type: Literal["message"] = "message"
    message: Any  # AgentMessage; validated through parse_agent_message below

    def agent_message(self) -> AgentMessage:
        return self.message if not isinstance(self.message, dict) else parse_agent_message(self.message)


class ThinkingLevelChangeEntry(_EntryBase):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinkingLevel: str


class ModelChangeEntry(_EntryBase):
    type: Literal["model_change"] = "model_change"
    provider: str
    modelId: str


class CompactionEntry(_EntryBase):
    type: Literal["compaction"] = "compaction"
    summary: str
    firstKeptEntryId: str
    tokensBefore: int = 0
    details: Any = None
    fromHook: bool | None = None
    usage: Any = None  # pi 1.6: usage of the summary request (counts in session totals)
    systemMessage: Any = None  # pi 1.6: prompt/tool checkpoint that leads the compacted context


class ContextEditEntry(_EntryBase):
    """pi 1.6: edits one earlier entry's contribution to the model context (raw history is unchanged)."""

    type: Literal["context_edit"] = "context_edit"
    targetId: str
    replacement: Any = None  # None omits the target from the context; otherwise its new content


class UsageEntry(_EntryBase):
    """pi 1.6: model usage that is no message (e.g. ``kind: "cache_warm"``); counts in totals, not context."""

    type: Literal["usage"] = "usage"
    kind: str = ""
    provider: str = ""
    model: str = ""
    usage: Any = None


class BranchSummaryEntry(_EntryBase):
    type: Literal["branch_summary"] = "branch_summary"
    fromId: str
    summary: str
    details: Any = None
    fromHook: bool | None = None
    usage: Any = None


class CustomEntry(_EntryBase):
    type: Literal["custom"] = "custom"
    customType: str
    data: Any = None


class CustomMessageEntry(_EntryBase):
    type: Literal["custom_message"] = "custom_message"
    customType: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None


class LabelEntry(_EntryBase):
    type: Literal["label"] = "label"
    targetId: str
    label: str | None = None  # None clears the label


class SessionInfoEntry(_EntryBase):
    type: Literal["session_info"] = "session_info"
    name: str | None = None


SessionEntry = Union[
    MessageEntry,
    ThinkingLevelChangeEntry,
    ModelChangeEntry,
    CompactionEntry,
    BranchSummaryEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    SessionInfoEntry,
    ContextEditEntry,
    UsageEntry,
]

ENTRY_MODELS: dict[str, type[_EntryBase]] = {
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
    "context_edit": ContextEditEntry,
    "usage": UsageEntry,
}


def parse_entry(raw: dict[str, Any]) -> SessionEntry | dict[str, Any]:
    """Typed model for a known entry type (message validated too); unknown types come back as the raw dict."""
    model = ENTRY_MODELS.get(raw.get("type"))  # type: ignore[arg-type]
    if model is None:
        return raw
    entry = model.model_validate(raw)
    if isinstance(entry, MessageEntry) and isinstance(entry.message, dict):
        entry.message = parse_agent_message(entry.message)
    return entry  # type: ignore[return-value]


def dump_entry(entry: WireModel) -> dict[str, Any]:
    """JSON-ready dict as pi writes it: unset optionals omitted, but ``parentId: null`` kept."""
    data = entry.model_dump(mode="json", exclude_none=True)
    if isinstance(entry, _EntryBase):
        # Key order as pi writes: type, id, parentId, timestamp, then the rest.
        head = {"type": data.pop("type"), "id": data.pop("id"), "parentId": entry.parentId}
        data.pop("parentId", None)
        head["timestamp"] = data.pop("timestamp")
        head.update(data)
        data = head
    if isinstance(entry, ContextEditEntry):
        data["replacement"] = entry.replacement  # null is meaningful here (omit the target)
    return data


def to_line(data: dict[str, Any]) -> bytes:
    """One JSONL line like ``JSON.stringify`` (compact, non-ASCII kept) plus the newline."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # lone surrogates: escape them rather than fail the write
        return json.dumps(data, separators=(",", ":")).encode("ascii") + b"\n"


def new_header(
    session_id: str, timestamp: str, cwd: str, parent_session: str | None = None
) -> dict[str, Any]:
    header: dict[str, Any] = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
    }
    if parent_session is not None:
        header["parentSession"] = parent_session
    return header


__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_MODELS",
    "BranchSummaryEntry",
    "CompactionEntry",
    "ContextEditEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "SessionEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "UsageEntry",
    "dump_entry",
    "new_header",
    "parse_entry",
    "to_line",
]
