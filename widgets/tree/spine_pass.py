"""The spine layout of a deep tree built straight from the active path: what opening a deep session runs.

A deep tree opens in the spine layout with its side branches folded. Instead of walking all entries (the
general visible pass in ``model``, which handles every state and is what this must match — tests compare the
two), the spine's entries are judged by the filter and placed in bulk; only the fork points and the side
branches hanging off them are looked at one by one, and a folded side branch is not entered (its stub only
learns whether anything visible is under its first entry).

Two steps, because the rows' connectors ask the model about the stubs found in the first:
:func:`find_hangers` (which visible entries hang off which spine entry) and :func:`lay_out` (the rows).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from itertools import chain, compress, islice, repeat
from operator import add, and_, eq, itemgetter, lt, mul, ne, sub

from .layout import Work
from .rows import FOLDED, INDENT_CAP
from .structure import TreeShape

# the connector of a folded stub by (last sibling, has visible entries under it)
_STUB_CONN = {
    (last, more): f"{'└' if last else '├'}{FOLDED if more else '─'} " for last in (0, 1) for more in (0, 1)
}
_SHOWN = bytes(int(v == 2) for v in range(256))  # filter verdicts -> 1 where shown
_LAST_STUB = {more: _STUB_CONN[1, more] for more in (False, True)}


@dataclass(slots=True)
class Hangers:
    """What hangs off the spine: its visible entries, and the side rows under each (``-1``: other roots)."""

    shown: list[int]  # the spine's visible entries, root → leaf (ascending: preorder along a path)
    groups: dict[int, list[int]]  # visible spine entry (or -1) -> its side rows' first entries
    vparent: dict[int, int]  # side entries -> nearest visible ancestor
    vchildren: dict[int, list[int]]  # inside unfolded side branches
    stub_kids: dict[int, bool]  # folded stubs -> visible entries under them


def find_hangers(
    t: TreeShape,
    spine: list[int],
    path: Container[int],
    unfolded: Container[str],
    judge: Callable[[list[int]], bytearray],
    pass_: Callable[[int], bool],
) -> Hangers | None:
    """The visible spine and the side rows hanging off it; None when the spine's visible forks do not nest
    past INDENT_CAP (the general pass then decides). ``judge`` gives filter verdicts (2: shown) of many entries
    at once, ``pass_`` one entry's."""
    parent, size, ids = t.parent, t.size, t.ids
    if not spine:
        return None
    verdict = judge(spine)
    seen = bytes(map(verdict.__getitem__, spine))
    at: Sequence[int]  # spine positions of the visible entries
    if seen.count(2) == len(seen):  # the whole spine shows (no bookkeeping, no tool-call-only turns on it)
        at, shown = range(len(spine)), list(spine)
    else:
        seen = seen.translate(_SHOWN)
        at = list(compress(range(len(spine)), seen))
        if not at:
            return None
        shown = list(compress(spine, seen))
    groups: dict[int, list[int]] = {}
    vparent: dict[int, int] = {}
    vchildren: dict[int, list[int]] = {}
    stub_kids: dict[int, bool] = {}

    def side(c: int, vp: int) -> None:
        """The side branch at ``c`` under visible spine entry ``vp``: its first shown entries become stubs
        (rows of ``vp``), an unfolded one is entered."""
        near = {parent[c]: vp}
        i, end = c, c + size[c]
        while i < end:
            q = near[parent[i]]
            if not pass_(i):
                near[i] = q
                i += 1
                continue
            near[i] = i
            vparent[i] = q
            if q != vp:
                vchildren.setdefault(q, []).append(i)
            else:
                groups.setdefault(vp, []).append(i)
                if size[i] > 1 and ids[i] not in unfolded:
                    stop = i + size[i]
                    stub_kids[i] = any(pass_(j) for j in range(i + 1, stop))
                    i = stop
                    continue
            i += 1

    r = 0
    while r < len(parent):  # other roots hang off the virtual root
        if r != spine[0]:
            side(r, -1)
        r += size[r]
    # fork points: a spine entry whose subtree holds more than the next one's (the leaf: anything at all)
    sizes = [*map(size.__getitem__, spine), 0]
    forks_at = list(compress(range(len(spine)), map((1).__ne__, map(sub, sizes, sizes[1:]))))
    last = len(spine) - 1
    rest, placed = _one_stub_forks(
        spine, forks_at, at, len(shown) == len(spine), t, unfolded, judge, groups, vparent
    )
    stub_kids.update(zip(placed, repeat(True)))
    firsts = [c for c in (spine[k] + 1 for k in rest) if c not in path]
    verdict = judge([*firsts, *(c + 1 for c in firsts if size[c] > 1)])  # most stubs and what is under them
    for k in rest:
        p = spine[k]
        nxt = spine[k + 1] if k < last else -1
        j = bisect_right(at, k) - 1
        vp = spine[at[j]] if j >= 0 else -1
        c, end = p + 1, p + size[p]
        while c < end:
            if c != nxt:
                if verdict[c] == 2 and size[c] > 1 and ids[c] not in unfolded:  # the usual: one stub
                    vparent[c] = vp
                    kids = groups.get(vp)
                    if kids is None:
                        groups[vp] = [c]
                    else:
                        kids.append(c)
                    stub_kids[c] = verdict[c + 1] == 2 or any(pass_(i) for i in range(c + 1, c + size[c]))
                else:
                    side(c, vp)
            c += size[c]
    # the classic layout's depth: a level per visible fork along the spine (side rows are single stubs)
    # (counted only as far as the cap: past it, the spine layout is decided)
    rows_below = map(add, map(len, groups.values()), map(ne, groups, repeat(shown[-1])))
    if next(islice(compress(groups, map(lt, repeat(1), rows_below)), INDENT_CAP, None), None) is None:
        return None
    return Hangers(shown, groups, vparent, vchildren, stub_kids)


def _one_stub_forks(
    spine: list[int],
    forks_at: list[int],
    at: Sequence[int],
    all_shown: bool,
    t: TreeShape,
    unfolded: Container[str],
    judge: Callable[[list[int]], bytearray],
    groups: dict[int, list[int]],
    vparent: dict[int, int],
) -> tuple[list[int], list[int]]:
    """The usual fork point of a user who went back and branched: two children, the spine's next entry and
    one side branch that is a folded stub with a visible entry right under its first — placed in bulk into
    ``groups`` and ``vparent``. Returns (the other fork points, for the entry-by-entry loop; the stubs placed,
    all with visible entries under them)."""
    size, ids = t.size, t.ids
    ks = forks_at[:-1] if forks_at and forks_at[-1] == len(spine) - 1 else forks_at  # the leaf: the loop's
    ps = list(map(spine.__getitem__, ks))
    nxts = list(map(spine.__getitem__, map(add, ks, repeat(1))))
    firsts = list(map(add, ps, repeat(1)))
    # the other child, if there are just two: the first, unless that is the spine's next entry
    others = list(map(add, firsts, map(mul, map(size.__getitem__, firsts), map(eq, firsts, nxts))))
    sizes_o = list(map(size.__getitem__, others))
    two = map(
        eq, map(sub, map(size.__getitem__, ps), map(size.__getitem__, nxts)), map(add, sizes_o, repeat(1))
    )
    cand = list(compress(range(len(ks)), map(and_, two, map(lt, repeat(1), sizes_o))))
    look = list(map(others.__getitem__, cand))
    verdict = judge([*look, *map(add, look, repeat(1))])  # each stub and the entry under it
    ok = [x for x in cand if verdict[others[x]] == 2 and verdict[others[x] + 1] == 2]
    if unfolded:
        ok = [x for x in ok if ids[others[x]] not in unfolded]
    if not ok:
        return forks_at, []
    stubs = list(map(others.__getitem__, ok))
    if all_shown:
        vps = list(map(ps.__getitem__, ok))
    else:  # the nearest visible spine entry at or above each fork point
        js = map(bisect_right, repeat(at), map(ks.__getitem__, ok))
        vps = [spine[at[j - 1]] if j else -1 for j in js]
    if len(set(vps)) == len(vps) and groups.keys().isdisjoint(vps):  # (other roots may be in -1's group)
        groups.update(zip(vps, map(list, zip(stubs)), strict=True))
    else:
        for vp, c in zip(vps, stubs, strict=True):
            groups.setdefault(vp, []).append(c)
    vparent.update(zip(stubs, vps, strict=True))
    placed = set(map(ks.__getitem__, ok))
    return [k for k in forks_at if k not in placed], stubs


def lay_out(
    h: Hangers,
    *,
    rparent: dict[int, int],
    rchildren: dict[int, list[int]],
    side_roots: set[int],
    connector: Callable[[int, bool], str],
    walk: Callable[[list[Work], list[int], list[str], list[int]], None],
) -> tuple[list[int], list[str], list[int]]:
    """(rows, prefixes, rows of the spine's fork points): the visible spine at indent 0, each spine entry's
    side rows right after it (folded stubs, or unfolded side branches laid out by ``walk``), filling the rows'
    own tree (``rparent``/``rchildren``) and ``side_roots`` as it goes (``connector`` and ``walk`` read them)."""
    shown, groups, stub_kids, vchildren = h.shown, h.groups, h.stub_kids, h.vchildren
    rparent.update(zip(shown, [-1, *shown[:-1]], strict=True))
    side_roots.update(chain.from_iterable(groups.values()))
    rows: list[int] = []
    prefixes: list[str] = []
    forks: list[int] = []
    # connectors of the side rows go in after the spine's empty prefixes: (row, connector) pairs
    at: list[int] = []
    conns: list[str] = []

    def hang(g: int, kids: list[int]) -> None:
        for k, c in enumerate(kids):
            last = g >= 0 and k == len(kids) - 1
            more = stub_kids.get(c)
            # a stub is folded (never in ``unfolded``): what the model's connector says, without asking
            conn = connector(c, last) if more is None else _STUB_CONN[last, more]
            if more is not None or not vchildren.get(c):
                rparent[c] = g
                at.append(len(rows))
                conns.append(conn)
                rows.append(c)
            else:
                prefixes.extend(repeat("", len(rows) - len(prefixes)))  # stubs' are set at the end
                walk([(c, g, 0, (), conn, False)], rows, prefixes, forks)

    top = sorted(groups.pop(-1, ()))
    hang(-1, top)
    rchildren[-1] = [*top, shown[0]]
    gs = sorted(groups)
    kids_of = list(map(groups.__getitem__, gs))
    if gs and all(map((1).__eq__, map(len, kids_of))):
        stubs = list(map(itemgetter(0), kids_of))
        if all(map(stub_kids.__contains__, stubs)):  # the usual: one folded stub under each fork point
            _stubs_in_bulk(shown, gs, kids_of, stubs, stub_kids, rows, forks, at, conns, rparent, rchildren)
            prefixes.extend(repeat("", len(rows) - len(prefixes)))
            any(map(prefixes.__setitem__, at, conns))
            return rows, prefixes, forks
    done = 0
    n = len(shown)
    for g in gs:
        j = bisect_right(shown, g, done)
        rows += shown[done:j]
        done = j
        forks.append(len(rows) - 1)
        kids = groups[g]
        if len(kids) == 1 and kids[0] in stub_kids:  # the usual: one folded stub
            c = kids[0]
            rparent[c] = g
            at.append(len(rows))
            conns.append(_STUB_CONN[1, stub_kids[c]])
            rows.append(c)
        else:
            kids.sort()
            hang(g, kids)
        if j < n:
            kids.append(shown[j])  # the rows' children: side rows first, then the spine's next entry
        rchildren[g] = kids
    rows += shown[done:]
    prefixes.extend(repeat("", len(rows) - len(prefixes)))
    any(map(prefixes.__setitem__, at, conns))
    return rows, prefixes, forks


def _stubs_in_bulk(
    shown: list[int],
    gs: list[int],
    kids_of: list[list[int]],
    stubs: list[int],
    stub_kids: dict[int, bool],
    rows: list[int],
    forks: list[int],
    at: list[int],
    conns: list[str],
    rparent: dict[int, int],
    rchildren: dict[int, list[int]],
) -> None:
    """:func:`lay_out`'s loop when each fork point ``gs[t]`` has one folded stub ``stubs[t]`` (a user who went
    back and branched), done in bulk: the spine's rows cut at the fork points, each stub placed after its own."""
    base = len(rows)
    js = list(map(bisect_right, repeat(shown), gs))  # the row after each fork point, counted in ``shown``
    segments = map(shown.__getitem__, map(slice, [0, *js[:-1]], js))
    rows += chain.from_iterable(chain.from_iterable(zip(segments, zip(stubs), strict=True)))
    rows += shown[js[-1] :]
    forks += map(add, js, range(base - 1, base - 1 + len(js)))  # t stubs come before fork point t
    at += map(add, js, range(base, base + len(js)))
    conns += map(_LAST_STUB.__getitem__, map(stub_kids.__getitem__, stubs))
    rparent.update(zip(stubs, gs, strict=True))
    # the rows' children: the stub, then the spine's next entry (none under the leaf)
    k = len(js) - (js[-1] >= len(shown))
    any(map(list.append, kids_of[:k], map(shown.__getitem__, js[:k])))
    rchildren.update(zip(gs, kids_of, strict=True))
