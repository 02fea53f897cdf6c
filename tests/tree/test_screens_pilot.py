"""Pilot tests: the tree browser, the branch-summary choice, the session picker and the fork picker."""

from __future__ import annotations

import threading

from pi_app.session.store import SessionManager
from tests.tree.helpers import FIXTURES
from tests.tree.host import NOW, HostApp, sessions_all, sessions_here
from widgets.fork_picker import ForkPickerScreen, fork_messages
from widgets.session_picker import SessionPickerScreen
from widgets.tree import TreeModel
from widgets.tree.screen import BranchSummaryChoiceScreen, TreeAction, TreeBrowserScreen

SIZE = (120, 40)


def browser(name: str = "branched", **kw) -> HostApp:
    model = TreeModel.from_session(SessionManager.open(f"{FIXTURES}/{name}.jsonl"))
    return HostApp(lambda: TreeBrowserScreen(model, **kw))


def preview_text(app: HostApp) -> str:
    return app.screen.preview_pane.plain


async def test_move_and_continue_returns_selected_entry():
    app = browser()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert screen.model.selected_id == "b0b00006"
        await pilot.press("up", "up", "up", "up")
        assert screen.model.selected_id == "b0b00003"
        await pilot.press("down", "down", "down", "down")
        assert screen.model.selected_id == "b0b00006"
        await pilot.press("down")  # wraps to the top
        assert screen.model.selected_id == "b0b00001"
        await pilot.press("enter")
    assert app.result == TreeAction("continue", "b0b00001", text="Add a --verbose flag to the CLI")


async def test_fork_clone_copy_keys():
    for key, kind, text in (("f", "fork", None), ("c", "clone", None), ("y", "copy", "Switched to click.")):
        app = browser()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(key)
        assert app.result == TreeAction(kind, "b0b00006", text=text)


async def test_search_filter_and_escape_layers():
    app = browser()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("c")  # with an empty search, c is "clone": check it is an action, then search
        assert app.result == TreeAction("clone", "b0b00006")

    app = browser()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("slash", *"click")
        assert screen.model.query == "click"
        assert [screen.model.row(r).id for r in range(len(screen.model))] == ["b0b00005", "b0b00006"]
        assert "Type to search: click" in str(screen.query_one("#tree-search").render())
        await pilot.press("f")  # with a query, letters type
        assert screen.model.query == "clickf" and len(screen.model) == 0
        await pilot.press("backspace")
        await pilot.press("escape")  # clears the search first
        assert screen.model.query == "" and not app.dismissed
        await pilot.press("ctrl+u")
        assert screen.model.filter_mode == "user-only"
        assert str(screen.query_one("#tree-status").render()) == "(3/3) [user]"
        await pilot.press("ctrl+o")
        assert screen.model.filter_mode == "labeled-only"
        await pilot.press("slash", "f", "o")  # "/" starts a search, so f/c/y can be searched for
        assert screen.model.query == "fo"
        await pilot.press("escape", "escape")
    assert app.result is None


async def test_fold_and_segment_keys():
    app = browser()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("up", "up", "up", "up")  # the "Use argparse" fork child
        assert screen.model.selected_id == "b0b00003"
        await pilot.press("ctrl+left")
        assert screen.model.folded == {"b0b00003"} and len(screen.model) == 6
        await pilot.press("alt+right")
        assert not screen.model.folded
        await pilot.press("ctrl+right")
        assert screen.model.selected_id == "b0b00004"  # branch end of that segment
        await pilot.press("left")  # page up stops at the top
        assert screen.model.selected == 0


async def test_label_in_place_with_callback_and_as_result_without():
    saved: list[tuple[str, str | None]] = []
    app = browser(on_label=lambda i, lab: saved.append((i, lab)))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("shift+l")
        assert screen.editing_label
        await pilot.press(*"done", "enter")
        assert saved == [("b0b00006", "done")]
        assert not screen.editing_label and not app.dismissed
        assert screen.model.row(screen.model.selected).label == "done"
        await pilot.press("shift+l")
        await pilot.press("escape")  # closes the label input only
        assert not screen.editing_label and not app.dismissed
    app = browser()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("up", "shift+l", *"x y", "enter")
    assert app.result == TreeAction("label", "b0b00005", label="x y")


async def test_preview_shows_entry_and_path():
    app = browser("compacted")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        text = preview_text(app)
        assert "429 rate_limit_error" in text and "path (15 entries from the root)" in text
        while not screen.model.row(screen.model.selected).text.body.startswith("[read"):
            await pilot.press("up")
        text = preview_text(app)
        assert "tool call" in text and "result of read" in text and '"path": "src/auth.ts"' in text


async def test_branch_summary_choice():
    for keys, expected in (
        (["enter"], "none"),
        (["down", "enter"], "summarize"),
        (["down", "down", "enter", *"focus on tests", "enter"], ("custom", "focus on tests")),
        (["escape"], None),
    ):
        app = HostApp(BranchSummaryChoiceScreen)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*keys)
        assert app.result == expected, keys


async def test_session_picker_open_search_scope_sort():
    app = HostApp(lambda: SessionPickerScreen(sessions_here(), sessions_all, now=NOW))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        # threaded: roots newest first, forks under their parent
        assert [(r.prefix, r.info.path[-7:]) for r in screen.rows] == [
            ("", "a.jsonl"),
            ("├─ ", "d.jsonl"),
            ("└─ ", "b.jsonl"),
            ("", "c.jsonl"),
        ]
        await pilot.press(*"readme")  # fuzzy: the substring match ranks first
        assert [r.info.path[-7:] for r in screen.rows][0] == "c.jsonl"
        assert screen.sort == "threaded"
        await pilot.press(*["backspace"] * 6, *'"the readme"')  # a quoted phrase must match exactly
        assert [r.info.path[-7:] for r in screen.rows] == ["c.jsonl"]
        await pilot.press(*["backspace"] * 12)
        await pilot.press("tab")
        assert screen.scope == "all" and len(screen.rows) == 5
        assert "Resume Session (All)" in str(screen.query_one("#picker-header").render())
        await pilot.press("ctrl+s")
        assert screen.sort == "recent"
        assert [r.info.path[-7:] for r in screen.rows][:3] == ["d.jsonl", "b.jsonl", "a.jsonl"]
        assert screen.selected_path.endswith("a.jsonl")  # the selection follows the session, not the row
        await pilot.press("up", "enter")
    assert app.result.endswith("b.jsonl")


async def test_session_picker_lists_in_the_background_and_draws_at_once():
    from tests.tui.session_helpers import wait_for

    release = threading.Event()

    def slow_listing() -> list:
        release.wait(10)  # the folder is being read until the test says so
        return list(sessions_here())

    app = HostApp(lambda: SessionPickerScreen(slow_listing, sessions_all, now=NOW, load_in_background=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.pause()
        assert screen.listing and screen.rows == []
        assert "Loading sessions…" in str(screen.query_one("#picker-status").render())
        await pilot.press(*"readme")  # typing while it loads is kept and applied to what arrives
        release.set()
        await wait_for(pilot, lambda: screen.rows, "the listing to arrive")
        assert not screen.listing
        assert [r.info.path[-7:] for r in screen.rows][0] == "c.jsonl"
        await pilot.press("enter")
    assert app.result.endswith("c.jsonl")


async def test_session_picker_delete_needs_confirmation_and_rename():
    deleted: list[str] = []
    renamed: list[tuple[str, str]] = []
    app = HostApp(
        lambda: SessionPickerScreen(
            sessions_here(), now=NOW, on_delete=deleted.append, on_rename=lambda p, n: renamed.append((p, n))
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("ctrl+s", "up", "up")  # recent: d, b, a, c; select d
        await pilot.press("ctrl+d")
        assert screen.confirming_delete.endswith("d.jsonl")
        assert "Delete session?" in str(screen.query_one("#picker-status").render())
        await pilot.press("escape")
        assert screen.confirming_delete is None and deleted == [] and not app.dismissed
        await pilot.press("ctrl+d", "enter")
        assert deleted[0].endswith("d.jsonl") and len(screen.rows) == 3
        assert not app.dismissed
        await pilot.press("ctrl+r", *"new name", "enter")
        assert renamed == [(screen.rows[0].info.path, "new name")]
        assert screen.rows[0].info.name == "new name"
        await pilot.press("escape")
    assert app.result is None


async def test_fork_picker_starts_on_newest_and_wraps():
    sm = SessionManager.open(f"{FIXTURES}/branched.jsonl")
    messages = fork_messages(sm.raw_entries())
    assert [m.text for m in messages] == [
        "Add a --verbose flag to the CLI",
        "Use argparse",
        "Use click instead",
    ]
    app = HostApp(lambda: ForkPickerScreen(messages))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")  # wraps to the oldest
        await pilot.press("enter")
    assert app.result == "b0b00001"
    app = HostApp(lambda: ForkPickerScreen(messages))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
    assert app.result == "b0b00005"
