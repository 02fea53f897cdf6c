"""TreeShape: a file already in preorder is taken as it is; anything else is reordered — both agree."""

from __future__ import annotations

import random

import pytest

from tests.tree.helpers import branchy_session, comb_session, generated_session, ts, user
from widgets.tree import structure
from widgets.tree.structure import TreeShape


def _reordered(entries: list[dict]) -> TreeShape:
    """The shape as the general path (a full preorder walk) builds it."""
    saved = structure._preorder_sizes
    structure._preorder_sizes = lambda up, stamps: None
    try:
        return TreeShape(entries)
    finally:
        structure._preorder_sizes = saved


def _same(a: TreeShape, b: TreeShape) -> None:
    assert a.ids == b.ids
    assert a.parent == b.parent
    assert a.size == b.size
    assert a.kind == b.kind
    assert a.index == b.index
    assert [e["id"] for e in a.entries] == [e["id"] for e in b.entries]
    assert [a.depth_of(i) for i in range(len(a))] == [len(b.path(i)) - 1 for i in range(len(b))]


def _random_tree(rng: random.Random, n: int, in_preorder: bool) -> list[dict]:
    """Random parents; ``in_preorder``: each entry hangs on the previous one or one of its ancestors (as when a
    user branches from the conversation they are in), so the file is a preorder unless times disagree."""
    out: list[dict] = []
    path: list[str] = []
    for k in range(n):
        if in_preorder:
            path = path[: rng.randrange(len(path) + 1)] if rng.random() < 0.3 else path
            parent = path[-1] if path else None
        else:
            parent = out[rng.randrange(len(out))]["id"] if out and rng.random() < 0.9 else None
        stamp = ts(rng.randrange(n)) if rng.random() < 0.5 else ts(k)
        if rng.random() < 0.05:
            stamp = rng.choice(
                ["2025-01-01T00:00:00Z", "2025-01-01T01:00:00+01:00", "", "2025-02-31T00:00:00.000Z"]
            )
        e = user(f"e{k}", parent, "x", k)
        e["timestamp"] = stamp
        out.append(e)
        path.append(e["id"])
    return out


@pytest.mark.parametrize("in_preorder", [False, True])
def test_random_trees_agree_with_the_general_path(in_preorder: bool):
    rng = random.Random(18)
    for _ in range(150):
        entries = _random_tree(rng, rng.randrange(1, 60), in_preorder)
        _same(TreeShape(entries), _reordered(entries))


def test_generated_sessions_agree_and_appended_ones_are_not_reordered():
    for entries in (branchy_session(2_000, 10), comb_session(300), generated_session(1_000, 20)):
        _same(TreeShape(entries), _reordered(entries))
    calls: list[int] = []
    saved = structure._preorder_sizes

    def counting(up: list[int], stamps: list[str]) -> list[int] | None:
        size = saved(up, stamps)
        calls.append(size is not None)
        return size

    structure._preorder_sizes = counting  # type: ignore[assignment]
    try:
        TreeShape(branchy_session(2_000, 10))  # written in order: taken as it is
        TreeShape(generated_session(1_000, 20))  # side branches appended at the end: reordered
        assert calls == [True, False]
    finally:
        structure._preorder_sizes = saved


def test_preorder_file_with_siblings_out_of_time_order_is_reordered():
    entries = [user("r", None, "root", 0), user("b", "r", "newer", 5), user("a", "r", "older", 3)]
    shape = TreeShape(entries)
    assert shape.ids == ["r", "a", "b"]
    _same(shape, _reordered(entries))


def test_parent_cycles_and_self_parents_agree():
    entries = [user("a", "b", "x", 1), user("b", "a", "y", 2), user("c", "c", "z", 3), user("d", "c", "w", 4)]
    _same(TreeShape(entries), _reordered(entries))


def test_an_impossible_date_sorts_as_time_zero_like_the_general_path():
    entries = [user("r", None, "root", 0), user("a", "r", "ok", 3), user("b", "r", "feb 31", 5)]
    entries[2]["timestamp"] = "2025-02-31T00:00:00.000Z"  # pi's format, not a real instant
    shape = TreeShape(entries)
    assert shape.ids == ["r", "b", "a"]
    _same(shape, _reordered(entries))
