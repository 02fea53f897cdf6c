"""Where to cut a session path for compaction (pure functions over entry dicts, as stored on disk)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_app.session.compaction.estimate import estimate_context_tokens, estimate_tokens
from pi_app.session.compaction.file_ops import FileOps
from pi_app.session.messages import (
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    iso_to_ms,
    parse_agent_message,
)

Entry = dict[str, Any]
_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})


def message_from_entry(entry: Entry, include_tool_results: bool = True) -> Any | None:
    """The agent message an entry contributes to the context, if any."""
    kind = entry.get("type")
    ts = iso_to_ms(entry.get("timestamp", ""))
    if kind == "message":
        raw = entry.get("message")
        if not isinstance(raw, dict):
            return raw
        if not include_tool_results and raw.get("role") == "toolResult":
            return None
        return parse_agent_message(raw)
    if kind == "custom_message":
        return CustomMessage(
            customType=entry.get("customType", ""),
            content=entry.get("content", ""),
            display=entry.get("display", True),
            details=entry.get("details"),
            timestamp=ts,
        )
    if kind == "branch_summary":
        return BranchSummaryMessage(
            summary=entry.get("summary", ""), fromId=entry.get("fromId", ""), timestamp=ts
        )
    if kind == "compaction":
        return CompactionSummaryMessage(
            summary=entry.get("summary", ""), tokensBefore=entry.get("tokensBefore", 0), timestamp=ts
        )
    return None


def _role(entry: Entry) -> str | None:
    if entry.get("type") != "message":
        return None
    msg = entry.get("message")
    return msg.get("role") if isinstance(msg, dict) else getattr(msg, "role", None)


def _is_cut_point(entry: Entry) -> bool:
    if entry.get("type") in ("branch_summary", "custom_message"):
        return True
    return _role(entry) in _CUT_ROLES


def find_turn_start(entries: list[Entry], index: int, start: int) -> int:
    for i in range(index, start - 1, -1):
        e = entries[i]
        if e.get("type") in ("branch_summary", "custom_message") or _role(e) in _TURN_START_ROLES:
            return i
    return -1


@dataclass
class CutPoint:
    """Where a compaction cuts the path: the first entry kept, and where the turn it splits began (if any)."""

    first_kept_index: int
    turn_start_index: int  # -1 unless the cut splits a turn
    is_split_turn: bool


def find_cut_point(entries: list[Entry], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """Keep roughly ``keep_recent_tokens`` of the newest messages; never cut at a tool result."""
    cut_points = [i for i in range(start, end) if _is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]
    total = 0
    for i in range(end - 1, start - 1, -1):
        if entries[i].get("type") != "message":
            continue
        msg = message_from_entry(entries[i])
        total += estimate_tokens(msg) if msg is not None else 0
        if total >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    # Keep settings changes and the like that sit right before the cut together with it.
    while cut > start:
        prev = entries[cut - 1]
        if prev.get("type") in ("compaction", "message"):
            break
        cut -= 1
    # Judge the split by the first message kept: settings entries pulled in above do not start a turn.
    first_msg = next((i for i in range(cut, end) if entries[i].get("type") == "message"), cut)
    is_user = _role(entries[first_msg]) == "user"
    turn_start = -1 if is_user else find_turn_start(entries, cut, start)
    return CutPoint(cut, turn_start, (not is_user) and turn_start != -1)


@dataclass
class CompactionPreparation:
    """A planned compaction: the messages to summarise, the first entry kept, and a split turn's prefix."""

    first_kept_entry_id: str
    messages_to_summarize: list[Any]
    turn_prefix_messages: list[Any]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOps = field(default_factory=FileOps)


def prepare_compaction(path: list[Entry], keep_recent_tokens: int) -> CompactionPreparation | None:
    """Plan a compaction of the active path; None when there is nothing to do."""
    if not path or path[-1].get("type") == "compaction":
        return None
    prev = next((i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), -1)
    start = prev + 1
    usage_msgs = [m for m in (message_from_entry(e) for e in path[max(prev, 0) :]) if m is not None]
    tokens_before = estimate_context_tokens(usage_msgs).tokens
    cp = find_cut_point(path, start, len(path), keep_recent_tokens)
    return _prepare_at(path, prev, start, cp, tokens_before)


def worth_summarizing(prep: CompactionPreparation) -> bool:
    """Something besides tool-set system messages to summarise, or a previous summary whose kept messages
    a new compaction drops."""
    return any(
        getattr(m, "role", None) != "system" or prep.previous_summary is not None
        for m in (*prep.messages_to_summarize, *prep.turn_prefix_messages)
    )


def prepare_manual_compaction(path: list[Entry], keep_recent_tokens: int) -> CompactionPreparation | None:
    """A compaction the user asked for: as :func:`prepare_compaction`, but when everything fits within
    ``keep_recent_tokens`` it summarises everything before the last exchange (the last user message and what
    followed it) and keeps that exchange. None when there is nothing before it to summarise."""
    prep = prepare_compaction(path, keep_recent_tokens)
    if prep is not None and worth_summarizing(prep):
        return prep
    if not path or path[-1].get("type") == "compaction":
        return None
    prev = next((i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), -1)
    start = prev + 1
    last_user = next((i for i in range(len(path) - 1, start - 1, -1) if _role(path[i]) == "user"), -1)
    if last_user <= start:
        return None
    cut = last_user
    while cut > start and path[cut - 1].get("type") not in ("compaction", "message"):
        cut -= 1  # settings changes right before the exchange stay with it, as at an automatic cut
    usage_msgs = [m for m in (message_from_entry(e) for e in path[max(prev, 0) :]) if m is not None]
    tokens_before = estimate_context_tokens(usage_msgs).tokens
    manual = _prepare_at(path, prev, start, CutPoint(cut, -1, False), tokens_before)
    return manual if manual is not None and worth_summarizing(manual) else None


def _prepare_at(
    path: list[Entry], prev: int, start: int, cp: CutPoint, tokens_before: int
) -> CompactionPreparation | None:
    first_kept = path[cp.first_kept_index] if cp.first_kept_index < len(path) else None
    if first_kept is None or not first_kept.get("id"):
        return None
    history_end = cp.turn_start_index if cp.is_split_turn else cp.first_kept_index
    to_summarize = [m for m in (message_from_entry(e) for e in path[start:history_end]) if m is not None]
    prefix: list[Any] = []
    if cp.is_split_turn:
        prefix = [
            m for m in (message_from_entry(e) for e in path[cp.turn_start_index : cp.first_kept_index]) if m
        ]
    ops = FileOps()
    previous_summary = None
    if prev >= 0:
        previous_summary = path[prev].get("summary")
        if not path[prev].get("fromHook"):
            ops.add_from_details(path[prev].get("details"))
    for m in to_summarize + prefix:
        ops.add_from_message(m)
    return CompactionPreparation(
        first_kept_entry_id=first_kept["id"],
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cp.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=ops,
    )


@dataclass
class BranchPreparation:
    """An abandoned branch's messages chosen for its summary, the files they touched, and their tokens."""

    messages: list[Any]
    file_ops: FileOps
    total_tokens: int


def prepare_branch_entries(entries: list[Entry], token_budget: int = 0) -> BranchPreparation:
    """Newest-first selection of the abandoned branch's messages that fits ``token_budget``."""
    ops = FileOps()
    for e in entries:
        if e.get("type") == "branch_summary" and not e.get("fromHook"):
            ops.add_from_details(e.get("details"))
    selected: list[Any] = []
    total = 0
    for e in reversed(entries):
        msg = message_from_entry(e, include_tool_results=False)
        if msg is None:
            continue
        ops.add_from_message(msg)
        tokens = estimate_tokens(msg)
        if token_budget > 0 and total + tokens > token_budget:
            # A summary that does not fit is still worth having while we are well under budget.
            if e.get("type") in ("compaction", "branch_summary") and total < token_budget * 0.9:
                selected.insert(0, msg)
                total += tokens
            break
        selected.insert(0, msg)
        total += tokens
    return BranchPreparation(selected, ops, total)
