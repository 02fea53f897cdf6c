"""Scrolling the transcript after a live run (issue 17): the end is always reachable, and what the terminal
shows matches the scroll position."""

from __future__ import annotations

from pathlib import Path

from tests.tui_daily.drawn import DrawnScreen
from tests.tui_daily.helpers import FINAL_LAST_LINE, SIZE, send, start, tool_run, wheel


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
        await wheel(app, pilot, 60)
        assert chat.following and chat.scroll_y == chat.max_scroll_y
        # The terminal, not only the compositor, shows the last line of the answer above the editor.
        lines = drawn.lines()
        editor_top = app.editor.region.y
        assert FINAL_LAST_LINE in "\n".join(lines[editor_top - 3 : editor_top])
