"""/tree in the running app on a branched fixture session: browse, label, and every action on a node."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text
from pi_app.tui.clipboard import MemoryClipboard
from tests.tui.conftest import SIZE, FakeClock, make_app
from tests.tui.session_helpers import (
    FIRST_USER,
    branched_session,
    run_command,
    statuses,
    user_texts,
    wait_for,
)
from widgets.notices import BranchSummaryView
from widgets.tree.screen import BranchSummaryChoiceScreen, TreeBrowserScreen


def _tree(app) -> TreeBrowserScreen:
    screen = app.screen
    assert isinstance(screen, TreeBrowserScreen), f"expected the tree browser, got {screen!r}"
    return screen


async def _open_tree(app, pilot) -> TreeBrowserScreen:
    await run_command(app, pilot, "/tree")
    await wait_for(pilot, lambda: isinstance(app.screen, TreeBrowserScreen), "the tree browser")
    await pilot.pause()
    return _tree(app)


async def _select(pilot, screen: TreeBrowserScreen, entry_id: str) -> None:
    screen.model.select(entry_id)
    screen._sync(rows_changed=False)
    await pilot.pause()
    assert screen.model.selected_id == entry_id


async def _closed(app, pilot) -> None:
    await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the browser to close")
    await app.wait_until_idle()
    await pilot.pause()


async def test_tree_browse_search_filter_fold_label(project: Path, faux) -> None:
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_tree(app, pilot)
        model = screen.model
        assert model.selected_id == "b0b00006"  # the active leaf's message (the label entry is hidden)
        await pilot.press("up")
        assert model.selected_id == "b0b00005"
        await pilot.press("down", "down")  # wraps to the first row
        assert model.selected == 0
        # typing searches (after "/": f/c/y are actions while no search is active)
        await pilot.press("slash", *"click")
        assert model.query == "click"
        assert [r.id for r in model.rows()] == ["b0b00005", "b0b00006"]
        await pilot.press("escape")  # clears the search, keeps the browser open
        assert model.query == "" and isinstance(app.screen, TreeBrowserScreen)
        await pilot.press("ctrl+u")
        assert model.filter_mode == "user-only"
        assert {r.id for r in model.rows()} == {"b0b00001", "b0b00003", "b0b00005"}
        await pilot.press("ctrl+d")
        assert model.filter_mode == "default"
        # fold the argparse branch at its first entry
        await _select(pilot, screen, "b0b00003")
        await pilot.press("ctrl+left")
        assert "b0b00003" in model.folded
        assert "b0b00004" not in [r.id for r in model.rows()]
        await pilot.press("ctrl+right")
        assert "b0b00003" not in model.folded
        # Shift+L labels the entry and persists it in the session file
        await pilot.press("L")
        await pilot.press(*"parser")
        await pilot.press("enter")
        await pilot.pause()
        assert session.session_manager.labels()["b0b00003"] == "parser"
        assert model.labels["b0b00003"] == "parser"
        lines = Path(session.session_file).read_text(encoding="utf-8").splitlines()
        last = json.loads(lines[-1])
        assert last["type"] == "label" and last["targetId"] == "b0b00003" and last["label"] == "parser"
        await pilot.press("escape")
        await _closed(app, pilot)
        assert session.session_manager.leaf_id != "b0b00003"  # nothing moved


async def test_continue_from_user_message_prefills_editor_and_rebuilds(project: Path, faux) -> None:
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        assert user_texts(app) == [FIRST_USER, "Use click instead"]
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00003")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, BranchSummaryChoiceScreen), "summary choice")
        await pilot.press("enter")  # "No summary"
        await _closed(app, pilot)
        assert session.session_manager.leaf_id == "b0b00002"  # a user message: the leaf moves to its parent
        assert app.editor.text == "Use argparse"
        assert user_texts(app) == [FIRST_USER]
        assert "Navigated to selected point" in statuses(app)


async def test_continue_from_assistant_message_skip_prompt(project: Path, faux) -> None:
    session = await branched_session(project)
    session.settings.set("branchSummary.skipPrompt", True)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("enter")
        await _closed(app, pilot)  # no "Summarize branch?" question
        assert session.session_manager.leaf_id == "b0b00004"
        assert app.editor.text == ""
        assert user_texts(app) == [FIRST_USER, "Use argparse"]
        # choosing the leaf again is a no-op
        screen = await _open_tree(app, pilot)
        await pilot.press("enter")
        await _closed(app, pilot)
        assert "Already at this point" in statuses(app)


async def test_summarize_branch_with_faux_provider(project: Path, faux) -> None:
    faux.enqueue(faux_text("## Goal\nTry click instead of argparse."))
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, BranchSummaryChoiceScreen), "summary choice")
        await pilot.press("down", "enter")  # "Summarize"
        await _closed(app, pilot)
        sm = session.session_manager
        leaf = sm.get_raw_entry(sm.leaf_id)
        assert leaf["type"] == "branch_summary" and leaf["parentId"] == "b0b00004"
        assert "Try click instead of argparse." in leaf["summary"]
        views = list(app.query(BranchSummaryView))
        assert views and "Try click" in views[-1].summary
        assert len(faux.requests) == 1


async def test_escape_cancels_branch_summary_and_reopens_tree(project: Path, faux) -> None:
    faux.enqueue(
        # open until cancelled (never released)
        FauxResponse(steps=[FauxStep("text", text="slow summary " * 50)], chunk_size=2, hold=asyncio.Event())
    )
    session = await branched_session(project)
    app = make_app(session, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, BranchSummaryChoiceScreen), "summary choice")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.branch_summarizing, "summarizing to start")
        assert app.status.message == "Summarizing branch... (esc to cancel)"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TreeBrowserScreen), "the tree to reopen")
        assert _tree(app).model.selected_id == "b0b00004"  # same selection as before
        assert "Branch summarization cancelled" in statuses(app)
        assert session.session_manager.leaf_id == "1abe1001"  # nothing moved
        assert app.status.message is None


async def test_fork_clone_copy_from_tree(project: Path, faux) -> None:
    clipboard = MemoryClipboard()
    session = await branched_session(project)
    original = session.session_file
    original_text = Path(original).read_text(encoding="utf-8")
    app = make_app(session, clipboard=clipboard)
    async with app.run_test(size=SIZE) as pilot:
        # y: copy the selected entry's text
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("y")
        await _closed(app, pilot)
        assert clipboard.last == "Done with argparse."
        # c: clone the path up to the selected entry into a new file
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("c")
        await _closed(app, pilot)
        cloned = session.session_file
        assert cloned != original and Path(cloned).exists()
        assert any(s.startswith("Cloned to new session: ") and cloned in s for s in statuses(app))
        path_ids = [e["id"] for e in session.session_manager.get_branch()]
        assert "b0b00004" in path_ids and "b0b00005" not in path_ids  # labels are re-created after it
        assert user_texts(app) == [FIRST_USER, "Use argparse"]
        assert Path(original).read_text(encoding="utf-8") == original_text  # the source is untouched
        # f on a user message: new file up to its parent, its text in the editor
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00003")
        await pilot.press("f")
        await _closed(app, pilot)
        assert session.session_file not in (original, cloned)
        assert app.editor.text == "Use argparse"
        assert user_texts(app) == [FIRST_USER]
        assert [m.role for m in session.messages] == ["user", "assistant"]


async def test_double_escape_opens_tree_or_fork(project: Path, faux) -> None:
    from widgets.fork_picker import ForkPickerScreen

    clock = FakeClock()
    session = await branched_session(project)
    app = make_app(session, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        clock.advance(0.2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TreeBrowserScreen), "the tree browser")
        await pilot.press("escape")
        await _closed(app, pilot)
        session.settings.set("doubleEscapeAction", "fork")
        clock.advance(5)
        await pilot.press("escape")
        clock.advance(0.2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ForkPickerScreen), "the fork picker")
        await pilot.press("escape")
        await _closed(app, pilot)


async def test_summarize_with_custom_prompt_sends_the_focus(project: Path, faux) -> None:
    faux.enqueue(faux_text("Summary with focus."))
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_tree(app, pilot)
        await _select(pilot, screen, "b0b00004")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, BranchSummaryChoiceScreen), "summary choice")
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        await pilot.press(*"keep the flag name", "enter")
        await _closed(app, pilot)
        assert len(faux.requests) == 1
        assert "keep the flag name" in json.dumps(faux.requests[0], default=str)
        leaf = session.session_manager.get_raw_entry(session.session_manager.leaf_id)
        assert leaf["type"] == "branch_summary" and "Summary with focus." in leaf["summary"]
