"""Snapshots of the tree browser and the session picker (fixture data, injected `now`: no clocks or real paths)."""

from pi_app.session.store import SessionManager
from tests.tree.helpers import FIXTURES
from tests.tree.host import NOW, HostApp, sessions_all, sessions_here
from widgets.session_picker import SessionPickerScreen
from widgets.tree import TreeModel
from widgets.tree.screen import TreeBrowserScreen

SIZE = (120, 40)


def tree_app() -> HostApp:
    sm = SessionManager.open(f"{FIXTURES}/branched.jsonl")
    model = TreeModel.from_session(sm, home="/home/dev")
    model.set_label("b0b00004", "argparse-done")
    return HostApp(lambda: TreeBrowserScreen(model))


def test_tree_default_snapshot(snap_compare):
    assert snap_compare(tree_app(), terminal_size=SIZE)


def test_tree_search_snapshot(snap_compare):
    async def search(pilot):
        await pilot.press("slash", *"use")

    assert snap_compare(tree_app(), terminal_size=SIZE, run_before=search)


def test_tree_folded_labeled_snapshot(snap_compare):
    async def fold(pilot):
        await pilot.press("up", "up", "up", "up", "ctrl+left")  # fold the "Use argparse" branch

    assert snap_compare(tree_app(), terminal_size=SIZE, run_before=fold)


def test_session_picker_snapshot(snap_compare):
    app = HostApp(
        lambda: SessionPickerScreen(
            sessions_here(), sessions_all, now=NOW, current_path=sessions_here()[2].path, home="/home/tester"
        )
    )
    assert snap_compare(app, terminal_size=SIZE)


def test_session_picker_all_scope_snapshot(snap_compare):
    async def all_scope(pilot):
        await pilot.press("tab")

    app = HostApp(lambda: SessionPickerScreen(sessions_here(), sessions_all, now=NOW, home="/home/tester"))
    assert snap_compare(app, terminal_size=SIZE, run_before=all_scope)
