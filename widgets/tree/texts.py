"""What each entry reads as in the tree — its row text, search text and preview — made lazily, per entry.

A 50,000-entry session shows ~40 rows at a time: a row's text is made (and its line parsed) when it is drawn.
Search needs every entry's text once; that pass parses each line for the read only and keeps the lower-cased
string (kept parsed, the dicts would stay in memory and in every later GC pass). A tool result reads as its
call (``[read: ~/a.py:3-4]``), found through the assistant turns above it, read on demand.
"""

from __future__ import annotations

import time
from typing import Any

from .entry_text import DisplayText, ToolCallInfo, display_text, preview_sections, search_text, tool_calls_of
from .peek import transient
from .structure import TreeShape

# How far up a tool result looks for the assistant turn that made its call (results follow their call).
CALL_LOOKUP_DEPTH = 256


class EntryTexts:
    """Row, search and preview text of a :class:`TreeShape`'s entries, with paths shown relative to ``home``."""

    def __init__(self, shape: TreeShape, home: str | None) -> None:
        self.shape = shape
        self.home = home
        # Tool calls by id, filled lazily from the assistant turns above the tool results that get shown.
        self.tool_calls: dict[str, ToolCallInfo] = {}
        self._calls_read: set[int] = set()
        n = len(shape)
        self._shown: list[DisplayText | None] = [None] * n  # made when the row is drawn
        self._search: list[str | None] = [None] * n  # made when searched (or warmed)
        self._warm_at = 0

    def set_home(self, home: str | None) -> None:
        """Paths read differently now: every text is made again when next needed."""
        if home != self.home:
            self.home = home
            n = len(self.shape)
            self._shown = [None] * n
            self._search = [None] * n
            self._warm_at = 0

    def forget_search(self, i: int | None = None) -> None:
        """Entry ``i``'s search text (or every entry's warm-up) is stale, e.g. its label changed."""
        if i is not None:
            self._search[i] = None
        self._warm_at = 0

    def shown(self, i: int) -> DisplayText:
        shown = self._shown[i]
        if shown is None:
            if self.shape.role_of(i) == "toolResult":
                self._find_call(i)
            shown = self._shown[i] = display_text(self.shape.entries[i], self.tool_calls, self.home)
        return shown

    def _find_call(self, i: int) -> None:
        """Read the tool calls of the assistant turns above tool result ``i`` until its call is known."""
        t = self.shape
        msg = t.entries[i].get("message")
        call_id = str(msg.get("toolCallId", "")) if isinstance(msg, dict) else ""
        j = t.parent[i]
        steps = 0
        while call_id not in self.tool_calls and j >= 0 and steps < CALL_LOOKUP_DEPTH:
            if t.role_of(j) == "assistant" and j not in self._calls_read:
                self._calls_read.add(j)
                up = t.entries[j].get("message")
                if isinstance(up, dict):
                    self.tool_calls.update(tool_calls_of(up))
            j = t.parent[j]
            steps += 1

    def cached_search(self, i: int) -> str | None:
        return self._search[i]

    def search(self, i: int, label: str | None) -> str:
        text = self._search[i]
        if text is None:
            t = self.shape
            entry: Any = t.entries[i]
            shown = self._shown[i]
            if shown is None and t.role_of(i) == "toolResult":
                shown = self.shown(i)  # needs its call, found through the turns above
            elif shown is None:
                entry = transient(entry)
                shown = display_text(entry, self.tool_calls, self.home)
            text = self._search[i] = search_text(entry, shown, label)
        return text

    def warm(self, labels: dict[str, str], limit: int | None = None, budget_s: float | None = None) -> bool:
        """Build search text for up to ``limit`` more entries (all when None), stopping once ``budget_s`` of
        CPU time is spent; True once every entry has it."""
        n = len(self.shape)
        ids = self.shape.ids
        end = n if limit is None else min(n, self._warm_at + limit)
        stop = None if budget_s is None else time.process_time() + budget_s
        i = self._warm_at
        while i < end:
            step = min(end, i + 64)
            for k in range(i, step):
                self.search(k, labels.get(ids[k]))
            i = step
            if stop is not None and time.process_time() >= stop:
                break
        self._warm_at = i
        return i >= n

    def preview(self, i: int) -> list[tuple[str, str]]:
        if self.shape.role_of(i) == "toolResult":
            self._find_call(i)
        return preview_sections(self.shape.entries[i], self.tool_calls, self.home)
