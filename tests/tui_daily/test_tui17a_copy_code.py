"""Copying a code block from the keyboard (issue 17): on a selected message, b copies its first code block,
b again the next one; c still copies the whole message."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from pi_app.tui.clipboard import MemoryClipboard
from tests.tui_daily.helpers import SIZE, send, start
from widgets.conversation import code_blocks

ANSWER = "Two ways:\n\n```python\nprint('one')\n```\n\nor\n\n```sh\necho two\necho more\n```\n\nDone."


def test_code_blocks_of_markdown() -> None:
    assert code_blocks(ANSWER) == ["print('one')", "echo two\necho more"]
    assert code_blocks("    indented code\n\ntext") == ["indented code"]
    assert code_blocks("no code here, just `inline`") == []


async def test_b_copies_each_code_block_of_the_selected_message(project: Path, faux) -> None:
    clipboard = MemoryClipboard()
    app = await start(project, faux, [faux_text(ANSWER)], clipboard=clipboard)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "show me")
        await pilot.press("ctrl+x")
        assert app.selection.active
        await pilot.press("b")
        await pilot.pause()
        assert clipboard.last == "print('one')"
        assert app.chat.items[-1].text == "Copied code block 1 of 2 to clipboard"
        await pilot.press("b")
        await pilot.pause()
        assert clipboard.last == "echo two\necho more"
        await pilot.press("b")  # wraps to the first again
        await pilot.pause()
        assert clipboard.last == "print('one')"
        assert app.selection.active  # still selected: b steps on, c copies the whole message
        await pilot.press("up")  # the prompt: no code block
        await pilot.press("b")
        await pilot.pause()
        assert app.chat.items[-1].text == "The selected message has no code block"
        await pilot.press("down", "c")
        await pilot.pause()
        assert clipboard.last == ANSWER
        assert not app.selection.active


async def test_ctrl_x_cuts_text_selected_in_the_editor(project: Path, faux) -> None:
    app = await start(project, faux, [faux_text(ANSWER)])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "show me")
        app.editor.load_text("draft")
        app.editor.select_all()
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert app.editor.text == "" and not app.selection.active
        await pilot.press("ctrl+x")  # nothing selected in the editor: message selection
        await pilot.pause()
        assert app.selection.active
