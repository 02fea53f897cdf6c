"""Session statistics and context usage (pi's ``getSessionStats`` / ``getContextUsage``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.session.compaction.estimate import context_tokens_from_usage, estimate_context_tokens
from pi_app.session.messages import iso_to_ms


@dataclass
class TokenStats:
    """Token totals by kind: input, output, cache read and cache write."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def to_json(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "total": self.total,
        }


@dataclass
class ContextUsage:
    """How full the context window is: the tokens the next request carries, the window, and the percentage."""

    tokens: int | None  # None right after a compaction, until the next response reports usage
    context_window: int
    percent: float | None

    def as_tuple(self) -> tuple[int | None, int, float | None]:
        return (self.tokens, self.context_window, self.percent)

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "contextWindow": self.context_window, "percent": self.percent}


@dataclass
class SessionStats:
    """pi's session statistics: message and tool-call counts, token totals, cost and context usage."""

    session_file: str | None
    session_id: str
    user_messages: int = 0
    assistant_messages: int = 0
    tool_calls: int = 0
    tool_results: int = 0
    total_messages: int = 0
    tokens: TokenStats = field(default_factory=TokenStats)
    cost: float = 0.0
    context_usage: ContextUsage | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sessionFile": self.session_file,
            "sessionId": self.session_id,
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": self.tokens.to_json(),
            "cost": self.cost,
        }
        if self.context_usage is not None:
            out["contextUsage"] = self.context_usage.to_json()
        return out


# Entries whose ``usage`` is model work that is no message (pi 1.6): counted in totals, never context.
_USAGE_ENTRY_TYPES = frozenset({"usage", "compaction", "branch_summary"})


def entry_usages(entries: Iterable[Any]) -> list[dict[str, Any]]:
    """The ``usage`` objects of usage entries (any ``kind``) and of summary entries, in file order.

    Only those entries are read: the type of the others comes from the line prefix, unparsed.
    """
    out: list[dict[str, Any]] = []
    for e in entries:
        kind = getattr(e, "type", None) if not isinstance(e, dict) else e.get("type")
        if kind in _USAGE_ENTRY_TYPES:
            usage = e.get("usage")
            if isinstance(usage, dict):
                out.append(usage)
    return out


def _num(value: Any) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def compute_stats(
    messages: list[Any],
    session_file: str | None,
    session_id: str,
    extra_usage: Iterable[dict[str, Any]] = (),
) -> SessionStats:
    """Counts over ``messages``; tokens and cost also include ``extra_usage`` (see :func:`entry_usages`)."""
    stats = SessionStats(session_file, session_id, total_messages=len(messages))
    for usage in extra_usage:
        stats.tokens.input += int(_num(usage.get("input")))
        stats.tokens.output += int(_num(usage.get("output")))
        stats.tokens.cache_read += int(_num(usage.get("cacheRead")))
        stats.tokens.cache_write += int(_num(usage.get("cacheWrite")))
        cost = usage.get("cost")
        if isinstance(cost, dict):
            stats.cost += _num(cost.get("total"))
    for m in messages:
        role = getattr(m, "role", None)
        if role == "user":
            stats.user_messages += 1
        elif role == "toolResult":
            stats.tool_results += 1
        elif role == "assistant":
            stats.assistant_messages += 1
            stats.tool_calls += sum(1 for c in m.content if c.type == "toolCall")
            u = m.usage
            stats.tokens.input += u.input
            stats.tokens.output += u.output
            stats.tokens.cache_read += u.cacheRead
            stats.tokens.cache_write += u.cacheWrite
            stats.cost += u.cost.total
    return stats


def _is_trusted_assistant(message: Any) -> bool:
    return getattr(message, "role", None) == "assistant" and message.stopReason not in ("aborted", "error")


def stale_before(compaction_timestamp: str | None) -> Callable[[Any], bool]:
    """Predicate: was ``message`` written before the compaction with this timestamp?"""
    if compaction_timestamp is None:
        return lambda m: False
    cutoff = iso_to_ms(compaction_timestamp)
    return lambda m: m.timestamp <= cutoff


def context_tokens(messages: Sequence[Any], is_stale: Callable[[Any], bool]) -> int | None:
    """Tokens the next request will carry, or None when only pre-compaction usage is known.

    Usage reported before the latest compaction describes the old, larger context, so it is not trusted.
    """
    est = estimate_context_tokens(messages)
    idx = est.last_usage_index
    if idx is not None and is_stale(messages[idx]):
        return None
    return est.tokens


def compute_context_usage(
    messages: Sequence[Any], context_window: int, is_stale: Callable[[Any], bool]
) -> ContextUsage | None:
    if context_window <= 0:
        return None
    tokens = context_tokens(messages, is_stale)
    if tokens is None:
        return ContextUsage(None, context_window, None)
    return ContextUsage(tokens, context_window, tokens / context_window * 100)


def last_usage_tokens(message: Any) -> int:
    return context_tokens_from_usage(message.usage) if _is_trusted_assistant(message) else 0


def _usage_numbers(usage: Any) -> tuple[int, int, int, int, float] | None:
    """(input, output, cacheRead, cacheWrite, cost total) of a usage dict or model; None if it is neither."""
    if isinstance(usage, dict):
        cost = usage.get("cost")
        total = _num(cost.get("total")) if isinstance(cost, dict) else 0
        return (
            int(_num(usage.get("input"))),
            int(_num(usage.get("output"))),
            int(_num(usage.get("cacheRead"))),
            int(_num(usage.get("cacheWrite"))),
            float(total),
        )
    if usage is None or not hasattr(usage, "input"):
        return None
    cost = getattr(usage, "cost", None)
    return (
        int(_num(usage.input)),
        int(_num(getattr(usage, "output", 0))),
        int(_num(getattr(usage, "cacheRead", 0))),
        int(_num(getattr(usage, "cacheWrite", 0))),
        float(_num(getattr(cost, "total", 0))),
    )


_ASSISTANT_PREFIX = re.compile(rb'"message"\s*:\s*\{\s*"role"\s*:\s*"assistant"')
# pi's usage object as JSON.stringify writes it: the four counts first, cost (with its total) inside.
_USAGE_FIELDS = re.compile(
    rb'"usage":\{"input":(\d+),"output":(\d+),"cacheRead":(\d+),"cacheWrite":(\d+),[^{}]*'
    rb'"cost":\{[^{}]*"total":(-?[0-9.eE+-]+)[^{}]*\}'
)


def _fast_usage(line: bytes) -> tuple[int, int, int, int, float] | None:
    """The usage numbers of a line written as pi writes assistant messages (``"message":{"role":"assistant"``
    first, the compact usage object after the content), read without decoding the line; None when the line
    is not in that shape (the caller parses it then)."""
    at = line.rfind(b'"usage":{')
    if at < 0 or not _ASSISTANT_PREFIX.search(line, 0, 200):
        return None
    m = _USAGE_FIELDS.match(line, at)
    if m is None:
        return None
    try:
        return int(m[1]), int(m[2]), int(m[3]), int(m[4]), float(m[5])
    except ValueError:
        return None


def _message_numbers(entry: Any) -> tuple[int, int, int, int, float] | None:
    """The usage numbers of an assistant message entry, else None. An unparsed line is read in place when it
    has pi's shape, else parsed for this read only (the session keeps its typed messages elsewhere)."""
    head = getattr(entry, "message_head", None)  # a stored record's role, known without reading its line
    if head is not None and head[0] != "assistant":
        return None
    unparsed = getattr(entry, "unparsed_bytes", None)  # a stored record (not a dict made in this process)
    line = unparsed() if unparsed is not None else None
    if line is not None:
        if b'"usage":' not in line or b'"assistant"' not in line:
            return None
        fast = _fast_usage(line)
        if fast is not None:
            return fast
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        message = obj.get("message") if isinstance(obj, dict) else None
    else:
        message = entry.get("message")
    if isinstance(message, dict):
        return _usage_numbers(message.get("usage")) if message.get("role") == "assistant" else None
    if getattr(message, "role", None) == "assistant":
        return _usage_numbers(getattr(message, "usage", None))
    return None


class FileUsageTotals:
    """Token and cost totals over a whole session file, as pi's footer sums them: every assistant message
    (all branches, compacted ones too) and every usage-carrying entry. Files are append-only, so each
    update reads only the entries added since the last one; another file (or a shorter one) starts over."""

    def __init__(self) -> None:
        self._key: tuple[str | None, str] | None = None
        self._count = 0
        self.tokens = TokenStats()
        self.cost = 0.0

    def update(self, session_file: str | None, session_id: str, entries: list[Any]) -> FileUsageTotals:
        key = (session_file, session_id)
        if key != self._key or len(entries) < self._count:
            self._key, self._count, self.tokens, self.cost = key, 0, TokenStats(), 0.0
        for entry in entries[self._count :]:
            kind = entry.get("type") if isinstance(entry, dict) else getattr(entry, "type", None)
            if kind == "message":
                numbers = _message_numbers(entry)
            elif kind in _USAGE_ENTRY_TYPES:
                numbers = _usage_numbers(entry.get("usage"))
            else:
                continue
            if numbers is not None:
                self.tokens.input += numbers[0]
                self.tokens.output += numbers[1]
                self.tokens.cache_read += numbers[2]
                self.tokens.cache_write += numbers[3]
                self.cost += numbers[4]
        self._count = len(entries)
        return self
