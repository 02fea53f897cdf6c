"""The session tree as a flat, filterable list of rows (no Textual): what /tree shows and how keys move in it.

Layout: depth-first, children oldest first. A row is indented only where the visible tree forks — a chain of
single children stays at one level, so a 10,000-entry conversation is one column, not a staircase. Fork
children get ``├─``/``└─`` connectors and ``│`` gutters continue while later siblings follow. Everything is
iterative (sessions can be tens of thousands of entries deep).

Deep trees (forks nested more than INDENT_CAP levels, e.g. a user who went back and branched every 50 entries)
switch to the spine layout: the active path is drawn at indent 0 whatever its depth, and each side branch
hangs off its fork point as one folded stub (``└⊞ 48 entries · user: …``), listed right after the fork and
unfolded in place. Inside an unfolded side branch indentation is capped at INDENT_CAP levels; deeper rows
show their real level as a marker (``12› ``) in place of the gutters cut off. Ctrl+←/→ on the spine jump
between its fork points. While searching, side branches are open (matches must show) but still capped.

Filters (pi): default hides settings/bookkeeping entries; no-tools also hides tool results; user-only shows
user messages; labeled-only shows labeled entries; all shows everything. Assistant turns made only of tool
calls are hidden except in "all" (their calls appear on the tool-result rows) — the active leaf always shows.
Search is space-separated, case-insensitive terms that must all match. Searching, changing the filter or the
labels resets folds, and the selection stays on the same entry or its nearest visible ancestor.

This module holds the state (selection, filter, search, folds) and the visible tree; the tree's shape is
``structure.TreeShape``, entry texts ``texts.EntryTexts``, the row layouts ``layout``, key targets ``navigation``.
A deep tree opens lazily: folded side branches are not entered (nor their lines read) until unfolded, and the
spine is laid out in bulk straight from the active path (``spine_pass``; the general visible pass, which
handles every state, is what it must match).
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import or_
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len

from pi_app.session.store.record import bulk, collect_before_settling, settle_heap

from .entry_text import (
    DisplayText,
    ToolCallInfo,
    full_text,
)
from .layout import Work, classic_depth, classic_prefixes, walk_spine
from .navigation import (
    FILTER_KEYS,
    FILTER_TAGS,
    FILTERS,
    clamp,
    filter_for_key,
    is_foldable,
    segment_start_down,
    segment_start_up,
    spine_fork_down,
    spine_fork_up,
)
from .peek import tree_fields
from .rows import (
    ACTIVE_MARK,
    FOLDABLE,
    FOLDED,
    INDENT_CAP,
    PATH_MARK,
    Row,
    shifted_prefix,
    split_prefix,
)
from .spine_pass import find_hangers, lay_out
from .structure import TreeShape, positions
from .texts import EntryTexts

if TYPE_CHECKING:
    from pi_app.session.store import SessionManager

__all__ = [
    "ACTIVE_MARK",
    "FILTERS",
    "FILTER_KEYS",
    "FILTER_TAGS",
    "INDENT_CAP",
    "PATH_MARK",
    "Row",
    "TreeModel",
    "shifted_prefix",
    "split_prefix",
]


# Entries from which a built model is moved out of the cyclic GC's reach (see settle_heap): its lists (one per
# spine entry) would otherwise be walked by the first collections after the build, ~60 ms at 50,000 entries,
# paid in the browser's first frame.
SETTLE_AT = 5_000

# Built models per session object (weakly held), with the state they were built from.
_MODEL_CACHE: weakref.WeakKeyDictionary[SessionManager, tuple[tuple[Any, ...], TreeModel]] = (
    weakref.WeakKeyDictionary()
)


def _session_key(session: SessionManager) -> tuple[Any, ...]:
    entries = session.raw_entries()
    last = tree_fields(entries[-1])[0] if entries else None
    return (session.session_file, session.session_id, len(entries), last)


class TreeModel:
    """The flattened tree plus selection, filter, search and fold state."""

    def __init__(
        self,
        entries: Sequence[Any],
        leaf_id: str | None,
        labels: Mapping[str, str] | None = None,
        *,
        home: str | None = None,
        filter_mode: str = "default",
        selected_id: str | None = None,
        page_size: int = 10,
    ) -> None:
        if filter_mode not in FILTERS:
            raise ValueError(f"Unknown tree filter {filter_mode!r}; expected one of {', '.join(FILTERS)}")
        self.home = home
        self.leaf_id = leaf_id
        self.labels: dict[str, str] = dict(labels or {})
        self.filter_mode = filter_mode
        self.query = ""
        self.folded: set[str] = set()
        # Side branches opened by the user in the spine layout (they start folded there).
        self.unfolded: set[str] = set()
        self.page_size = max(1, page_size)
        # filter verdicts per mode, filled as entries are looked at: 0 not yet, 1 hidden, 2 shown
        self._passes_cache: dict[str, bytearray] = {}
        self.entry_count = len(entries)
        # No cyclic GC while the tree's lists and dicts are made; a big model then leaves its reach at once
        # (settle_heap inside: re-enabled first, the collector would walk everything just made, for nothing).
        big = self.entry_count >= SETTLE_AT
        if big:
            collect_before_settling()  # a closed browser's widgets would be frozen for good by settle_heap
        with bulk():
            self._build(entries, home, selected_id)
            if big:
                settle_heap()

    def _build(self, entries: Sequence[Any], home: str | None, selected_id: str | None) -> None:
        self._t = TreeShape(entries)
        self._index = self._t.index
        self._texts = EntryTexts(self._t, home)
        self._spine: list[int] = []  # the active path as a list, root → leaf
        self._path: set[int] = set()
        self._set_path()
        self._anchor = self._active_anchor()
        # per-refresh state
        self._visible: list[int] = []
        self._prefix: list[str] = []
        self._row_of: dict[int, int] = {}
        self._vparent: dict[int, int] = {}
        self._vchildren: dict[int, list[int]] = {}
        # side branches the lazy pass did not enter -> whether they have visible entries under their first
        self._stub_kids: dict[int, bool] = {}
        self._prefix_cache: dict[tuple[int, tuple[bool, ...], str], str] = {}  # spine layout prefixes
        # the rows' own tree (what navigation walks): equals the visible tree in the classic layout; in the
        # spine layout side branches come before the spine child and folded stubs have no children
        self._rparent: dict[int, int] = {}
        self._rchildren: dict[int, list[int]] = {}
        self.spine = False  # the spine layout is in use
        self._spine_forks: list[int] = []  # rows of fork points on the spine, ascending
        self._side_roots: set[int] = set()
        self._laid_out: tuple[Any, ...] = ()  # the _rows_key() the rows were laid out for
        # (layout generation, first row that changed in it, first row after the change, rows added (or removed,
        # negative)): lets the list keep the drawn rows around a splice; (gen, 0, -1, 0) when everything changed
        self.layout_change: tuple[int, int, int, int] = (0, 0, -1, 0)
        self._active_row_node = -1
        self.selected = 0
        self._last_selected: str | None = selected_id if selected_id is not None else self.leaf_id
        self._reveal(selected_id)
        self._refresh()

    def _set_path(self) -> None:
        """The active path (the spine of a deep tree) for the current leaf; its entries' depths are known."""
        leaf = self._index.get(self.leaf_id) if self.leaf_id else None
        self._spine = self._path_indices(leaf)
        self._path = set(self._spine)
        self._t.know_depths(self._spine)

    @classmethod
    def from_session(cls, session: SessionManager, **kwargs: Any) -> TreeModel:
        """From a SessionManager: every entry of the file, its leaf and labels."""
        return cls(session.raw_entries(), session.leaf_id, session.labels(), **kwargs)

    @classmethod
    def for_session(cls, session: SessionManager, **kwargs: Any) -> TreeModel:
        """Like :meth:`from_session`, but built once per session state: while the session has the same file
        and entries, re-opening reuses the model (fresh leaf, labels, filter, search and folds)."""
        key = _session_key(session)
        cached = _MODEL_CACHE.get(session)
        if cached is not None and cached[0] == key:
            model = cached[1]
            model.reset(session.leaf_id, session.labels(), **kwargs)
            return model
        model = cls.from_session(session, **kwargs)
        try:
            _MODEL_CACHE[session] = (key, model)
        except TypeError:  # not weak-referenceable: just don't cache
            pass
        return model

    def reset(
        self,
        leaf_id: str | None,
        labels: Mapping[str, str] | None = None,
        *,
        home: str | None = None,
        filter_mode: str = "default",
        selected_id: str | None = None,
        page_size: int = 10,
    ) -> None:
        """Back to a freshly opened state for the same entries (the leaf and labels may have moved)."""
        if filter_mode not in FILTERS:
            raise ValueError(f"Unknown tree filter {filter_mode!r}; expected one of {', '.join(FILTERS)}")
        self._texts.set_home(home)
        new_labels = dict(labels or {})
        if new_labels != self.labels:
            for eid in set(new_labels.items()) ^ set(self.labels.items()):
                idx = self._index.get(eid[0])
                if idx is not None:
                    self._texts.forget_search(idx)
            self._passes_cache.pop("labeled-only", None)
            self._texts.forget_search()
        home_changed = home != self.home
        self.home = home
        self.labels = new_labels
        if leaf_id != self.leaf_id:
            self._passes_cache.clear()  # "hidden unless it is the leaf" depends on the leaf
            self.leaf_id = leaf_id
            self._set_path()
        self.leaf_id = leaf_id
        self.filter_mode = filter_mode
        self.query = ""
        self.folded.clear()
        self.unfolded.clear()
        self.page_size = max(1, page_size)
        self._anchor = self._active_anchor()
        self._last_selected = selected_id if selected_id is not None else leaf_id
        self._reveal(selected_id)
        if self._rows_key() == self._laid_out and not home_changed:
            # re-opening unchanged: the rows are already laid out for this state
            self.selected = self._nearest_row(self._last_selected)
            self._remember()
            return
        self._refresh()

    def _rows_key(self) -> tuple[Any, ...]:
        """Everything the rows depend on (besides the entries, fixed per model)."""
        labels = tuple(sorted(self.labels.items())) if self.filter_mode == "labeled-only" else ()
        return (
            self.leaf_id,
            self.filter_mode,
            self.query,
            frozenset(self.folded),
            frozenset(self.unfolded),
            labels,
        )

    # ------------------------------------------------------------------ building
    def _active_anchor(self) -> int:
        """Where ``← active`` goes when the leaf row is filtered out: the leaf's nearest ancestor that is
        conversation (a leaf that is a label or model change sits, for the reader, on the message before it)."""
        i = self._index.get(self.leaf_id) if self.leaf_id else None
        t = self._t
        while i is not None and i >= 0:
            t.read_facts(i)
            if not (t.settings[i] or t.hidden[i]):
                return i
            i = t.parent[i]
        return -1

    def _path_indices(self, idx: int | None) -> list[int]:
        return self._t.path(idx)

    # ------------------------------------------------------------------ per-node text (lazy)
    @property
    def tool_calls(self) -> dict[str, ToolCallInfo]:
        return self._texts.tool_calls

    def _shown(self, i: int) -> DisplayText:
        return self._texts.shown(i)

    def _search(self, i: int) -> str:
        return self._texts.search(i, self.labels.get(self._t.ids[i]))

    def warm_search(self, limit: int | None = None, budget_s: float | None = None) -> bool:
        """Build search text for up to ``limit`` more entries (all when None), stopping once ``budget_s`` of
        CPU time is spent; True once every entry has it. The screen calls this in short slices while the user
        reads, so the first keystroke finds it ready and a key pressed meanwhile waits for one slice at most."""
        return self._texts.warm(self.labels, limit, budget_s)

    # ------------------------------------------------------------------ filtering and layout
    def _passes(self, i: int) -> bool:
        t = self._t
        t.read_facts(i)
        mode = self.filter_mode
        if t.hidden[i] and mode != "all" and t.ids[i] != self.leaf_id:
            return False
        if mode == "default":
            return not t.settings[i]
        if mode == "no-tools":
            return not t.settings[i] and t.role[i] != "toolResult"
        if mode == "user-only":
            return t.role[i] == "user"
        if mode == "labeled-only":
            return t.ids[i] in self.labels
        return True

    def _verdicts(self) -> bytearray:
        """The filter verdicts of the current mode, kept per filter (changing filters back and forth is then
        cheap): 0 not looked at yet, 1 hidden, 2 shown."""
        mode = self.filter_mode
        out = self._passes_cache.get(mode)
        if out is None:
            out = self._passes_cache[mode] = bytearray(len(self._t))
        return out

    def _judge(self, idxs: list[int]) -> bytearray:
        """Filter verdicts of many entries at once (a deep tree's spine): facts read in one loop. Returns the
        verdicts of the current mode."""
        verdict = self._verdicts()
        todo = idxs if not any(verdict) else [i for i in idxs if not verdict[i]]
        t = self._t
        t.read_facts_of(todo)
        if self.filter_mode == "default":  # what _passes decides, without a call per entry
            hidden, settings, ids, leaf = t.hidden, t.settings, t.ids, self.leaf_id
            any(map(verdict.__setitem__, todo, repeat(2)))  # shown, but for the few flagged below
            if True in settings or True in hidden:
                flagged = map(or_, map(settings.__getitem__, todo), map(hidden.__getitem__, todo))
                for i in compress(todo, flagged):
                    verdict[i] = 1 if settings[i] or ids[i] != leaf else 2
        else:
            passes = self._passes
            for i in todo:
                verdict[i] = 2 if passes(i) else 1
        return verdict

    def _pass(self, i: int) -> bool:
        verdict = self._verdicts()
        v = verdict[i]
        if not v:
            v = verdict[i] = 2 if self._passes(i) else 1
        return v == 2

    def _refresh(self) -> None:
        # A deep tree opens in the spine layout with its side branches folded: their entries are not looked
        # at until one is unfolded (the first visible entry of each, for its stub, is).
        lazy = not self.query and not self.folded and self._t.deeper_than(INDENT_CAP)
        if not (lazy and self._spine_pass()):
            self._visible_pass(lazy)
            if lazy and not self.spine:  # the spine alone did not nest deep enough: lay out everything
                self._visible_pass(False)
        self._laid_out = self._rows_key()
        leaf_i = self._index.get(self.leaf_id) if self.leaf_id else None
        self._active_row_node = -1
        if leaf_i is not None:
            self._active_row_node = (
                leaf_i if leaf_i in self._row_of else self._anchor if self._anchor in self._row_of else -1
            )
        self.selected = self._nearest_row(self._last_selected)
        self._remember()

    def _visible_pass(self, lazy: bool) -> None:
        """The visible tree (nearest shown ancestor of each shown entry) and its layout. ``lazy``: folded side
        branches of the spine layout are not entered (their stubs only learn whether they have entries)."""
        parent, size = self._t.parent, self._t.size
        n = len(parent)
        terms = self.query.lower().split()
        folded_idx = {self._index[f] for f in self.folded if f in self._index}
        near = [-1] * n  # nearest visible ancestor-or-self
        visible: list[int] = []
        vparent: dict[int, int] = {}
        vchildren: dict[int, list[int]] = {-1: []}
        self._stub_kids = stub_kids = {}
        verdict = self._verdicts()
        passes = self._passes
        search = self._search
        cached_search = self._texts.cached_search
        path, ids, unfolded = self._path, self._t.ids, self.unfolded
        i = -1
        while i + 1 < n:
            # the entries under a folded one are skipped whole (preorder: its subtree is the next size-1)
            i = i + size[i] if i >= 0 and i in folded_idx else i + 1
            if i >= n:
                break
            p = parent[i]
            v = verdict[i]
            if not v:
                v = verdict[i] = 2 if passes(i) else 1
            ok = v == 2
            if ok and lazy and i not in path and size[i] > 1 and ids[i] not in unfolded:
                vp = near[p] if p >= 0 else -1
                if vp < 0 or vp in path:  # a side branch's first shown entry: its stub
                    near[i] = i
                    visible.append(i)
                    vparent[i] = vp
                    vchildren.setdefault(vp, []).append(i)
                    end = i + size[i]
                    stub_kids[i] = any(self._pass(j) for j in range(i + 1, end))
                    i = end - 1
                    continue
            if ok and terms:
                text = cached_search(i)
                if text is None:
                    text = search(i)
                ok = all(t in text for t in terms)
            if ok:
                vp = near[p] if p >= 0 else -1
                near[i] = i
                visible.append(i)
                vparent[i] = vp
                lst = vchildren.get(vp)
                if lst is None:
                    vchildren[vp] = [i]
                else:
                    lst.append(i)
            else:
                near[i] = near[p] if p >= 0 else -1
        self._vparent = vparent
        self._vchildren = vchildren
        self._layout(visible)

    def _spine_pass(self) -> bool:
        """The lazy spine layout built straight from the active path (a deep tree opening; ``spine_pass``).
        False, with nothing laid out, when the spine's visible forks do not nest past INDENT_CAP."""
        found = find_hangers(self._t, self._spine, self._path, self.unfolded, self._judge, self._pass)
        if found is None:
            return False
        self._vparent, self._vchildren, self._stub_kids = found.vparent, found.vchildren, found.stub_kids
        self.layout_change = (self.layout_change[0] + 1, 0, -1, 0)
        self.spine = True
        self._prefix_cache = {}
        self._side_roots = set()
        self._rparent = {}
        self._rchildren = {}
        rows, self._prefix, self._spine_forks = lay_out(
            found,
            rparent=self._rparent,
            rchildren=self._rchildren,
            side_roots=self._side_roots,
            connector=self._connector,
            walk=self._walk,
        )
        self._visible = rows
        self._row_of = dict(zip(rows, positions(len(rows)), strict=True))
        return True

    def _materialize(self, s: int) -> None:
        """The visible subtree of side branch ``s``, skipped by the lazy pass, before it is unfolded."""
        if self._stub_kids.pop(s, None) is None:
            return
        parent = self._t.parent
        vparent, vchildren = self._vparent, self._vchildren
        near = {s: s}
        passes = self._pass
        for i in range(s + 1, s + self._t.size[s]):
            vp = near[parent[i]]
            if passes(i):
                near[i] = i
                vparent[i] = vp
                vchildren.setdefault(vp, []).append(i)
            else:
                near[i] = vp

    def _has_vkids(self, i: int) -> bool:
        """``i`` has visible children (known without entering a lazily folded side branch)."""
        kids = self._stub_kids.get(i)
        return kids if kids is not None else bool(self._vchildren.get(i))

    def _layout(self, visible: list[int]) -> None:
        """Rows in order with their prefixes: the classic layout while it stays within INDENT_CAP levels, else
        the spine layout."""
        self.layout_change = (self.layout_change[0] + 1, 0, -1, 0)
        self._spine_forks = []
        self._side_roots = set()
        spine_root = self._spine_root()
        self.spine = spine_root >= 0 and classic_depth(visible, self._vparent, self._vchildren) > INDENT_CAP
        if self.spine:
            self._layout_spine(spine_root)
        else:
            self._visible = visible
            self._rparent = self._vparent
            self._rchildren = self._vchildren
            self._prefix = classic_prefixes(visible, self._vparent, self._vchildren, self.folded, self._t.ids)
        self._row_of = {node_i: row for row, node_i in enumerate(self._visible)}

    def _spine_root(self) -> int:
        for r in self._vchildren.get(-1, ()):
            if r in self._path:
                return r
        return -1

    def _is_folded(self, i: int) -> bool:
        nid = self._t.ids[i]
        if nid in self.folded:
            return True
        # side branches start folded in the spine layout, except while searching (the matches must show)
        return i in self._side_roots and not self.query and nid not in self.unfolded

    def _layout_spine(self, spine_root: int) -> None:
        """The active path at indent 0; each side branch right after its fork point, folded unless opened;
        inside side branches the classic layout, capped at INDENT_CAP levels."""
        self._prefix_cache = {}
        self._visible = []
        self._prefix = []
        self._rparent = {}
        self._rchildren = {}
        self._spine_forks = []
        top = self._vchildren.get(-1, [])
        side_top = [r for r in top if r != spine_root]
        work: list[Work] = [(spine_root, -1, 0, (), "", True)]
        for k in range(len(side_top) - 1, -1, -1):
            self._side_roots.add(side_top[k])
            work.append((side_top[k], -1, 0, (), self._connector(side_top[k], False), False))
        self._rchildren[-1] = [*side_top, spine_root]
        self._walk(work, self._visible, self._prefix, self._spine_forks)

    def _connector(self, i: int, last: bool) -> str:
        mid = "─" if not self._has_vkids(i) else FOLDED if self._is_folded(i) else FOLDABLE
        return f"{'└' if last else '├'}{mid} "

    def _walk(self, work: list[Work], rows: list[int], prefixes: list[str], forks: list[int]) -> None:
        walk_spine(
            work,
            path=self._path,
            vchildren=self._vchildren,
            is_folded=self._is_folded,
            connector=self._connector,
            rows=rows,
            prefixes=prefixes,
            forks=forks,
            rparent=self._rparent,
            rchildren=self._rchildren,
            side_roots=self._side_roots,
            prefix_cache=self._prefix_cache,
        )

    def _toggle_side(self, i: int) -> None:
        """Fold or unfold side branch ``i`` of the spine layout in place: only its rows are laid out and
        spliced in or out (a 50,000-entry session is not laid out again for one stub)."""
        self._materialize(i)
        r = self._row_of[i]
        rows, prefixes = self._visible, self._prefix
        last = prefixes[r].startswith("└")
        end = r + 1
        path, side_roots = self._path, self._side_roots
        while end < len(rows) and rows[end] not in path and rows[end] not in side_roots:
            end += 1
        new_rows: list[int] = []
        new_prefixes: list[str] = []
        self._walk(
            [(i, self._rparent[i], 0, (), self._connector(i, last), False)], new_rows, new_prefixes, []
        )
        if self._is_folded(i):
            self._rchildren.pop(i, None)
        row_of = self._row_of
        for gone in rows[r:end]:
            del row_of[gone]
        rows[r:end] = new_rows
        prefixes[r:end] = new_prefixes
        delta = len(new_rows) - (end - r)
        forks = self._spine_forks
        k = bisect_right(forks, r)
        if delta:
            forks[k:] = [f + delta for f in forks[k:]]
            row_of.update(
                zip(rows[r:], range(r, len(rows)), strict=True)
            )  # the rows from the splice down moved
        else:
            row_of.update(zip(new_rows, range(r, r + len(new_rows)), strict=True))
        self.layout_change = (self.layout_change[0] + 1, r, end, delta)
        self._laid_out = self._rows_key()
        self.selected = self._nearest_row(self._last_selected)
        self._remember()

    def _subtree_size(self, i: int) -> int:
        """Entries in the full tree under ``i`` (itself included)."""
        return self._t.size[i]

    def _nearest_row(self, entry_id: str | None) -> int:
        """Row of ``entry_id`` or of its nearest visible ancestor; else the last row (pi)."""
        if not self._visible:
            return 0
        idx = self._index.get(entry_id) if entry_id is not None else None
        while idx is not None and idx >= 0:
            row = self._row_of.get(idx)
            if row is not None:
                return row
            idx = self._t.parent[idx]
        return len(self._visible) - 1

    def _remember(self) -> None:
        if self._visible:
            self._last_selected = self._t.ids[self._visible[self.selected]]

    # ------------------------------------------------------------------ moving (see widgets.tree.navigation)
    def _set(self, row: int) -> None:
        if self._visible:
            self.selected = clamp(row, len(self._visible))
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
        if self._reveal(entry_id):
            self._refresh()
        self.selected = self._nearest_row(entry_id)
        self._remember()

    def _reveal(self, entry_id: str | None) -> bool:
        """Open what hides ``entry_id``: the side branch it is in (folded by default in the spine layout) and
        any folded ancestor. True if anything changed (the caller refreshes)."""
        i = self._index.get(entry_id) if entry_id is not None else None
        changed = False
        while i is not None and i >= 0 and i not in self._path:
            nid, up = self._t.ids[i], self._t.parent[i]
            if i != self._index[entry_id] and nid in self.folded:  # type: ignore[index]
                self.folded.discard(nid)
                changed = True
            if (up < 0 or up in self._path) and nid not in self.unfolded:
                self.unfolded.add(nid)  # the side branch's first entry (only matters in the spine layout)
                changed = True
            i = up
        return changed

    def is_foldable(self, entry_id: str) -> bool:
        i = self._index.get(entry_id)
        if i is None or i not in self._row_of:
            return False
        if self.spine:
            if i in self._path:
                return False  # the spine always shows
            if i in self._side_roots:
                return self._has_vkids(i)
        return is_foldable(i, self._vparent, self._vchildren, self._row_of)

    def is_folded(self, entry_id: str) -> bool:
        """Shown folded: folded by the user, or a side branch of the spine layout not opened yet."""
        i = self._index.get(entry_id)
        if i is None or i not in self._row_of:
            return False
        return entry_id in self.folded or (self._has_vkids(i) and self._is_folded(i))

    def _auto_folding(self, i: int | None) -> bool:
        """A side branch of the spine layout while not searching: folded unless the user opened it."""
        return self.spine and i in self._side_roots and not self.query and i in self._row_of

    def fold(self, entry_id: str) -> None:
        i = self._index.get(entry_id)
        if self._auto_folding(i) and entry_id not in self.folded:
            self.unfolded.discard(entry_id)
            self._toggle_side(i)  # type: ignore[arg-type]
            return
        self.unfolded.discard(entry_id)
        self.folded.add(entry_id)
        self._refresh()

    def unfold(self, entry_id: str) -> None:
        i = self._index.get(entry_id)
        if self._auto_folding(i) and entry_id not in self.folded:
            self.unfolded.add(entry_id)
            self._toggle_side(i)  # type: ignore[arg-type]
            return
        self.folded.discard(entry_id)
        if i is not None and i in self._side_roots:
            self.unfolded.add(entry_id)
        self._refresh()

    def unfold_selected(self) -> bool:
        """Unfold the selected row if it is folded (→ on a stub); False when there was nothing to unfold."""
        sid = self.selected_id
        if sid is None or not self.is_folded(sid):
            return False
        self.unfold(sid)
        return True

    def fold_or_up(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        i = self._visible[self.selected]
        if self.is_foldable(sid) and not self.is_folded(sid):
            self.fold(sid)
        elif self.spine and i in self._path:
            self._set(spine_fork_up(self.selected, self._spine_forks))
        elif self.spine and i in self._side_roots:
            self._set(self._row_of.get(self._rparent[i], self.selected))  # back to its fork on the spine
        else:
            self._set(
                segment_start_up(self.selected, self._visible, self._rparent, self._rchildren, self._row_of)
            )

    def unfold_or_down(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        if self.is_folded(sid):
            self.unfold(sid)
        elif self.spine and self._visible[self.selected] in self._path:
            self._set(spine_fork_down(self.selected, self._spine_forks, self._spine_end()))
        else:
            self._set(segment_start_down(self.selected, self._visible, self._rchildren, self._row_of))

    def _spine_end(self) -> int:
        """Row of the last spine entry (the active leaf or the entry it hangs under)."""
        leaf = self._index.get(self.leaf_id) if self.leaf_id else None
        return self._nearest_row(self.leaf_id) if leaf is not None else len(self._visible) - 1

    # ------------------------------------------------------------------ filter, search, labels
    def set_filter(self, mode: str) -> None:
        if mode not in FILTERS:
            raise ValueError(f"Unknown tree filter {mode!r}; expected one of {', '.join(FILTERS)}")
        self.filter_mode = mode
        self.folded.clear()
        self.unfolded.clear()
        self._refresh()

    def filter_key(self, key: str) -> bool:
        """Apply pi's filter key; False if ``key`` is not one."""
        mode = filter_for_key(key, self.filter_mode)
        if mode is None:
            return False
        self.set_filter(mode)
        return True

    def set_query(self, query: str) -> None:
        if query != self.query:
            self.query = query
            self.folded.clear()
            self.unfolded.clear()
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
        self._texts.forget_search(idx)
        self._passes_cache.pop("labeled-only", None)
        self._refresh()

    def entry_ids(self) -> Iterable[str]:
        return iter(self._t.ids)

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self._visible)

    @property
    def total_entries(self) -> int:
        return len(self._t)

    @property
    def selected_id(self) -> str | None:
        return self._t.ids[self._visible[self.selected]] if self._visible else None

    def _row_marks(self, r: int) -> tuple[int, str, str, bool]:
        """(node, prefix, fold marker, folded) of row ``r`` — the row's shape without its text."""
        i = self._visible[r]
        nid = self._t.ids[i]
        prefix = self._prefix[r]
        has_connector = prefix.endswith(("─ ", f"{FOLDED} ", f"{FOLDABLE} "))
        folded = nid in self.folded or (self.spine and i in self._side_roots and self._is_folded(i))
        return i, prefix, f"{FOLDED} " if folded and not has_connector else "", folded

    def row(self, r: int) -> Row:
        i, prefix, fold_marker, folded = self._row_marks(r)
        nid = self._t.ids[i]
        stub = ""
        if self.spine and folded and self._has_vkids(i):
            size = self._subtree_size(i)
            stub = f"{size} {'entry' if size == 1 else 'entries'} · "
        return Row(
            id=nid,
            prefix=prefix,
            fold_marker=fold_marker,
            on_path=i in self._path,
            is_active=i == self._active_row_node,
            label=self.labels.get(nid),
            text=self._shown(i),
            stub=stub,
        )

    def rows(self) -> list[Row]:
        return [self.row(r) for r in range(len(self._visible))]

    def row_text(self, r: int) -> str:
        """The row as plain text (what the list draws, minus colours and the cursor)."""
        row = self.row(r)
        label = f"[{row.label}] " if row.label else ""
        path = PATH_MARK if row.on_path else ""
        active = f"  {ACTIVE_MARK}" if row.is_active else ""
        return f"{row.prefix}{row.fold_marker}{path}{row.stub}{label}{row.text.tag}{row.text.body}{active}"

    def text_start(self, r: int) -> int:
        """Cells before the row's own text (prefix, fold and path marks) — where a reader's eye lands."""
        i, prefix, fold_marker, _ = self._row_marks(r)
        return cell_len(prefix) + cell_len(fold_marker) + (len(PATH_MARK) if i in self._path else 0)

    def cuttable(self, r: int) -> int:
        """Cells of gutters the list may cut on the left of row ``r`` to bring its text into view."""
        return len(split_prefix(self._prefix[r])[1])

    def filter_tag(self) -> str:
        return FILTER_TAGS[self.filter_mode]

    def status_text(self) -> str:
        """pi's ``(i/n)`` position plus the filter tag, e.g. ``(3/12) [no-tools]``."""
        pos = f"({self.selected + 1}/{len(self._visible)})" if self._visible else "(0/0)"
        tag = self.filter_tag()
        return f"{pos} {tag}" if tag else pos

    def entry(self, entry_id: str) -> Any:
        idx = self._index.get(entry_id)
        return self._t.entries[idx] if idx is not None else None

    def entry_text(self, entry_id: str) -> str:
        e = self.entry(entry_id)
        return full_text(e) if e is not None else ""

    def preview(self, entry_id: str) -> list[tuple[str, str]]:
        idx = self._index.get(entry_id)
        if idx is None:
            return []
        return self._texts.preview(idx)

    def path_to(self, entry_id: str) -> list[str]:
        """Entry ids root → ``entry_id``."""
        idx = self._index.get(entry_id)
        return [self._t.ids[i] for i in self._path_indices(idx)] if idx is not None else []

    def path_outline(self, entry_id: str, limit: int = 12) -> tuple[int, list[tuple[str, DisplayText, bool]]]:
        """(entries on the path, last ``limit`` landmarks) — landmarks are user turns, summaries, compactions and
        fork points (flag True) on the way from the root to ``entry_id``, each as (id, display text, is_fork)."""
        idx = self._index.get(entry_id)
        if idx is None:
            return 0, []
        t = self._t
        marks: list[tuple[str, DisplayText, bool]] = []
        i = idx
        while i >= 0:  # walk up only as far as the landmarks reach: sessions can be 10,000 entries deep
            fork = t.child_count(i) > 1
            if fork or t.role_of(i) == "user" or t.kind[i] in ("branch_summary", "compaction") or i == idx:
                marks.append((t.ids[i], self._shown(i), fork))
                if len(marks) >= limit:
                    break
            i = t.parent[i]
        marks.reverse()
        # Off the active path: where it branched off the spine leads, so a deep side entry reads in context.
        j = idx
        while j >= 0 and j not in self._path and self._path:
            j = t.parent[j]
        if j >= 0 and j != idx and all(mid != t.ids[j] for mid, _, _ in marks):
            marks.insert(0, (t.ids[j], self._shown(j), True))
        return t.depth_of(idx) + 1, marks

    def is_user_entry(self, entry_id: str) -> bool:
        idx = self._index.get(entry_id)
        if idx is None:
            return False
        return self._t.role_of(idx) == "user" or self._t.kind[idx] == "custom_message"

    def has_children(self, entry_id: str) -> bool:
        idx = self._index.get(entry_id)
        return idx is not None and self._t.size[idx] > 1
