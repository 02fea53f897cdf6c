"""The session tree's shape, built once per session state: parallel lists in preorder, no object per entry.

Children are oldest first (by timestamp). A 50,000-entry session becomes a dozen lists of ints and strings:
building them is mostly C-level ``map``/``zip`` work, and the cyclic GC has a handful of containers to walk
instead of 50,000 node objects (its full passes over those cost more than the build, at the first frame).
Children are not stored: in preorder, the children of ``i`` are ``i + 1``, then each next sibling at
``c + size[c]``, up to ``i + size[i]`` — and ``size`` is also what a folded stub shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from itertools import compress, repeat
from operator import attrgetter, eq, is_, le, not_, sub
from typing import Any

from pi_app.session.messages import iso_to_ms
from pi_app.session.store.record import EntryRecord, known_heads

from .entry_text import SETTINGS_TYPES
from .peek import message_facts, tree_fields

_FIELDS = (attrgetter("id"), attrgetter("type"), attrgetter("parent_id"))
_STAMP = attrgetter("timestamp")
# the timestamps of the entries at the given file positions
StampsOf = Callable[[Sequence[int]], list[str]]
_HEAD = attrgetter("message_head")
# How pi writes timestamps (``Date.toISOString``): such strings sort as the instants they name.
_CANONICAL_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _oldest_first(stamps_of: StampsOf, first: list[int], later: list[int]) -> bool:
    """True if each pair of siblings (``first[k]`` before ``later[k]`` in the file) is already in timestamp
    order: the stable sort by time would keep them. Decided on pi's own timestamp format only (else False)."""
    if not first:
        return True
    a = stamps_of(first)
    b = stamps_of(later)
    for side in (a, b):
        if not all(map(_CANONICAL_TS.fullmatch, side)):
            return False
        try:
            list(map(datetime.fromisoformat, side))  # a real instant (the sort key of an invalid one is 0)
        except ValueError:
            return False
    return all(map(le, a, b))


def _preorder_sizes(up: list[int], stamps_of: StampsOf) -> list[int] | None:
    """Subtree sizes if the file order already is the tree's preorder with children oldest first (a session
    only ever appended to, branching from its newest entries, is): then no reordering is needed. Else None.

    One pass with the path from the root to the entry before: the order is a preorder exactly when each
    entry's parent is on that path (a parent after its child, or the entry itself, never is). The entries
    above the parent end there (their sizes are known), and the last of them is the entry's previous sibling.
    """
    n = len(up)
    size = [1] * n
    stack = [-1]  # the path to the entry before, under the virtual root
    pop, push = stack.pop, stack.append
    first: list[int] = []  # siblings in file order: first[k] right before later[k]
    later: list[int] = []
    k = 0
    for p in up:
        top = stack[-1]
        if top != p:
            x = top
            while top != p:
                if top < 0:
                    return None
                pop()
                size[top] = k - top
                x = top
                top = stack[-1]
            first.append(x)
            later.append(k)
        push(k)
        k += 1
    rest = stack[1:]
    any(map(size.__setitem__, rest, map(sub, repeat(n), rest)))  # the last entry's path ends with the file
    return size if n and _oldest_first(stamps_of, first, later) else None


_POSITIONS: list[int] = []


def positions(n: int) -> list[int]:
    """``0 .. n-1`` as int objects made once and kept (grown as needed): the tree's indexes of 50,000 entries
    point into one compact block instead of allocating 50,000 ints scattered wherever the heap has room."""
    if len(_POSITIONS) < n:
        _POSITIONS.extend(range(len(_POSITIONS), n))
    return _POSITIONS if len(_POSITIONS) == n else _POSITIONS[:n]


def _through(skipped: dict[str, Any], entry_id: Any) -> Any:
    """``entry_id``, or the first ancestor of it that is not a skipped entry (bounded: ids may loop)."""
    for _ in range(len(skipped) + 1):
        if not isinstance(entry_id, str) or entry_id not in skipped:
            return entry_id
        entry_id = skipped[entry_id]
    return None


def _stamps_in(stamps: Sequence[str]) -> StampsOf:
    return lambda idxs: list(map(stamps.__getitem__, idxs))


def _fields(entries: Sequence[Any], records: bool) -> tuple[list[str], list[str], list[Any], StampsOf]:
    """(ids, types, parent ids, timestamps of given entries) in file order; records' fields are read at C
    speed, and their timestamps only where asked (siblings' order: a fraction of the entries)."""
    if records:  # an EntryRecord's id, type and timestamp are strings (the loader and from_dict see to it)
        ids, kinds, parents = (list(map(get, entries)) for get in _FIELDS)
        return ids, kinds, parents, lambda idxs: list(map(_STAMP, map(entries.__getitem__, idxs)))
    rows = [tree_fields(e) for e in entries]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], _stamps_in([r[3] for r in rows])


class TreeShape:
    """Every entry of a session as a preorder position, with the facts filters need."""

    __slots__ = (
        "ids",
        "entries",
        "parent",
        "size",
        "_depth",
        "_paths",
        "kind",
        "role",
        "settings",
        "hidden",
        "index",
        "_read",
        "_lines_read",
        "_deep",
    )

    def __init__(self, entries: Sequence[Any]) -> None:
        self.ids: list[str] = []
        self.entries: list[Any] = []
        self.parent: list[int] = []  # preorder index of the parent, -1 for roots
        self.size: list[int] = []  # entries in the subtree, itself included
        self._depth: list[int] = []  # filled as asked (depth_of)
        self._paths: list[Sequence[int]] = []  # paths whose depths are known, until _depth exists
        self.kind: list[str] = []
        # Facts filters need, read from a message's line when first asked (``role_of`` and friends): opening
        # a deep session reads the spine's lines, not those inside folded side branches.
        self.role: list[str | None] = []
        self.settings: list[bool] = []  # bookkeeping: shown only under the "all" filter
        self.hidden: list[bool] = []  # an assistant turn made only of tool calls
        self._read = bytearray()  # 1 once an entry's facts are in the three lists above
        self._lines_read = 0  # entries whose facts had to be read from their lines
        self._deep: dict[int, bool] = {}
        self.index: dict[str, int] = {}  # entry id -> preorder index (skipped usage ids -> their ancestor)
        if entries:
            self._build(entries)

    def __len__(self) -> int:
        return len(self.ids)

    def children(self, i: int) -> Iterator[int]:
        size = self.size
        c, end = i + 1, i + size[i]
        while c < end:
            yield c
            c += size[c]

    def child_count(self, i: int, limit: int = 2) -> int:
        """Children of ``i``, counted up to ``limit``."""
        size = self.size
        c, end, k = i + 1, i + size[i], 0
        while c < end and k < limit:
            k += 1
            c += size[c]
        return k

    def deeper_than(self, cap: int) -> bool:
        """True if forks nest more than ``cap`` levels anywhere (a level per fork child, as the classic layout
        indents). No filter can make a tree deeper: visible forks are a subset of these."""
        deep = self._deep.get(cap)
        if deep is None:
            parent, size = self.parent, self.size
            level = [0] * len(parent)
            top = int(parent.count(-1) > 1)
            deep = False
            for i, p in enumerate(parent):
                d = top if p < 0 else level[p] + (i != p + 1 or i + size[i] < p + size[p])
                if d > cap:
                    deep = True
                    break
                level[i] = d
            self._deep[cap] = deep
        return deep

    def path(self, i: int | None) -> list[int]:
        """Preorder indices root → ``i``."""
        out: list[int] = []
        parent = self.parent
        while i is not None and i >= 0:
            out.append(i)
            i = parent[i]
        out.reverse()
        return out

    def _build(self, entries: Sequence[Any]) -> None:
        records = set(map(type, entries)) <= {EntryRecord}
        ids, kinds, parents, stamps_of = _fields(entries, records)
        n = len(ids)
        keep: Sequence[int] = range(n)
        skipped: dict[str, Any] = {}
        # (a duplicate id leaves fewer keys: the general path below builds it again, the first one winning)
        index = dict(zip(ids, positions(n), strict=True))
        if len(index) < n or "usage" in kinds:
            # pi 1.6's usage entries (e.g. cache warming) are accounting, never rows: their children hang on
            # the nearest shown ancestor, and a usage entry as the leaf marks that ancestor active.
            index = {}
            kept: list[int] = []
            for k in range(n):
                eid = ids[k]
                if kinds[k] == "usage":
                    skipped.setdefault(eid, parents[k])
                elif eid not in index:  # duplicate id: the first one wins, like the store's index
                    index[eid] = len(kept)
                    kept.append(k)
            keep = kept
            ids, kinds, stamps_of = (
                [ids[k] for k in keep],
                [kinds[k] for k in keep],
                _stamps_in(stamps_of(keep)),
            )
            parents = [_through(skipped, parents[k]) for k in keep]
            n = len(keep)
        try:
            up = list(map(index.get, parents, repeat(-1)))
        except TypeError:  # an unhashable parentId in a damaged line
            up = [index.get(p, -1) if isinstance(p, str) else -1 for p in parents]
        size = _preorder_sizes(up, stamps_of)  # None also when an entry is its own parent
        if size is None and any(map(eq, up, range(n))):
            up = [-1 if p == k else p for k, p in enumerate(up)]  # its own parent: a root
        if size is not None:
            parent = up
            self.entries = list(entries) if isinstance(keep, range) else [entries[k] for k in keep]
            self.ids, self.kind = ids, kinds
            self.index = index
        else:
            order, parent = self._preorder(up, stamps_of(range(n)))
            size = [1] * n
            for i in range(n - 1, 0, -1):
                p = parent[i]
                if p >= 0:
                    size[p] += size[i]
            self.entries = (
                [entries[k] for k in order] if isinstance(keep, range) else [entries[keep[k]] for k in order]
            )
            self.ids = [ids[k] for k in order]
            self.kind = [kinds[k] for k in order]
            self.index = dict(zip(self.ids, range(n), strict=True))
        kind = self.kind
        self.parent, self.size = parent, size
        for eid in skipped:
            shown = self.index.get(_through(skipped, eid))
            if shown is not None:
                self.index.setdefault(eid, shown)
        self.settings = list(map(SETTINGS_TYPES.__contains__, kind))
        self.hidden = [False] * n
        if records:
            self._known_heads()
        else:
            self.role = [None] * n
            self._read = bytearray(map("message".__ne__, kind))

    def _known_heads(self) -> None:
        """Roles from the records' message heads (read by the loader from each line's prefix), in bulk: a
        message whose head settles its facts (any role but an assistant turn, or one known to have text, which
        is then not tool calls only) needs no look at its line."""
        heads = list(map(_HEAD, self.entries))
        # the heads there can be (records share them): a head not among them is just read from its line
        role_of = {h: h[0] for h in known_heads()}
        settled = {h for h in role_of if h[2] is not None}
        self.role = list(map(role_of.get, heads))  # None for entries without a head
        self._read = read = bytearray(map(settled.__contains__, heads))
        hidden_heads = {h for h in settled if h[2]}
        if hidden_heads:  # tool-calls-only answers the loader recognised
            hidden = self.hidden
            for i in compress(range(len(heads)), map(hidden_heads.__contains__, heads)):
                hidden[i] = True
        if None in heads:  # not a message, or a message the loader could not place (read when needed)
            kind = self.kind
            for i in compress(range(len(heads)), map(is_, heads, repeat(None))):
                read[i] = kind[i] != "message"
        if "system" in role_of.values():  # the tool-set log: bookkeeping, like model changes
            settings = self.settings
            for i in compress(range(len(heads)), map(eq, self.role, repeat("system"))):
                settings[i] = True

    @property
    def facts_read(self) -> int:
        """How many entries' facts have been read from their lines so far (what a lazy open costs)."""
        return self._lines_read

    def read_facts(self, i: int) -> None:
        """Fill role/hidden/settings of entry ``i`` from its line (once)."""
        if self._read[i]:
            return
        self._read[i] = 1
        self._lines_read += 1
        r, h = message_facts(self.entries[i])
        self.role[i] = r
        self.hidden[i] = h
        if r == "system":  # the tool-set log: bookkeeping, like model changes (shown under "all")
            self.settings[i] = True

    def read_facts_of(self, idxs: Sequence[int]) -> None:
        """:meth:`read_facts` of many entries (a deep tree's spine), in one loop."""
        read, entries, role, hidden, settings = (
            self._read,
            self.entries,
            self.role,
            self.hidden,
            self.settings,
        )
        if not read.count(0):  # everything known (the loader placed every message)
            return
        todo = list(compress(idxs, map(not_, map(read.__getitem__, idxs))))
        self._lines_read += len(todo)
        for i in todo:
            read[i] = 1
            r, h = message_facts(entries[i])
            role[i] = r
            hidden[i] = h
            if r == "system":
                settings[i] = True

    def role_of(self, i: int) -> str | None:
        if not self._read[i]:
            self.read_facts(i)
        return self.role[i]

    def know_depths(self, path: Sequence[int]) -> None:
        """Depths along ``path`` (root → entry: the k-th entry is k deep), known without walking up (stored
        when a depth is first asked for: opening the browser asks none)."""
        if self._depth:
            any(
                map(self._depth.__setitem__, path, range(len(path)))
            )  # each store returns None: runs them all
        else:
            self._paths.append(path)

    def depth_of(self, i: int) -> int:
        """Ancestors of ``i`` (0 for a root). Found by walking up to an entry whose depth is known, remembering
        the depths on the way: the first ask on a 25,000-deep spine walks it once, later ones near it are cheap."""
        depth, parent = self._depth, self.parent
        if not depth:
            depth = self._depth = [-1] * len(parent)
            for path in self._paths:
                any(map(depth.__setitem__, path, range(len(path))))
            self._paths.clear()
        walk: list[int] = []
        j = i
        while j >= 0 and depth[j] < 0:
            walk.append(j)
            j = parent[j]
        d = depth[j] if j >= 0 else -1
        for k in reversed(walk):
            d += 1
            depth[k] = d
        return depth[i]

    @classmethod
    def _preorder(cls, up: list[int], stamps: Sequence[str]) -> tuple[list[int], list[int]]:
        """(file index of each preorder position, parent's preorder position) for any parent links: children
        oldest first, entries caught in a parent cycle each starting a new root."""
        n = len(up)
        # children in file order: the first in ``first``, all of them in ``more`` when there are several
        first = [-1] * n
        more: dict[int, list[int]] = {}
        roots: list[int] = []
        for k in range(n):
            p = up[k]
            if p < 0:
                roots.append(k)
            elif first[p] < 0:
                first[p] = k
            else:
                lst = more.get(p)
                if lst is None:
                    more[p] = [first[p], k]
                else:
                    lst.append(k)

        def ts(k: int) -> int:
            return iso_to_ms(stamps[k])

        for lst in more.values():
            lst.sort(key=ts)
        if len(roots) > 1:
            roots.sort(key=ts)
        order: list[int] = []
        parent: list[int] = []
        pre = [-1] * n
        cls._dfs(roots, first, more, pre, order, parent)
        if len(order) < n:  # entries caught in a parent cycle: each unplaced one starts a new root
            for k in range(n):
                if pre[k] < 0:
                    cls._dfs([k], first, more, pre, order, parent)
        return order, parent

    @staticmethod
    def _dfs(
        roots: list[int],
        first: list[int],
        more: dict[int, list[int]],
        pre: list[int],
        order: list[int],
        parent: list[int],
    ) -> None:
        """Preorder over file indices, children oldest first; a chain of only children needs no stack."""
        stack: list[tuple[int, int]] = [(r, -1) for r in reversed(roots)]
        while stack:
            k, p = stack.pop()
            while pre[k] < 0:
                i = len(order)
                pre[k] = i
                order.append(k)
                parent.append(p)
                f = first[k]
                if f < 0:
                    break
                lst = more.get(k)
                if lst is not None:
                    stack.extend((c, i) for c in reversed(lst[1:]))
                    f = lst[0]
                k, p = f, i
