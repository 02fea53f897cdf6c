"""Large pastes collapse to ``[paste #N +L lines]`` / ``[paste #N C chars]`` markers, expanded on submit."""

from __future__ import annotations

import re

MAX_LINES = 10
MAX_CHARS = 1000
_MARKER = re.compile(r"\[paste #(\d+)(?: \+\d+ lines| \d+ chars)\]")


def is_large_paste(text: str) -> bool:
    return text.count("\n") + 1 > MAX_LINES or len(text) > MAX_CHARS


class PasteStore:
    def __init__(self) -> None:
        self._pastes: dict[int, str] = {}
        self._counter = 0

    def add(self, text: str) -> str:
        """Store ``text`` and return its marker."""
        self._counter += 1
        self._pastes[self._counter] = text
        lines = text.count("\n") + 1
        if lines > MAX_LINES:
            return f"[paste #{self._counter} +{lines} lines]"
        return f"[paste #{self._counter} {len(text)} chars]"

    def expand(self, text: str) -> str:
        """Replace every known marker with its paste; unknown markers stay as typed."""

        def sub(match: re.Match[str]) -> str:
            return self._pastes.get(int(match.group(1)), match.group(0))

        return _MARKER.sub(sub, text)

    def clear(self) -> None:
        self._pastes.clear()
