"""Where each visible entry's row goes and what its prefix draws (pure functions; the model owns the state).

Classic layout: depth-first, a row indented only where the visible tree forks, ``├─``/``└─`` on fork children
and ``│`` gutters while later siblings follow. Spine layout (forks nested deeper than INDENT_CAP): the active
path at indent 0, each side branch right after its fork point, inside side branches the classic layout capped
at INDENT_CAP levels, deeper rows starting with their real level (``12› ``). Iterative throughout: sessions can
be tens of thousands of entries deep.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence

from .rows import DEPTH_SEP, FOLDABLE, FOLDED, INDENT_CAP

# spine layout work item: (node, parent row-node, real gutter depth, last gutters, connector, on the spine)
Work = tuple[int, int, int, tuple[bool, ...], str, bool]


def classic_depth(
    visible: Sequence[int], vparent: Mapping[int, int], vchildren: Mapping[int, list[int]]
) -> int:
    """The deepest indent (levels, a connector counting as one) the classic layout would draw; counting stops
    past INDENT_CAP."""
    level: dict[int, int] = {-1: 0}
    deepest = 0
    for i in visible:
        vp = vparent[i]
        d = level[vp] + (len(vchildren[vp]) > 1)
        level[i] = d
        if d > deepest:
            deepest = d
            if d > INDENT_CAP:
                break
    return deepest


def classic_prefixes(
    visible: Sequence[int],
    vparent: Mapping[int, int],
    vchildren: Mapping[int, list[int]],
    folded: Container[str],
    ids: Sequence[str],
) -> list[str]:
    """Prefix strings: indent one level per visible fork, connectors on fork children."""
    gutters: dict[int, tuple[bool, ...]] = {}
    cache: dict[tuple[bool, ...], str] = {(): ""}
    prefixes: list[str] = []

    def gutter_text(g: tuple[bool, ...]) -> str:
        s = cache.get(g)
        if s is None:
            s = cache[g] = "".join("│  " if cont else "   " for cont in g)
        return s

    for i in visible:
        vp = vparent[i]
        siblings = vchildren[vp]
        base = gutters[vp] if vp >= 0 else ()
        if len(siblings) > 1:
            last = siblings[-1] == i
            mid = FOLDED if ids[i] in folded else FOLDABLE if i in vchildren else "─"
            prefixes.append(f"{gutter_text(base)}{'└' if last else '├'}{mid} ")
            gutters[i] = (*base, not last)
        else:
            gutters[i] = base
            prefixes.append(gutter_text(base))
    return prefixes


def capped_prefix(
    depth: int, g: tuple[bool, ...], conn: str, cache: dict[tuple[int, tuple[bool, ...], str], str]
) -> str:
    """Gutters and connector, at most INDENT_CAP levels; deeper rows start with their level (``12› ``).
    ``g`` holds the last INDENT_CAP gutters, ``depth`` the real number of them."""
    key = (depth, g, conn)
    out = cache.get(key)
    if out is None:
        levels = depth + (1 if conn else 0)
        shown = g
        marker = ""
        if levels > INDENT_CAP:
            keep = INDENT_CAP - 1 - (1 if conn else 0)
            shown = g[len(g) - keep :] if keep > 0 else ()
            marker = f"{levels}{DEPTH_SEP}"
        out = cache[key] = marker + "".join("│  " if c else "   " for c in shown) + conn
    return out


def walk_spine(
    work: list[Work],
    *,
    path: Container[int],
    vchildren: Mapping[int, list[int]],
    is_folded: Callable[[int], bool],
    connector: Callable[[int, bool], str],
    rows: list[int],
    prefixes: list[str],
    forks: list[int],
    rparent: dict[int, int],
    rchildren: dict[int, list[int]],
    side_roots: set[int],
    prefix_cache: dict[tuple[int, tuple[bool, ...], str], str],
) -> None:
    """Lay out rows depth-first from the work stack (node, parent row-node, real gutter depth, last gutters,
    connector, on the spine) into ``rows``/``prefixes`` and the rows' own tree (``rparent``/``rchildren``);
    spine nodes list their side branches (added to ``side_roots``) before the spine child, and the rows of
    spine fork points go to ``forks``."""
    while work:
        i, rp, depth, g, conn, on_spine = work.pop()
        rparent[i] = rp
        rows.append(i)
        if on_spine:
            prefixes.append("")
            kids = vchildren.get(i)
            if not kids:
                continue
            nxt = -1
            side: list[int] = []
            for c in kids:
                if c in path:
                    nxt = c
                else:
                    side.append(c)
            rchildren[i] = side + [nxt] if nxt >= 0 else side
            if side:
                forks.append(len(rows) - 1)
            if nxt >= 0:
                work.append((nxt, i, 0, (), "", True))
            for k in range(len(side) - 1, -1, -1):
                c = side[k]
                side_roots.add(c)
                work.append((c, i, 0, (), connector(c, k == len(side) - 1), False))
            continue
        prefixes.append(capped_prefix(depth, g, conn, prefix_cache))
        if is_folded(i):
            continue
        kids = vchildren.get(i)
        if not kids:
            continue
        rchildren[i] = kids
        # the gutters below this row: a connector row adds one, continuing while later siblings follow
        if conn:
            cg = (*g, not conn.startswith("└"))[-INDENT_CAP:]
            cdepth = depth + 1
        else:
            cg, cdepth = g, depth
        if len(kids) == 1:
            work.append((kids[0], i, cdepth, cg, "", False))
            continue
        for k in range(len(kids) - 1, -1, -1):
            c = kids[k]
            work.append((c, i, cdepth, cg, connector(c, k == len(kids) - 1), False))
