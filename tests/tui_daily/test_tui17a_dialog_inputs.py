"""Dialog text fields show what is typed (issue 17): the /model and Ctrl+L search and both /login fields
kept only their border rows once focused. Pilot checks of what the terminal shows, and a snapshot of each
dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widget import Widget
from textual.widgets import Input

from pi_app.tui.screens.login import LoginScreen
from pi_app.tui.screens.model_select import ModelSelectScreen
from tests.tui.conftest import make_app, make_session
from tests.tui_daily.drawn import DrawnScreen
from tests.tui_daily.helpers import SIZE

DIALOG_SIZE = (100, 30)


def _fields_show_text(screen) -> None:
    for field in screen.query(Input):
        if not all(node.display for node in field.ancestors_with_self if isinstance(node, Widget)):
            continue  # a field that is not shown at the moment (a rename field before Ctrl+R)
        assert field.content_region.height >= 1, f"{field.id} has no row for its text"


async def _open_model_selector(pilot) -> None:
    # /model lists only models with credentials: give one catalogue provider a key (the search below
    # matches none of them, so what is drawn does not depend on the catalogue)
    pilot.app.session.model_registry.auth.set_runtime_api_key("anthropic", "test-key")
    await pilot.press("ctrl+l")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ModelSelectScreen)
    await pilot.press(*"faux")
    await pilot.pause()


async def _open_login(pilot) -> None:
    pilot.app.open_login("")
    await pilot.pause()
    assert isinstance(pilot.app.screen, LoginScreen)
    await pilot.press(*"anthropic", "enter", *"sk-secret")
    await pilot.pause()


async def test_model_search_shows_typed_text(project: Path, faux) -> None:
    app = make_app(await make_session(project))
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await _open_model_selector(pilot)
        _fields_show_text(app.screen)
        search = app.screen.query_one("#model-search", Input)
        assert search.has_focus and search.value == "faux"
        region = search.content_region
        assert drawn.lines()[region.y][region.x : region.right].strip() == "faux"


async def test_both_login_fields_show_typed_text(project: Path, faux) -> None:
    app = make_app(await make_session(project))
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await _open_login(pilot)
        _fields_show_text(app.screen)
        provider = app.screen.query_one("#login-provider", Input)
        key = app.screen.query_one("#login-key", Input)
        assert key.has_focus and (provider.value, key.value) == ("anthropic", "sk-secret")
        lines = drawn.lines()
        assert "anthropic" in lines[provider.content_region.y]
        assert "•" * len("sk-secret") in lines[key.content_region.y]
        assert "sk-secret" not in drawn.text()  # a password field masks it


def _app(project: Path):
    return make_app(asyncio.run(make_session(project)))


def test_snapshot_model_selector_with_search_text(snap_compare, project: Path) -> None:
    assert snap_compare(_app(project), terminal_size=DIALOG_SIZE, run_before=_open_model_selector)


def test_snapshot_login_with_both_fields_typed(snap_compare, project: Path) -> None:
    assert snap_compare(_app(project), terminal_size=DIALOG_SIZE, run_before=_open_login)


async def _typed_field_is_drawn(app, pilot, drawn: DrawnScreen, text: str) -> None:
    """The focused field holds ``text`` and the terminal shows it on the field's row."""
    await pilot.press(*text)
    await pilot.pause()
    _fields_show_text(app.screen)
    field = app.focused
    assert isinstance(field, Input) and field.value == text
    region = field.content_region
    assert text in drawn.lines()[region.y][region.x : region.right]


async def test_every_other_screen_field_shows_typed_text(project: Path, faux) -> None:
    """The resume picker's search, the tree's label field and the branch summary's custom instructions."""
    from pi_app.ai.providers.faux import faux_text
    from pi_app.tui.session_commands import open_resume, open_tree
    from tests.tui_daily.helpers import send
    from widgets.tree.screen import BranchSummaryChoiceScreen

    faux.enqueue(faux_text("an answer"))
    app = make_app(await make_session(project))
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await send(app, pilot, "hello")

        await open_resume(app)
        await pilot.pause()
        await _typed_field_is_drawn(app, pilot, drawn, "hello")
        await pilot.press("escape")
        await pilot.pause()

        await open_tree(app)
        await pilot.pause()
        await pilot.press("shift+l")
        await pilot.pause()
        await _typed_field_is_drawn(app, pilot, drawn, "mylabel")
        await pilot.press("escape", "escape")
        await pilot.pause()

        app.push_screen(BranchSummaryChoiceScreen())
        await pilot.pause()
        screen = app.screen
        screen.query_one("#choice-custom").add_class("editing")
        screen.query_one("#choice-input", Input).focus()
        await pilot.pause()
        await _typed_field_is_drawn(app, pilot, drawn, "focus on tests")
