"""The direct spine pass (a deep tree's open, built from the active path) lays out exactly what the general
visible pass does: rows, prefixes, the rows' tree, stubs, forks — and everything done on them afterwards."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.tree.helpers import assistant, branchy_session, entry, user
from widgets.tree import TreeModel
from widgets.tree.model import FILTERS


class General(TreeModel):
    """The model as the general pass lays it out (the direct spine pass turned off)."""

    def _spine_pass(self) -> bool:
        return False


def state(m: TreeModel) -> dict[str, Any]:
    rows = range(len(m))
    spine_kids = {k: v for k, v in m._rchildren.items() if not (k in m._path and len(v) <= 1)}
    return {
        "spine": m.spine,
        "rows": [m.row(r) for r in rows],
        "visible": list(m._visible),
        "row_of": m._row_of == {i: r for r, i in enumerate(m._visible)},  # kept in step with the rows
        "prefix": list(m._prefix),
        "forks": list(m._spine_forks),
        "side_roots": m._side_roots & set(m._visible),
        "stubs": {i: k for i, k in m._stub_kids.items() if i in m._row_of},
        "rparent": {i: m._rparent[i] for i in m._visible},
        "rchildren": spine_kids,
        "selected": m.selected,
        "folded": [(m.is_folded(r.id), m.is_foldable(r.id)) for r in (m.row(r) for r in rows)],
    }


def deep_session(rng: random.Random) -> list[dict[str, Any]]:
    """A branchy session with bookkeeping entries, tool-only turns, short side branches and a second root."""
    entries = branchy_session(rng.randrange(150, 400), rng.choice([4, 6, 10]), rng.choice([None, 1, 2, 3]))
    out: list[dict[str, Any]] = []
    for k, e in enumerate(entries):
        roll = rng.random()
        if roll < 0.08:
            e = entry("model_change", e["id"], e["parentId"], k, provider="p", modelId="m")
        elif roll < 0.14 and e["message"]["role"] == "assistant":
            e = assistant(e["id"], e["parentId"], "", k, calls=[(f"c{k}", "ls", {})], stop="toolUse")
        out.append(e)
        if rng.random() < 0.05:  # a one-entry side branch
            out.append(user(f"x{k}", e["id"], f"aside {k}", k))
    for j in range(rng.randrange(0, 12)):  # later branches from older entries: newer than the spine there
        out.append(user(f"late{j}", rng.choice(out)["id"], f"late {j}", 100_000 + j))
    if rng.random() < 0.5:
        out.append(user("other-root", None, "another root", 0))
        out.append(user("other-kid", "other-root", "under it", 1))
    return out


def same(a: TreeModel, b: TreeModel, what: str) -> None:
    sa = state(a)
    assert sa["row_of"], what  # the row index follows every splice
    assert sa == state(b), what


@pytest.mark.parametrize("seed", range(16))
def test_spine_pass_matches_the_general_pass(seed: int):
    rng = random.Random(seed)
    entries = deep_session(rng)
    ids = [e["id"] for e in entries]
    leaf = ids[-1] if rng.random() < 0.5 else rng.choice(ids)
    labels = {rng.choice(ids): "here" for _ in range(5)}
    for mode in FILTERS:
        fast, slow = (
            TreeModel(entries, leaf, labels, filter_mode=mode),
            General(entries, leaf, labels, filter_mode=mode),
        )
        same(fast, slow, f"open {mode}")
        # what a user does next: unfold and fold stubs, move, jump between forks
        for step in range(25):
            op = rng.choice(["unfold", "fold", "up", "down", "move", "select"])
            for m in (fast, slow):
                if op == "unfold":
                    m.unfold_or_down()
                elif op == "fold":
                    m.fold_or_up()
                elif op in ("up", "down"):
                    m.move(-1 if op == "up" else 1)
                elif op == "move":
                    m._set(random.Random(step).randrange(len(m)) if len(m) else 0)
                else:
                    m.select(ids[random.Random(step + seed).randrange(len(ids))])
            same(fast, slow, f"{mode} step {step} {op}")


def test_the_direct_pass_is_what_opens_a_deep_session():
    entries = branchy_session(2_000, 10)
    calls: list[bool] = []
    saved = TreeModel._spine_pass

    def counting(self: TreeModel) -> bool:
        done = saved(self)
        calls.append(done)
        return done

    TreeModel._spine_pass = counting  # type: ignore[method-assign]
    try:
        m = TreeModel(entries, entries[-1]["id"])
    finally:
        TreeModel._spine_pass = saved  # type: ignore[method-assign]
    assert calls == [True] and m.spine


def test_side_rows_of_a_hidden_spine_root_and_another_root_keep_the_tree_order():
    entries = branchy_session(300, 10)
    # the root is hidden by the default filter
    entries[0] = entry("model_change", "e0", None, 0, provider="p", modelId="m")
    entries.append(user("aside", "e0", "early aside", 0))
    entries.append(user("aside2", "aside", "more", 0))
    entries.append(user("root2", None, "a later root", 100_000))
    entries.append(user("root2kid", "root2", "under it", 100_001))
    fast, slow = TreeModel(entries, "e299"), General(entries, "e299")
    assert fast.spine and [fast.row(r).id for r in range(2)] == ["aside", "root2"]
    same(fast, slow, "open")


@pytest.mark.parametrize(("total", "every", "back"), [(600, 10, None), (900, 6, 2), (500, 12, 1)])
def test_a_plain_branchy_session_placed_in_bulk_matches_the_general_pass(total: int, every: int, back: int):
    """One folded stub under every fork point (a user who kept going back): the spine pass places them in
    bulk, and what it lays out is the general pass's layout, also after unfolding and folding."""
    import widgets.tree.spine_pass as spine_pass

    entries = branchy_session(total, every, back)
    bulk: list[int] = []
    saved = spine_pass._stubs_in_bulk

    def counting(*args: Any) -> None:
        bulk.append(1)
        saved(*args)

    spine_pass._stubs_in_bulk = counting  # type: ignore[assignment]
    try:
        fast = TreeModel(entries, entries[-1]["id"])
    finally:
        spine_pass._stubs_in_bulk = saved  # type: ignore[assignment]
    slow = General(entries, entries[-1]["id"])
    assert bulk == [1] and fast.spine
    same(fast, slow, "open")
    for m in (fast, slow):
        m.last()
        m.fold_or_up()  # to the last fork point
        m.move(1)  # onto its stub
        m.unfold_or_down()
    same(fast, slow, "unfolded")
    for m in (fast, slow):
        m.fold_or_up()
    same(fast, slow, "folded again")
