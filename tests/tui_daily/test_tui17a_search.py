"""Transcript search (issue 17, pi 1.6's Ctrl+Shift+F): type to search what the transcript draws, Enter /
Shift+Enter step through matches, the current one is highlighted and scrolled into view, Esc closes."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from tests.tui_daily.helpers import SIZE, send, start, tool_run


def _answer(n: int) -> str:
    body = "\n\n".join(f"Answer {n}, paragraph {i}." for i in range(20))
    return f"{body}\n\nThe needle number {n} is here."


async def _app_with_three_answers(project: Path, faux):
    app = await start(project, faux, [faux_text(_answer(n)) for n in range(3)])
    return app


def _visible(chat, match) -> bool:
    region = match.widget.content_region
    row = region.y + match.line
    return chat.scrollable_content_region.y <= row < chat.scrollable_content_region.bottom


async def test_search_steps_through_matches_and_scrolls_them_into_view(project: Path, faux) -> None:
    app = await _app_with_three_answers(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(3):
            await send(app, pilot, f"prompt {n}")
        chat, bar = app.chat, app.chat.search_bar
        await pilot.press("ctrl+shift+f")
        await pilot.pause()
        assert bar.is_open and bar.field.has_focus
        await pilot.press(*"NEEDLE number")
        await pilot.pause()
        assert len(bar.matches) == 3
        assert bar.index == 2  # the nearest one reading up from the bottom of the view
        count = bar.query_one(".-count")
        assert str(count.render()) == "3/3"
        await pilot.press("shift+enter")
        await pilot.pause()
        assert bar.index == 1 and _visible(chat, bar.current) and not chat.following
        selection = app.screen.selections
        assert list(selection) == [bar.current.widget]
        assert app.screen.get_selected_text() == "needle number"
        await pilot.press("shift+enter", "enter", "enter")
        await pilot.pause()
        assert bar.index == 2
        await pilot.press("enter")  # wraps
        await pilot.pause()
        assert bar.index == 0 and _visible(chat, bar.current)
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.is_open and not app.screen.selections
        assert app.editor.has_focus
        assert not app.session.is_streaming and app.editor.text == ""


async def test_ctrl_f_opens_search_and_no_match_says_so(project: Path, faux) -> None:
    app = await _app_with_three_answers(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "prompt 0")
        bar = app.chat.search_bar
        await pilot.press("ctrl+f")  # where the terminal sends Ctrl+Shift+F as Ctrl+F
        await pilot.press(*"zzz")
        await pilot.pause()
        assert bar.matches == [] and str(bar.query_one(".-count").render()) == "no matches"
        await pilot.press("enter")  # nothing to step to: no error, nothing submitted
        await pilot.pause()
        assert bar.is_open
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.is_open


async def test_searches_faster_than_frames_still_land_on_the_match(project: Path, faux) -> None:
    app = await start(project, faux, tool_run(10))
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "go")
        chat, bar = app.chat, app.chat.search_bar
        await pilot.press("ctrl+f")
        await pilot.pause()
        for query in ("s", "st", "ste", "step", "step ", "step 3"):  # one terminal read: no frame between
            bar.field.value = query
            bar.search(query)
        await pilot.pause()
        assert len(bar.matches) == 1 and _visible(chat, bar.current)
        assert app.screen.get_selected_text().lower() == "step 3"


def test_snapshot_search_bar_with_current_match(snap_compare, project: Path, faux) -> None:
    import asyncio

    from tests.tui.conftest import make_app, make_session

    faux.enqueue(*[faux_text(_answer(n)) for n in range(2)])
    app = make_app(asyncio.run(make_session(project)))

    async def run_before(pilot) -> None:
        for n in range(2):
            await send(pilot.app, pilot, f"prompt {n}")
        await pilot.press("ctrl+f", *"needle number 0")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
