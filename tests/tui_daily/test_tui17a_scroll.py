"""Scrolling the transcript after a live run (issue 17): the end is always reachable, and what the terminal
shows matches the scroll position."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from tests.tui_daily.drawn import DrawnScreen
from tests.tui_daily.helpers import FINAL_LAST_LINE, SIZE, send, start, tool_run, wheel
from widgets.notices import InfoNotice


async def test_wheel_back_down_after_a_live_run_reaches_the_end(project: Path, faux) -> None:
    app = await start(project, faux, tool_run(10))
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await send(app, pilot, "go")
        chat = app.chat
        assert chat.scroll_y == chat.max_scroll_y > 0
        await wheel(app, pilot, -10)
        assert chat.scroll_y < chat.max_scroll_y and not chat.following
        assert FINAL_LAST_LINE not in drawn.text()
        await wheel(app, pilot, 20)  # twice the notches it went up
        assert chat.following and chat.scroll_y == chat.max_scroll_y
        # The terminal, not only the compositor, shows the last line of the answer above the editor.
        lines = drawn.lines()
        editor_top = app.editor.region.y
        assert FINAL_LAST_LINE in "\n".join(lines[editor_top - 3 : editor_top])


async def test_new_prompt_jumps_to_the_bottom_and_follows(project: Path, faux) -> None:
    answer = "\n\n".join(f"Second answer line {i}." for i in range(30)) + "\n\nSECOND DONE."
    app = await start(project, faux, [*tool_run(4), faux_text(answer)])
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await send(app, pilot, "first")
        chat = app.chat
        await wheel(app, pilot, -8)
        assert not chat.following
        await send(app, pilot, "second")
        assert chat.following and chat.scroll_y == chat.max_scroll_y
        assert "SECOND DONE." in drawn.text()
        assert not chat.badge.has_class("-visible")


async def test_new_output_badge_has_a_row_of_its_own(project: Path, faux) -> None:
    app = await start(project, faux, tool_run(4))
    async with app.run_test(size=SIZE) as pilot:
        drawn = DrawnScreen(app, *SIZE)
        await send(app, pilot, "go")
        chat = app.chat
        await wheel(app, pilot, -4)
        await chat.add(InfoNotice("something new"))
        await chat.add(InfoNotice("and more"))
        await pilot.pause()
        badge = chat.badge
        assert badge.has_class("-visible") and chat.badge_text == "↓ 2 new"
        assert not badge.region.overlaps(chat.region)
        row = drawn.lines()[badge.region.y]
        assert row.strip() == "↓ 2 new"  # nothing of the transcript around it
        await wheel(app, pilot, 20)
        assert chat.following and not badge.display
        assert "and more" in drawn.text()
