"""Session statistics and context usage (pi's ``getSessionStats`` / ``getContextUsage``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_app.session.compaction.estimate import context_tokens_from_usage, estimate_context_tokens
from pi_app.session.messages import iso_to_ms


@dataclass
class TokenStats:
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
    tokens: int | None  # None right after a compaction, until the next response reports usage
    context_window: int
    percent: float | None

    def as_tuple(self) -> tuple[int | None, int, float | None]:
        return (self.tokens, self.context_window, self.percent)

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "contextWindow": self.context_window, "percent": self.percent}


@dataclass
class SessionStats:
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


def context_tokens(messages: list[Any], is_stale: Callable[[Any], bool]) -> int | None:
    """Tokens the next request will carry, or None when only pre-compaction usage is known.

    Usage reported before the latest compaction describes the old, larger context, so it is not trusted.
    """
    est = estimate_context_tokens(messages)
    idx = est.last_usage_index
    if idx is not None and is_stale(messages[idx]):
        return None
    return est.tokens


def compute_context_usage(
    messages: list[Any], context_window: int, is_stale: Callable[[Any], bool]
) -> ContextUsage | None:
    if context_window <= 0:
        return None
    tokens = context_tokens(messages, is_stale)
    if tokens is None:
        return ContextUsage(None, context_window, None)
    return ContextUsage(tokens, context_window, tokens / context_window * 100)


def last_usage_tokens(message: Any) -> int:
    return context_tokens_from_usage(message.usage) if _is_trusted_assistant(message) else 0
