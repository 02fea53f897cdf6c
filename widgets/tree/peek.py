"""Facts the tree needs from every entry, read without parsing whole session lines when possible.

The store keeps each line as text until a field beyond ``type``/``id``/``parentId``/``timestamp`` is asked for
(``EntryRecord``); a 10,000-entry session is mostly tool output nobody looks at. The tree needs, for every
message, only its role and whether an assistant turn is tool calls only (hidden by most filters). The loader
already saw most of that in the line's prefix (``EntryRecord.message_head``: the role, and for an answer whose
content opens with text, that it is not tool calls only); what it could not tell is read from the line with a
few regexes here. Anything unusual falls back to the parsed dict, which is always right.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pi_app.session.store.record import NONBLANK_TEXT, STOP_REASON, EntryRecord, hidden_from_stops

from .entry_text import is_hidden_assistant

# pi writes a message entry as {"type":"message","id":…,"parentId":…,"timestamp":…,"message":{"role":…
_ROLE = re.compile(r'"message":\{"role":"([A-Za-z]+)"')
_NONBLANK_TEXT = re.compile(NONBLANK_TEXT)
_STOP = re.compile(STOP_REASON)
ROLE_WINDOW = 400  # the role sits right after the fixed prefix


def tree_fields(entry: Any) -> tuple[str, str, Any, str]:
    """(id, type, parentId, timestamp) of a dict entry or an EntryRecord (whose tree fields are attributes)."""
    if isinstance(entry, dict):
        return (
            str(entry.get("id")),
            entry.get("type") or "",
            entry.get("parentId"),
            entry.get("timestamp") or "",
        )
    eid = getattr(entry, "id", None)
    if isinstance(eid, str):
        return eid, entry.type or "", entry.parent_id, entry.timestamp or ""
    return str(entry.get("id")), entry.get("type") or "", entry.get("parentId"), entry.get("timestamp") or ""


def unparsed_line(entry: Any) -> str | None:
    """The line text of an EntryRecord that has not been parsed yet, else None (dicts, parsed records)."""
    if isinstance(entry, dict):
        return None
    raw = getattr(entry, "unparsed_line", None)
    return raw if isinstance(raw, str) else None


def message_facts(entry: Any) -> tuple[str | None, bool]:
    """(role, is a tool-calls-only assistant turn) of a message entry."""
    if type(entry) is EntryRecord:
        head = entry.message_head  # what the loader saw in the line
        if head is not None and head[2] is not None:
            return head[0], head[2]
        raw = entry.unparsed_line
    else:
        raw = unparsed_line(entry)
    if raw is not None:
        m = _ROLE.search(raw, 0, ROLE_WINDOW)
        if m is not None:
            role = m.group(1)
            if role != "assistant" or _NONBLANK_TEXT.search(raw) is not None:
                return role, False
            # No text: the message-level stopReason follows the content, so the last match is the right one.
            return role, hidden_from_stops(_STOP.findall(raw))
    msg = entry.get("message")
    if not isinstance(msg, dict):
        return None, False
    role = msg.get("role")
    return role, role == "assistant" and is_hidden_assistant(msg)


def transient(entry: Any) -> Any:
    """The entry for a one-off read of many fields: an unparsed record's line is parsed and not kept (the
    record stays unparsed); dicts, parsed records and damaged lines come back as they are."""
    raw = unparsed_line(entry)
    if raw is None:
        return entry
    try:
        obj = json.loads(raw)
    except ValueError:
        return entry
    return obj if isinstance(obj, dict) else entry
