"""The session tree as a flat, filterable list of rows (no Textual): what /tree shows and how keys move in it.

Layout: depth-first, children oldest first. A row is indented only where the visible tree forks — a chain of
single children stays at one level, so a 10,000-entry conversation is one column, not a staircase. Fork
children get ``├─``/``└─`` connectors and ``│`` gutters continue while later siblings follow. Everything is
iterative (sessions can be tens of thousands of entries deep).

Filters (pi): default hides settings/bookkeeping entries; no-tools also hides tool results; user-only shows
user messages; labeled-only shows labeled entries; all shows everything. Assistant turns made only of tool
calls are hidden except in "all" (their calls appear on the tool-result rows) — the active leaf always shows.
Search is space-separated, case-insensitive terms that must all match. Searching, changing the filter or the
labels resets folds, and the selection stays on the same entry or its nearest visible ancestor.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.session.messages import iso_to_ms
from pi_app.session.store.record import bulk

from .entry_text import (
    SETTINGS_TYPES,
    DisplayText,
    ToolCallInfo,
    display_text,
    full_text,
    preview_sections,
    search_text,
    tool_calls_of,
)
from .navigation import (
    FILTER_KEYS,
    FILTER_TAGS,
    FILTERS,
    clamp,
    filter_for_key,
    is_foldable,
    segment_start_down,
    segment_start_up,
)
from .peek import message_facts, tree_fields

if TYPE_CHECKING:
    from pi_app.session.store import SessionManager

__all__ = ["FILTERS", "FILTER_KEYS", "FILTER_TAGS", "Row", "TreeModel"]

ACTIVE_MARK = "← active"
PATH_MARK = "• "
FOLDED = "⊞"
FOLDABLE = "⊟"


@dataclass(frozen=True, slots=True)
class Row:
    """One visible line of the tree."""

    id: str
    prefix: str  # gutters and connector, e.g. "│  ├─ " (fold state shown in the connector: "├⊞ ")
    fold_marker: str  # "⊞ " for a folded row that has no connector (a root), else ""
    on_path: bool  # on the root→leaf path (drawn with "• ")
    is_active: bool  # the leaf (or, when a bookkeeping leaf is filtered out, the message it follows)
    label: str | None
    text: DisplayText


_UNPLACED = -2


class _Node:
    __slots__ = (
        "id",
        "parent",
        "parent_id",
        "timestamp",
        "depth",
        "children",
        "kids",
        "entry",
        "kind",
        "role",
        "settings",
        "hidden_assistant",
        "_shown",
        "_search",
    )

    def __init__(self, entry: Any, entry_id: str, kind: str, parent_id: Any, timestamp: str) -> None:
        self.id = entry_id
        self.entry = entry
        self.parent = _UNPLACED  # preorder index of the parent in the full tree, -1 for roots
        self.parent_id = parent_id
        self.timestamp = timestamp
        self.depth = 0
        self.children: list[int] = []
        self.kids: list[_Node] | None = None  # while building: child nodes in file order
        self.kind = kind
        self.role: str | None = None
        self.settings = kind in SETTINGS_TYPES
        self.hidden_assistant = False
        self._shown: DisplayText | None = None
        self._search: str | None = None


def _ts(node: _Node) -> int:
    return iso_to_ms(node.timestamp)


# How far up a tool result looks for the assistant turn that made its call (results follow their call).
CALL_LOOKUP_DEPTH = 256

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
        self.page_size = max(1, page_size)
        # Tool calls by id, filled lazily from the assistant turns above the tool results that get shown.
        self.tool_calls: dict[str, ToolCallInfo] = {}
        self._calls_read: set[int] = set()
        self._nodes: list[_Node] = []
        self._index: dict[str, int] = {}
        self._passes_cache: dict[str, list[bool]] = {}
        self._warm_at = 0
        self.entry_count = len(entries)
        with bulk():  # tens of thousands of small acyclic objects: no cyclic GC passes while creating them
            self._build(entries)
        self._path: set[int] = set(self._path_indices(self._index.get(leaf_id) if leaf_id else None))
        self._anchor = self._active_anchor()
        # per-refresh state
        self._visible: list[int] = []
        self._prefix: list[str] = []
        self._row_of: dict[int, int] = {}
        self._vparent: dict[int, int] = {}
        self._vchildren: dict[int, list[int]] = {}
        self._active_row_node = -1
        self.selected = 0
        self._last_selected: str | None = selected_id if selected_id is not None else leaf_id
        with bulk():
            self._refresh()

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
        if home != self.home:
            for node in self._nodes:
                node._shown = node._search = None
            self._warm_at = 0
        new_labels = dict(labels or {})
        if new_labels != self.labels:
            for eid in set(new_labels.items()) ^ set(self.labels.items()):
                idx = self._index.get(eid[0])
                if idx is not None:
                    self._nodes[idx]._search = None
            self._passes_cache.pop("labeled-only", None)
            self._warm_at = 0
        self.home = home
        self.labels = new_labels
        self.leaf_id = leaf_id
        self.filter_mode = filter_mode
        self.query = ""
        self.folded.clear()
        self.page_size = max(1, page_size)
        self._passes_cache.clear()  # "hidden unless it is the leaf" depends on the leaf
        self._path = set(self._path_indices(self._index.get(leaf_id) if leaf_id else None))
        self._anchor = self._active_anchor()
        self._last_selected = selected_id if selected_id is not None else leaf_id
        self._refresh()

    # ------------------------------------------------------------------ building
    def _build(self, entries: Sequence[Any]) -> None:
        by_id: dict[str, _Node] = {}
        order: list[_Node] = []
        for e in entries:
            eid, kind, parent_id, timestamp = tree_fields(e)
            if eid in by_id:  # duplicate id: the first one wins, like the store's index
                continue
            node = _Node(e, eid, kind, parent_id, timestamp)
            by_id[eid] = node
            order.append(node)
            if kind == "message":
                node.role, node.hidden_assistant = message_facts(e)
                # The tool-set log (role "system") is bookkeeping, like model changes: shown under "all".
                node.settings = node.settings or node.role == "system"
        roots: list[_Node] = []
        for node in order:
            parent = node.parent_id
            up = by_id.get(parent) if isinstance(parent, str) and parent != node.id else None
            if up is None:
                roots.append(node)
            elif up.kids is None:
                up.kids = [node]
            else:
                up.kids.append(node)
        for node in order:
            if node.kids is not None and len(node.kids) > 1:
                node.kids.sort(key=_ts)
        if len(roots) > 1:
            roots.sort(key=_ts)
        self._dfs(roots)
        # Entries caught in a parent cycle are reachable from no root: each unplaced one starts a new root.
        if len(self._nodes) < len(order):
            for node in order:
                if node.parent == _UNPLACED:
                    self._dfs([node])

    def _dfs(self, roots: list[_Node]) -> None:
        """Preorder, children oldest first; a chain of only children is walked without the stack."""
        nodes = self._nodes
        index = self._index
        stack: list[tuple[_Node, int]] = [(r, -1) for r in reversed(roots)]
        while stack:
            node, parent = stack.pop()
            while node.parent == _UNPLACED:
                idx = len(nodes)
                node.parent = parent
                nodes.append(node)
                index[node.id] = idx
                if parent >= 0:
                    up = nodes[parent]
                    up.children.append(idx)
                    node.depth = up.depth + 1
                kids = node.kids
                if kids is None:
                    break
                if len(kids) > 1:
                    stack.extend((c, idx) for c in reversed(kids[1:]))
                node, parent = kids[0], idx

    def _active_anchor(self) -> int:
        """Where ``← active`` goes when the leaf row is filtered out: the leaf's nearest ancestor that is
        conversation (a leaf that is a label or model change sits, for the reader, on the message before it)."""
        i = self._index.get(self.leaf_id) if self.leaf_id else None
        while i is not None and i >= 0:
            node = self._nodes[i]
            if not (node.settings or node.hidden_assistant):
                return i
            i = node.parent
        return -1

    def _path_indices(self, idx: int | None) -> list[int]:
        out: list[int] = []
        while idx is not None and idx >= 0:
            out.append(idx)
            idx = self._nodes[idx].parent
        out.reverse()
        return out

    # ------------------------------------------------------------------ per-node text (lazy)
    def _shown(self, i: int) -> DisplayText:
        node = self._nodes[i]
        if node._shown is None:
            if node.role == "toolResult":
                self._find_call(i)
            node._shown = display_text(node.entry, self.tool_calls, self.home)
        return node._shown

    def _find_call(self, i: int) -> None:
        """Read the tool calls of the assistant turns above tool result ``i`` until its call is known."""
        msg = self._nodes[i].entry.get("message")
        call_id = str(msg.get("toolCallId", "")) if isinstance(msg, dict) else ""
        j = self._nodes[i].parent
        steps = 0
        while call_id not in self.tool_calls and j >= 0 and steps < CALL_LOOKUP_DEPTH:
            node = self._nodes[j]
            if node.role == "assistant" and j not in self._calls_read:
                self._calls_read.add(j)
                up = node.entry.get("message")
                if isinstance(up, dict):
                    self.tool_calls.update(tool_calls_of(up))
            j = node.parent
            steps += 1

    def _search(self, i: int) -> str:
        node = self._nodes[i]
        if node._search is None:
            node._search = search_text(node.entry, self._shown(i), self.labels.get(node.id))
        return node._search

    def warm_search(self, limit: int | None = None) -> bool:
        """Build search text for up to ``limit`` more entries (all when None); True once every entry has it.
        The screen calls this in small slices while the user reads, so the first keystroke finds it ready."""
        n = len(self._nodes)
        end = n if limit is None else min(n, self._warm_at + limit)
        search = self._search
        for i in range(self._warm_at, end):
            search(i)
        self._warm_at = end
        return end >= n

    # ------------------------------------------------------------------ filtering and layout
    def _passes(self, i: int) -> bool:
        node = self._nodes[i]
        mode = self.filter_mode
        if node.hidden_assistant and mode != "all" and node.id != self.leaf_id:
            return False
        if mode == "default":
            return not node.settings
        if mode == "no-tools":
            return not node.settings and node.role != "toolResult"
        if mode == "user-only":
            return node.role == "user"
        if mode == "labeled-only":
            return node.id in self.labels
        return True

    def _passes_all(self) -> list[bool]:
        """The filter verdict per entry, kept per filter (changing filters back and forth is then cheap)."""
        mode = self.filter_mode
        out = self._passes_cache.get(mode)
        if out is None:
            passes = self._passes
            out = self._passes_cache[mode] = [passes(i) for i in range(len(self._nodes))]
        return out

    def _refresh(self) -> None:
        nodes = self._nodes
        n = len(nodes)
        terms = self.query.lower().split()
        folded_idx = {self._index[f] for f in self.folded if f in self._index}
        skip = [False] * n if folded_idx else None
        near = [-1] * n  # nearest visible ancestor-or-self
        visible: list[int] = []
        vparent: dict[int, int] = {}
        vchildren: dict[int, list[int]] = {-1: []}
        passes = self._passes_all()
        search = self._search
        for i in range(n):
            p = nodes[i].parent
            if skip is not None and p >= 0 and (skip[p] or p in folded_idx):
                skip[i] = True
                near[i] = near[p]
                continue
            ok = passes[i]
            if ok and terms:
                node = nodes[i]
                text = node._search
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
        self._visible = visible
        self._vparent = vparent
        self._vchildren = vchildren
        self._row_of = {node_i: row for row, node_i in enumerate(visible)}
        self._layout()
        leaf_i = self._index.get(self.leaf_id) if self.leaf_id else None
        self._active_row_node = -1
        if leaf_i is not None:
            self._active_row_node = (
                leaf_i if leaf_i in self._row_of else self._anchor if self._anchor in self._row_of else -1
            )
        self.selected = self._nearest_row(self._last_selected)
        self._remember()

    def _layout(self) -> None:
        """Prefix strings: indent one level per visible fork, connectors on fork children."""
        gutters: dict[int, tuple[bool, ...]] = {}
        cache: dict[tuple[bool, ...], str] = {(): ""}
        prefixes: list[str] = []
        vchildren = self._vchildren
        folded = self.folded
        nodes = self._nodes

        def gutter_text(g: tuple[bool, ...]) -> str:
            s = cache.get(g)
            if s is None:
                s = cache[g] = "".join("│  " if cont else "   " for cont in g)
            return s

        for i in self._visible:
            vp = self._vparent[i]
            siblings = vchildren[vp]
            base = gutters[vp] if vp >= 0 else ()
            if len(siblings) > 1:
                last = siblings[-1] == i
                mid = FOLDED if nodes[i].id in folded else FOLDABLE if i in vchildren else "─"
                prefixes.append(f"{gutter_text(base)}{'└' if last else '├'}{mid} ")
                gutters[i] = (*base, not last)
            else:
                gutters[i] = base
                prefixes.append(gutter_text(base))
        self._prefix = prefixes

    def _nearest_row(self, entry_id: str | None) -> int:
        """Row of ``entry_id`` or of its nearest visible ancestor; else the last row (pi)."""
        if not self._visible:
            return 0
        idx = self._index.get(entry_id) if entry_id is not None else None
        while idx is not None and idx >= 0:
            row = self._row_of.get(idx)
            if row is not None:
                return row
            idx = self._nodes[idx].parent
        return len(self._visible) - 1

    def _remember(self) -> None:
        if self._visible:
            self._last_selected = self._nodes[self._visible[self.selected]].id

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
        self.selected = self._nearest_row(entry_id)
        self._remember()

    def is_foldable(self, entry_id: str) -> bool:
        i = self._index.get(entry_id)
        return i is not None and is_foldable(i, self._vparent, self._vchildren, self._row_of)

    def fold_or_up(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        if self.is_foldable(sid) and sid not in self.folded:
            self.folded.add(sid)
            self._refresh()
        else:
            self._set(
                segment_start_up(self.selected, self._visible, self._vparent, self._vchildren, self._row_of)
            )

    def unfold_or_down(self) -> None:
        sid = self.selected_id
        if sid is None:
            return
        if sid in self.folded:
            self.folded.discard(sid)
            self._refresh()
        else:
            self._set(segment_start_down(self.selected, self._visible, self._vchildren, self._row_of))

    # ------------------------------------------------------------------ filter, search, labels
    def set_filter(self, mode: str) -> None:
        if mode not in FILTERS:
            raise ValueError(f"Unknown tree filter {mode!r}; expected one of {', '.join(FILTERS)}")
        self.filter_mode = mode
        self.folded.clear()
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

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self._visible)

    @property
    def total_entries(self) -> int:
        return len(self._nodes)

    @property
    def selected_id(self) -> str | None:
        return self._nodes[self._visible[self.selected]].id if self._visible else None

    def row(self, r: int) -> Row:
        i = self._visible[r]
        node = self._nodes[i]
        prefix = self._prefix[r]
        has_connector = prefix.endswith(("─ ", f"{FOLDED} ", f"{FOLDABLE} "))
        return Row(
            id=node.id,
            prefix=prefix,
            fold_marker=f"{FOLDED} " if node.id in self.folded and not has_connector else "",
            on_path=i in self._path,
            is_active=i == self._active_row_node,
            label=self.labels.get(node.id),
            text=self._shown(i),
        )

    def rows(self) -> list[Row]:
        return [self.row(r) for r in range(len(self._visible))]

    def row_text(self, r: int) -> str:
        """The row as plain text (what the list draws, minus colours and the cursor)."""
        row = self.row(r)
        label = f"[{row.label}] " if row.label else ""
        path = PATH_MARK if row.on_path else ""
        active = f"  {ACTIVE_MARK}" if row.is_active else ""
        return f"{row.prefix}{row.fold_marker}{path}{label}{row.text.tag}{row.text.body}{active}"

    def filter_tag(self) -> str:
        return FILTER_TAGS[self.filter_mode]

    def status_text(self) -> str:
        """pi's ``(i/n)`` position plus the filter tag, e.g. ``(3/12) [no-tools]``."""
        pos = f"({self.selected + 1}/{len(self._visible)})" if self._visible else "(0/0)"
        tag = self.filter_tag()
        return f"{pos} {tag}" if tag else pos

    def entry(self, entry_id: str) -> Any:
        idx = self._index.get(entry_id)
        return self._nodes[idx].entry if idx is not None else None

    def entry_text(self, entry_id: str) -> str:
        e = self.entry(entry_id)
        return full_text(e) if e is not None else ""

    def preview(self, entry_id: str) -> list[tuple[str, str]]:
        idx = self._index.get(entry_id)
        if idx is None:
            return []
        if self._nodes[idx].role == "toolResult":
            self._find_call(idx)
        return preview_sections(self._nodes[idx].entry, self.tool_calls, self.home)

    def path_to(self, entry_id: str) -> list[str]:
        """Entry ids root → ``entry_id``."""
        idx = self._index.get(entry_id)
        return [self._nodes[i].id for i in self._path_indices(idx)] if idx is not None else []

    def path_outline(self, entry_id: str, limit: int = 12) -> tuple[int, list[tuple[str, DisplayText, bool]]]:
        """(entries on the path, last ``limit`` landmarks) — landmarks are user turns, summaries, compactions and
        fork points (flag True) on the way from the root to ``entry_id``, each as (id, display text, is_fork)."""
        idx = self._index.get(entry_id)
        if idx is None:
            return 0, []
        marks: list[tuple[str, DisplayText, bool]] = []
        i = idx
        while i >= 0:  # walk up only as far as the landmarks reach: sessions can be 10,000 entries deep
            node = self._nodes[i]
            fork = len(node.children) > 1
            if fork or node.role == "user" or node.kind in ("branch_summary", "compaction") or i == idx:
                marks.append((node.id, self._shown(i), fork))
                if len(marks) >= limit:
                    break
            i = node.parent
        marks.reverse()
        return self._nodes[idx].depth + 1, marks

    def is_user_entry(self, entry_id: str) -> bool:
        idx = self._index.get(entry_id)
        if idx is None:
            return False
        node = self._nodes[idx]
        return node.role == "user" or node.kind == "custom_message"

    def has_children(self, entry_id: str) -> bool:
        idx = self._index.get(entry_id)
        return idx is not None and bool(self._nodes[idx].children)
