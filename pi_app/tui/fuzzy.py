"""Fuzzy matching for selectors: every space-separated token must occur in order (as a subsequence)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def token_score(token: str, text: str) -> int | None:
    """Lower is better; None when ``token`` is not a subsequence of ``text``."""
    if not token:
        return 0
    found = text.find(token)
    if found >= 0:
        return found  # contiguous matches win, earlier ones first
    pos, gaps, last = 0, 0, -1
    for ch in token:
        idx = text.find(ch, pos)
        if idx < 0:
            return None
        if last >= 0:
            gaps += idx - last - 1
        last, pos = idx, idx + 1
    return 1000 + gaps


def fuzzy_filter(items: Sequence[T], query: str, key: Callable[[T], str]) -> list[T]:
    tokens = query.lower().split()
    if not tokens:
        return list(items)
    scored: list[tuple[int, int, T]] = []
    for order, item in enumerate(items):
        text = key(item).lower()
        total = 0
        for token in tokens:
            score = token_score(token, text)
            if score is None:
                break
            total += score
        else:
            scored.append((total, order, item))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [item for _, _, item in scored]
