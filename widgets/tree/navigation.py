"""Cursor movement, folding, segment jumps, filters, search and labels of the tree browser model.

Split from :mod:`widgets.tree.model` (the build, layout and reading side); :class:`TreeModel` mixes it in.
"""

from __future__ import annotations

from collections.abc import Iterable

FILTERS: tuple[str, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: dict[str, str] = {
    "default": "",
    "no-tools": "[no-tools]",
    "user-only": "[user]",
    "labeled-only": "[labeled]",
    "all": "[all]",
}
# pi's direct filter keys: ctrl+d sets default, the others toggle between their mode and default.
FILTER_KEYS: dict[str, str] = {
    "ctrl+d": "default",
    "ctrl+t": "no-tools",
    "ctrl+u": "user-only",
    "ctrl+l": "labeled-only",
    "ctrl+a": "all",
}


class TreeNavigationMixin:
    """Expects the attributes and helpers TreeModel defines (rows, selection, filter state, _refresh)."""

    # ------------------------------------------------------------------ moving
    def _set(self, row: int) -> None:
        if self._visible:
            self.selected = max(0, min(row, len(self._visible) - 1))
            self._remember()

    def move(self, delta: int) -> None:
        """Up/down with wrap-around."""
        if self._visible:
            self.selected = (self.selected + delta) % len(self._visible)
            self._remember()

    def page(self, pages: int) -> None:
        """Left/right: a page up/down, stopping at the ends."""
        self._set(self.selected + pages * self.page_size)

    def first(self) -> None:
        self._set(0)

    def last(self) -> None:
        self._set(len(self._visible) - 1)

    def select(self, entry_id: str) -> None:
        self._last_selected = entry_id
        self.selected = self._nearest_row(entry_id)
        self._remember()

    # ------------------------------------------------------------------ folding and segments
    def is_foldable(self, entry_id: str) -> bool:
        """Roots and branch segment starts that have visible children."""
        i = self._index.get(entry_id)
        if i is None or i not in self._row_of or not self._vchildren.get(i):
            return False
        vp = self._vparent[i]
        return vp < 0 or len(self._vchildren[vp]) > 1

    def fold_or_up(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        if self.is_foldable(sid) and sid not in self.folded:
            self.folded.add(sid)
            self._refresh()
        else:
            self._set(self._segment_start_up())

    def unfold_or_down(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        if sid in self.folded:
            self.folded.discard(sid)
            self._refresh()
        else:
            self._set(self._segment_start_down())

    def _segment_start_down(self) -> int:
        i = self._visible[self.selected]
        while True:
            kids = self._vchildren.get(i)
            if not kids:
                return self._row_of[i]
            if len(kids) > 1:
                return self._row_of[kids[0]]
            i = kids[0]

    def _segment_start_up(self) -> int:
        i = self._visible[self.selected]
        while True:
            vp = self._vparent[i]
            if vp < 0:
                return self._row_of[i]
            if len(self._vchildren[vp]) > 1 and self._row_of[i] < self.selected:
                return self._row_of[i]
            i = vp

    # ------------------------------------------------------------------ filter, search, labels
    def set_filter(self, mode: str) -> None:
        if mode not in FILTERS:
            raise ValueError(f"Unknown tree filter {mode!r}; expected one of {', '.join(FILTERS)}")
        self.filter_mode = mode
        self.folded.clear()
        self._refresh()

    def filter_key(self, key: str) -> bool:
        """Apply pi's filter key (ctrl+d/t/u/l/a toggles, ctrl+o / ctrl+shift+o cycles). False if not one."""
        if key in ("ctrl+o", "ctrl+shift+o", "shift+ctrl+o"):
            step = 1 if key == "ctrl+o" else -1
            self.set_filter(FILTERS[(FILTERS.index(self.filter_mode) + step) % len(FILTERS)])
            return True
        mode = FILTER_KEYS.get(key)
        if mode is None:
            return False
        self.set_filter("default" if mode == self.filter_mode else mode)
        return True

    def set_query(self, query: str) -> None:
        if query != self.query:
            self.query = query
            self.folded.clear()
            self._refresh()

    def type_text(self, text: str) -> None:
        self.set_query(self.query + text)

    def backspace(self) -> None:
        if self.query:
            self.set_query(self.query[:-1])

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Set (or with None/"" clear) a label as shown; the caller persists it."""
        idx = self._index.get(entry_id)
        if idx is None:
            raise KeyError(f"Entry {entry_id} not found")
        label = (label or "").strip() or None
        if label is None:
            self.labels.pop(entry_id, None)
        else:
            self.labels[entry_id] = label
        self._nodes[idx]._search = None
        self._passes_cache.pop("labeled-only", None)
        self._refresh()

    def entry_ids(self) -> Iterable[str]:
        return (n.id for n in self._nodes)
