"""pi 1.6's fullscreen transcript keys (issue 17): pages, top/bottom, jumps between user messages, and the
half-page/line actions through keybindings.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from tests.tui_daily.helpers import SIZE, send, start
from widgets.messages import UserMessageView


def _answer(n: int) -> str:
    return "\n\n".join(f"Answer {n}, paragraph {i}." for i in range(25))


async def _three_prompts(project: Path, faux, **kwargs):
    app = await start(project, faux, [faux_text(_answer(n)) for n in range(3)], **kwargs)
    return app


async def test_page_keys_scroll_the_transcript_over_the_editor(project: Path, faux) -> None:
    app = await _three_prompts(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(3):
            await send(app, pilot, f"prompt {n}")
        chat = app.chat
        app.editor.load_text("draft\nsecond line")
        app.editor.move_cursor((1, 3))
        await pilot.pause()  # the taller editor takes a row from the log
        bottom = chat.max_scroll_y
        page = chat.page_height() - 1
        await pilot.press("pageup")
        await pilot.pause()
        assert chat.scroll_y == bottom - page and not chat.following
        assert app.editor.cursor_location == (1, 3)  # the editor did not see the key
        assert app.editor.has_focus
        await pilot.press("pageup", "pagedown")
        await pilot.pause()
        assert chat.scroll_y == bottom - page
        await pilot.press("pagedown")
        await pilot.pause()
        assert chat.following and chat.scroll_y == chat.max_scroll_y


async def test_ctrl_home_and_ctrl_end_go_to_top_and_follow_again(project: Path, faux) -> None:
    app = await _three_prompts(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(2):
            await send(app, pilot, f"prompt {n}")
        chat = app.chat
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert chat.scroll_y == 0 and not chat.following
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert chat.following and chat.scroll_y == chat.max_scroll_y
        await send(app, pilot, "prompt 2")  # following: the new answer stays in view
        assert chat.scroll_y == chat.max_scroll_y


async def test_jumps_between_user_messages(project: Path, faux) -> None:
    app = await _three_prompts(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(3):
            await send(app, pilot, f"prompt {n}")
        chat = app.chat
        tops = [w.virtual_region.y for w in chat.query(UserMessageView)]
        assert len(tops) == 3
        await pilot.press("ctrl+shift+up")
        await pilot.pause()
        assert chat.scroll_y == tops[2]
        await pilot.press("ctrl+up")  # where the terminal cannot send Ctrl+Shift
        await pilot.pause()
        assert chat.scroll_y == tops[1]
        await pilot.press("ctrl+shift+up", "ctrl+shift+up")
        await pilot.pause()
        assert chat.scroll_y == 0  # before the first prompt: the top
        await pilot.press("ctrl+shift+down")
        await pilot.pause()
        assert chat.scroll_y == tops[0]
        await pilot.press("ctrl+down", "ctrl+down", "ctrl+down")
        await pilot.pause()
        assert chat.following and chat.scroll_y == chat.max_scroll_y


async def test_half_page_and_line_actions_from_keybindings_json(project: Path, faux) -> None:
    agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "keybindings.json").write_text(
        json.dumps(
            {
                "tui.altScreen.halfPageUp": "alt+u",
                "tui.altScreen.halfPageDown": "alt+d",
                "tui.altScreen.lineUp": "alt+k",
                "tui.altScreen.pageUp": [],
            }
        ),
        encoding="utf-8",
    )
    app = await _three_prompts(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "prompt 0")
        chat = app.chat
        bottom = chat.max_scroll_y
        half = chat.page_height() // 2
        await pilot.press("alt+u")
        await pilot.pause()
        assert chat.scroll_y == bottom - half
        await pilot.press("alt+k")
        await pilot.pause()
        assert chat.scroll_y == bottom - half - 1
        await pilot.press("alt+d")
        await pilot.pause()
        assert chat.scroll_y == bottom - 1
        await pilot.press("pageup")  # unbound by the file: nothing scrolls
        await pilot.pause()
        assert chat.scroll_y == bottom - 1


async def test_completion_list_keeps_the_page_keys(project: Path, faux) -> None:
    app = await _three_prompts(project, faux)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "prompt 0")
        chat = app.chat
        app.editor.focus()
        await pilot.press("/")
        await pilot.pause()
        assert app.menu.is_open
        await pilot.press("pageup")
        await pilot.pause()
        assert chat.following and chat.scroll_y == chat.max_scroll_y
