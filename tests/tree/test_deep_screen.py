"""The tree browser on deep, branchy sessions (issue 18): Pilot tests and snapshots at 120x40 and 80x24.

The sessions are generated (no files, no clocks): the selected row's text must be on screen in every state.
"""

from __future__ import annotations

from functools import cache

import pytest
from textual.widgets import Static

from tests.tree.helpers import branchy_session
from tests.tree.host import HostApp
from widgets.tree import TreeModel
from widgets.tree.screen import TreeBrowserScreen
from widgets.tree.tree_list import TreeList


@cache
def entries() -> tuple[dict, ...]:
    return tuple(branchy_session(10_000, 50))


def deep_app(**kw) -> HostApp:
    es = list(entries())
    leaf = kw.pop("leaf", es[-1]["id"])
    return HostApp(lambda: TreeBrowserScreen(TreeModel(es, leaf, **kw)))


def drawn_selected(tl: TreeList) -> str:
    """The selected row as the list draws it now (empty if it is not on screen)."""
    top = int(tl.scroll_offset.y)
    y = tl.model.selected - top
    if not 0 <= y < tl.scrollable_content_region.height:
        return ""
    return tl.render_line(y).text


def assert_selected_readable(tl: TreeList) -> None:
    m = tl.model
    row = m.row(m.selected)
    line = drawn_selected(tl)
    assert line.startswith("› "), line
    label = f"[{row.label}] " if row.label else ""
    body = (row.stub + label + row.text.tag + row.text.body)[:12]  # where the row's own text begins
    start = line.find(body)
    assert 0 <= start <= tl.scrollable_content_region.width // 3 + 2, (line, body)


@pytest.mark.slow
async def test_opens_on_the_active_leaf_and_keeps_it_readable_at_both_sizes():
    for size in ((120, 40), (80, 24)):
        app = deep_app()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            tl = app.screen.tree_list
            assert tl.model.selected_id == "e9999"
            assert "← active" in drawn_selected(tl)
            assert_selected_readable(tl)
            for key in ["up"] * 4 + ["ctrl+left", "ctrl+left", "down", "right", "down", "ctrl+right"]:
                await pilot.press(key)
                assert_selected_readable(tl)
            await pilot.press("home")
            assert_selected_readable(tl)
            await pilot.press("end")
            assert_selected_readable(tl)
            await pilot.press("slash", *"aband")
            assert_selected_readable(tl)
            await pilot.press("ctrl+u")
            assert_selected_readable(tl)


async def test_right_unfolds_a_stub_in_place_and_ctrl_left_folds_it():
    app = deep_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        m = screen.model
        await pilot.press("ctrl+left")  # from the leaf: to the last fork point on the spine
        fork = m.selected
        assert m.row(fork + 1).stub == "26 entries · "
        await pilot.press("down")
        stub = m.selected_id
        rows = len(m)
        await pilot.press("right")
        assert len(m) == rows + 25 and m.selected_id == stub
        assert drawn_selected(screen.tree_list).startswith("› └⊟ user: (abandoned branch 9950)")
        await pilot.press("down")
        assert "path (" in screen.preview_pane.plain  # the path to a row off the spine
        assert "(abandoned branch 9950)" in screen.preview_pane.plain
        await pilot.press("up", "ctrl+left")
        assert len(m) == rows and m.selected_id == stub
        await pilot.press("right")  # → on an unfolded row pages as before
        assert len(m) == rows + 25


async def test_deep_entry_in_a_side_branch_is_shifted_into_view():
    # the leaf early: the selected entry sits ~200 forks deep inside one side branch
    app = deep_app(leaf="e30", selected_id="e9999")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tl = app.screen.tree_list
        assert tl.model.selected_id == "e9999"
        assert "199›" in tl.model.row(tl.model.selected).prefix
        assert_selected_readable(tl)
        tl.model.set_label("e9999", "deep-one")  # a label on a long, deep row stays on screen
        app.screen._sync()
        await pilot.pause()
        assert "[deep-one] assistant: answer" in drawn_selected(tl)
        assert_selected_readable(tl)
        for _ in range(40):
            await pilot.press("up")
            assert_selected_readable(tl)


def test_deep_tree_snapshot_120x40(snap_compare):
    assert snap_compare(deep_app(), terminal_size=(120, 40))


def test_deep_tree_snapshot_80x24(snap_compare):
    async def into_a_stub(pilot):
        await pilot.press("ctrl+left", "down", "right", "down", "down")

    assert snap_compare(deep_app(), terminal_size=(80, 24), run_before=into_a_stub)


def test_deep_side_branch_snapshot_80x24(snap_compare):
    assert snap_compare(deep_app(leaf="e30", selected_id="e9999"), terminal_size=(80, 24))


async def test_lines_kept_around_an_unfolded_stub_match_a_fresh_draw():
    """Unfolding or folding a stub redraws from it down and moves the lines below; they must read exactly as
    a list drawn from nothing would."""
    app = deep_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        tl = app.screen.tree_list
        height = tl.scrollable_content_region.height
        for keys in (
            ["ctrl+left", "down"],
            ["right"],
            ["ctrl+left"],
            ["up", "up", "up", "ctrl+left", "down"],
        ):
            for key in keys:
                await pilot.press(key)
            if tl.model.row(tl.model.selected).stub:
                await pilot.press("right")  # unfold: rows below move down
                await pilot.pause()
            kept = [tl.render_line(y).text for y in range(height)]
            tl._strips.clear()
            assert [tl.render_line(y).text for y in range(height)] == kept


async def test_screen_after_unfolding_and_folding_matches_a_full_repaint():
    """An unfolded stub repaints only what changed (its rows, the scrollbar cells the thumb left or reached,
    the status line); the screen must read exactly as a full repaint would."""
    app = deep_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        tl = screen.tree_list
        for keys in (
            ["ctrl+left", "down", "right"],
            ["ctrl+left"],
            ["up", "up", "up", "ctrl+left", "down", "right"],
            ["ctrl+left"],
        ):
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            assert str(screen.query_one("#tree-status", Static).content) == tl.model.status_text()
            drawn = app.export_screenshot()
            for widget in (tl, tl.vertical_scrollbar, *screen.query("Static")):
                widget.refresh()
            await pilot.pause()
            assert app.export_screenshot() == drawn, keys
