"""Where the tree browser's cursor goes: segment jumps, what folds, which filter a key selects.

Pure functions over the visible rows :class:`widgets.tree.model.TreeModel` lays out (node indices in
preorder; ``vparent``/``vchildren`` the visible tree, -1 the virtual root; ``row_of`` node index -> row).
The model owns the state and calls these.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence

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


def clamp(row: int, rows: int) -> int:
    """A row index kept within ``0 .. rows-1`` (up/down stop at the ends)."""
    return max(0, min(row, rows - 1))


def is_foldable(
    i: int, vparent: Mapping[int, int], vchildren: Mapping[int, Sequence[int]], row_of: Mapping[int, int]
) -> bool:
    """Roots and branch segment starts that have visible children."""
    if i not in row_of or not vchildren.get(i):
        return False
    vp = vparent[i]
    return vp < 0 or len(vchildren[vp]) > 1


def segment_start_down(
    selected: int, visible: Sequence[int], vchildren: Mapping[int, Sequence[int]], row_of: Mapping[int, int]
) -> int:
    """The row of the next branch start below the selected row (or the segment's last row)."""
    i = visible[selected]
    while True:
        kids = vchildren.get(i)
        if not kids:
            return row_of[i]
        if len(kids) > 1:
            return row_of[kids[0]]
        i = kids[0]


def segment_start_up(
    selected: int,
    visible: Sequence[int],
    vparent: Mapping[int, int],
    vchildren: Mapping[int, Sequence[int]],
    row_of: Mapping[int, int],
) -> int:
    """The row where the selected row's segment starts (or the previous one when already there)."""
    i = visible[selected]
    while True:
        vp = vparent[i]
        if vp < 0:
            return row_of[i]
        if len(vchildren.get(vp, ())) > 1 and row_of[i] < selected:  # a spine entry without forks: none
            return row_of[i]
        i = vp


def spine_fork_down(selected: int, forks: Sequence[int], end: int) -> int:
    """The next fork point on the spine below the selected row (``forks``: ascending rows), else ``end``."""
    k = bisect_right(forks, selected)
    return forks[k] if k < len(forks) else max(end, selected)


def spine_fork_up(selected: int, forks: Sequence[int]) -> int:
    """The previous fork point on the spine above the selected row, else the first row."""
    k = bisect_left(forks, selected)
    return forks[k - 1] if k > 0 else 0


def follow(selected: int, top: int, height: int, rows: int) -> int:
    """The first row to show so ``selected`` is in a ``height``-row view: unchanged while it is in view; a
    selection that left the view by more than a screen (open, filter, search, jumps) lands a third down."""
    if height <= 0 or rows <= 0:
        return 0
    top = max(0, min(top, max(0, rows - height)))
    if top <= selected < top + height:
        return top
    if top - height <= selected < top:
        return selected
    if top + height <= selected < top + 2 * height:
        return selected - height + 1
    return max(0, min(selected - height // 3, rows - height))


def follow_x(text_start: int, left: int, width: int) -> int:
    """Columns to cut on the left so the selected row's text starts within the first third of ``width``
    (kept while it is still there, so rows don't shift on every move)."""
    third = max(1, width // 3)
    if left <= text_start <= left + third:
        return left
    if text_start <= third:
        return 0
    return text_start - third


def filter_for_key(key: str, current: str) -> str | None:
    """The filter pi's key selects (ctrl+d/t/u/l/a toggle, ctrl+o / ctrl+shift+o cycle); None if not one."""
    if key in ("ctrl+o", "ctrl+shift+o", "shift+ctrl+o"):
        step = 1 if key == "ctrl+o" else -1
        return FILTERS[(FILTERS.index(current) + step) % len(FILTERS)]
    mode = FILTER_KEYS.get(key)
    if mode is None:
        return None
    return "default" if mode == current else mode
