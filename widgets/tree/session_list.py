"""Pure logic of the /resume picker: ages, fork-lineage threading, search (fuzzy terms, "phrases", re:regex)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pi_app.session.store import SessionInfo

SORT_MODES: tuple[str, ...] = ("threaded", "recent", "relevance")
SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}


def format_age(modified: datetime, now: datetime) -> str:
    """pi's compact age: now, 5m, 3h, 2d, 1w, 4mo, 2y."""
    minutes = int((now - modified).total_seconds() // 60)
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h"
    days = hours // 24
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def display_name(info: SessionInfo) -> str:
    text = info.name.strip() if info.name and info.name.strip() else info.first_message
    return re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One row of the /resume picker: a session, and the fork-lineage connectors drawn before it."""

    info: SessionInfo
    prefix: str  # fork-lineage connectors in threaded mode ("", "├─ ", "│  └─ ")


def thread_sessions(sessions: Sequence[SessionInfo]) -> list[SessionRow]:
    """Sessions grouped under the session they were forked from (parentSession); newest first per level."""
    by_path = {s.path: s for s in sessions}
    kids: dict[str | None, list[SessionInfo]] = {}
    for s in sessions:
        parent = (
            s.parent_session_path
            if s.parent_session_path in by_path and s.parent_session_path != s.path
            else None
        )
        kids.setdefault(parent, []).append(s)
    for lst in kids.values():
        lst.sort(key=lambda s: s.modified, reverse=True)
    rows: list[SessionRow] = []
    seen: set[str] = set()
    # (session, gutters of ancestors, is_last, depth)
    stack: list[tuple[SessionInfo, tuple[bool, ...], bool, int]] = [
        (s, (), False, 0) for s in reversed(kids.get(None, []))
    ]
    while stack:
        s, gutters, last, depth = stack.pop()
        if s.path in seen:
            continue
        seen.add(s.path)
        prefix = (
            "" if depth == 0 else "".join("│  " if g else "   " for g in gutters) + ("└─ " if last else "├─ ")
        )
        rows.append(SessionRow(s, prefix))
        children = kids.get(s.path, [])
        child_gutters = gutters + (not last,) if depth > 0 else ()
        for k in range(len(children) - 1, -1, -1):
            stack.append((children[k], child_gutters, k == len(children) - 1, depth + 1))
    # sessions in a parentSession cycle have no root: list them flat at the end
    rows.extend(SessionRow(s, "") for s in sessions if s.path not in seen)
    return rows


@dataclass(frozen=True)
class ParsedQuery:
    """A /resume search parsed: fuzzy terms and quoted phrases, or a ``re:`` regex, or why it is invalid."""

    terms: list[tuple[str, str]]  # ("fuzzy" | "phrase", lower-cased value)
    regex: re.Pattern[str] | None = None
    error: str | None = None


def parse_query(query: str) -> ParsedQuery:
    q = query.strip()
    if q.startswith("re:"):
        pattern = q[3:].strip()
        if not pattern:
            return ParsedQuery([], error="Empty regex")
        try:
            return ParsedQuery([], regex=re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            return ParsedQuery([], error=f"Invalid regex: {exc}")
    if q.count('"') % 2:
        return ParsedQuery([("fuzzy", t.lower()) for t in q.split()])
    terms: list[tuple[str, str]] = []
    for k, part in enumerate(q.split('"')):
        if k % 2:
            if part.strip():
                terms.append(("phrase", " ".join(part.lower().split())))
        else:
            terms.extend(("fuzzy", t.lower()) for t in part.split())
    return ParsedQuery(terms)


def fuzzy_score(needle: str, haystack: str) -> float | None:
    """Lower is better: a substring match scores its position; a subsequence its spread. None: no match."""
    at = haystack.find(needle)
    if at >= 0:
        return at * 0.01
    pos = -1
    first = -1
    for ch in needle:
        pos = haystack.find(ch, pos + 1)
        if pos < 0:
            return None
        if first < 0:
            first = pos
    return 10 + (pos - first - len(needle)) + first * 0.01


def search_text(info: SessionInfo) -> str:
    return f"{info.id} {info.name or ''} {info.first_message} {info.all_messages_text} {info.cwd}"


def match(info: SessionInfo, parsed: ParsedQuery) -> float | None:
    text = search_text(info)
    if parsed.error:
        return None
    if parsed.regex is not None:
        m = parsed.regex.search(text)
        return m.start() * 0.1 if m else None
    lower = text.lower()
    flat = " ".join(lower.split())
    total = 0.0
    for kind, value in parsed.terms:
        if kind == "phrase":
            at = flat.find(value)
            if at < 0:
                return None
            total += at * 0.1
        else:
            score = fuzzy_score(value, lower)
            if score is None:
                return None
            total += score
    return total


def arrange(
    sessions: Sequence[SessionInfo], query: str, sort: str = "threaded", named_only: bool = False
) -> list[SessionRow]:
    """What the picker lists: the name filter, then threaded tree / recent order / relevance for a query."""
    if sort not in SORT_MODES:
        raise ValueError(f"Unknown sort mode {sort!r}; expected one of {', '.join(SORT_MODES)}")
    pool = [s for s in sessions if not named_only or (s.name and s.name.strip())]
    if not query.strip():
        if sort == "threaded":
            return thread_sessions(pool)
        return [SessionRow(s, "") for s in sorted(pool, key=lambda s: s.modified, reverse=True)]
    parsed = parse_query(query)
    scored = [(score, s) for s in pool if (score := match(s, parsed)) is not None]
    if sort == "recent":
        scored.sort(key=lambda p: p[1].modified, reverse=True)
    else:
        scored.sort(key=lambda p: (p[0], -p[1].modified.timestamp()))
    return [SessionRow(s, "") for _, s in scored]
