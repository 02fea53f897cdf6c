"""Deep, branchy trees stay readable (issue 18): the spine layout, stubs, the indent cap and the viewport.

Generated sessions: a user who went back and branched every 50 entries (10,000 entries), every 10 (50,000),
and a comb (one long spine with a one-entry stub at every entry).
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from tests.tree.helpers import branchy_session, comb_session
from widgets.tree import TreeModel
from widgets.tree.model import INDENT_CAP, shifted_prefix
from widgets.tree.navigation import follow, follow_x

PANE = 120
HEIGHT = 38
CURSOR = 2  # the list's "› " column


@cache
def session(kind: str) -> tuple[dict, ...]:
    if kind == "branchy-10k":
        return tuple(branchy_session(10_000, 50))
    if kind == "branchy-50k":
        return tuple(branchy_session(50_000, 10))
    return tuple(comb_session(3_000))


def open_model(kind: str, **kw) -> TreeModel:
    entries = list(session(kind))
    return TreeModel(entries, entries[-1]["id"] if kind != "comb" else "s2999", **kw)


class View:
    """What TreeList does with the model: follow the selection vertically and horizontally."""

    def __init__(self, model: TreeModel, width: int = PANE, height: int = HEIGHT) -> None:
        self.model, self.width, self.height = model, width, height
        self.top = 0  # a fresh list starts scrolled to the top
        self.left = 0
        self.update()

    def update(self) -> None:
        m = self.model
        self.top = follow(m.selected, self.top, self.height, len(m))
        if len(m):
            left = follow_x(CURSOR + m.text_start(m.selected), self.left, self.width - CURSOR)
            self.left = min(left, m.cuttable(m.selected))

    def check(self, what: str) -> None:
        self.update()
        m = self.model
        if not len(m):
            return
        assert self.top <= m.selected < self.top + self.height, what
        drawn = shifted_prefix(m.row(m.selected).prefix, self.left)  # what the list draws: gutters cut
        start = CURSOR + m.text_start(m.selected) - len(m.row(m.selected).prefix) + len(drawn)
        assert 0 <= start <= self.width // 3, what


def text_starts(m: TreeModel) -> int:
    return max(CURSOR + m.text_start(r) for r in range(len(m)))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["branchy-10k", "branchy-50k", "comb"])
def test_every_row_starts_within_a_third_and_the_selection_stays_in_view(kind: str):
    m = open_model(kind)
    assert m.spine
    assert m.row(m.selected).is_active and m.selected_id == m.leaf_id
    assert text_starts(m) <= PANE // 3
    view = View(m)
    view.check("open")
    m.filter_key("ctrl+u")
    view.check("user-only filter")
    assert text_starts(m) <= PANE // 3
    m.filter_key("ctrl+d")
    view.check("default filter")
    m.set_query("99")
    view.check("search")
    assert text_starts(m) <= PANE // 3  # side branches are open while searching, still capped
    m.set_query("")
    view.check("search cleared")
    assert m.selected_id is not None
    rng = random.Random(18)
    steps = [
        lambda: m.move(-1),
        lambda: m.move(1),
        lambda: m.page(-1),
        lambda: m.page(1),
        m.fold_or_up,
        m.unfold_or_down,
        m.unfold_selected,
        m.first,
        m.last,
    ]
    for n in range(200):
        rng.choice(steps)()
        view.check(f"move {n}")
    assert text_starts(m) <= PANE // 3


def test_spine_rows_and_stubs_of_a_branchy_session():
    m = open_model("branchy-10k")
    rows = [m.row_text(r) for r in range(len(m))]
    # the active path at indent 0; every branch point followed by its abandoned branch as one stub
    assert rows[-1] == "• assistant: answer 9999  ← active"
    stubs = [t for t in rows if t.startswith("└⊞ ")]
    assert len(stubs) == 199
    assert stubs[-1] == "└⊞ 26 entries · user: (abandoned branch 9950) question 9924"
    assert all(t.startswith(("• ", "└⊞ ")) for t in rows)
    assert len(m) == 10_000 - 199 * 25  # each stub hides the 25 entries under it


def test_unfolding_a_stub_in_place_and_folding_it_again():
    m = open_model("branchy-10k")
    m.unfold_or_down()  # on the leaf: no further fork, stays
    assert m.selected_id == "e9999"
    m.fold_or_up()  # the spine is not foldable: up to the previous fork point on the spine
    fork = m.selected
    assert m.row(fork).on_path and m.row(fork + 1).stub.startswith("26 entries")
    m.fold_or_up()
    assert m.selected < fork and m.row(m.selected + 1).stub  # the fork before it
    m.unfold_or_down()
    assert m.selected == fork  # and back down
    m.move(1)  # onto the stub
    stub_id = m.selected_id
    before = len(m)
    assert m.unfold_selected()
    assert len(m) == before + 25 and m.selected_id == stub_id
    spliced = [m.row_text(r) for r in range(len(m))]
    m._refresh()  # the in-place splice matches a full layout
    assert [m.row_text(r) for r in range(len(m))] == spliced and m.selected_id == stub_id
    assert m.row_text(m.selected).startswith("└⊟ user: (abandoned branch")
    assert m.row_text(m.selected + 1) == "   assistant: answer 9925"
    m.unfold_or_down()  # inside the side branch: to its end
    assert m.selected_id == "e9949"
    m.fold_or_up()  # up to the side branch's start
    assert m.selected_id == stub_id
    m.fold_or_up()  # fold it again: a stub with its size
    assert len(m) == before and m.row(m.selected).stub == "26 entries · "
    m.fold_or_up()  # from a stub: back to its fork on the spine
    assert m.selected == fork


def test_indent_is_capped_with_a_depth_marker_inside_deep_side_branches():
    entries = list(session("branchy-10k"))
    # the leaf early on: nearly the whole session is one side branch whose forks nest ~200 deep
    m = TreeModel(entries, "e30", selected_id="e9999")
    assert m.spine and m.selected_id == "e9999"  # the selected entry's side branch opened to show it
    deep = m.row_text(m.selected)
    assert deep.startswith("199› ") and deep.endswith("assistant: answer 9999")
    levels = [m.row(r).prefix for r in range(len(m))]
    assert max(len(p) for p in levels) <= len("199› ") + 3 * (INDENT_CAP - 1)
    assert text_starts(m) <= PANE // 3
    view = View(m, width=72)  # the list's share of a 120-column screen
    view.check("open on a deep entry")


def test_comb_stubs_are_single_entries_and_fork_jumps_walk_the_spine():
    m = open_model("comb")
    assert m.row_text(len(m) - 1) == "• assistant: ok 2999  ← active"
    rows = [m.row_text(r) for r in range(6)]
    assert rows == [
        "• user: step 0",
        "└─ user: stub 1",
        "• assistant: ok 1",
        "└─ user: stub 2",
        "• user: step 2",
        "└─ user: stub 3",
    ]
    m.first()
    for k in range(5):
        m.unfold_or_down()
        assert m.row(m.selected).on_path and m.selected == 2 * (k + 1)


def test_small_trees_keep_the_classic_layout():
    entries = branchy_session(400, 50)  # forks nest 7 deep: within the cap
    m = TreeModel(entries, entries[-1]["id"])
    assert not m.spine
    assert len(m) == 400
