"""Mouse selection in the full app: drag over a finished answer, Ctrl+C copies it and keeps the draft."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from pi_app.tui.clipboard import MemoryClipboard
from tests.tui.conftest import SIZE, make_app, make_session
from widgets.messages import AssistantMessageView, UserMessageView


def _find(widget, needle: str) -> tuple[int, int]:
    """Screen-relative offset (inside ``widget.region``) of ``needle`` in its drawn content."""
    content = widget.content_region
    for y in range(content.height):
        col = widget.render_line(y).text.find(needle)
        if col >= 0:
            return col + content.x - widget.region.x, y + content.y - widget.region.y
    raise AssertionError(f"{needle!r} not drawn")


async def test_drag_then_ctrl_c_copies_selection_and_keeps_editor(project: Path, faux) -> None:
    answer = "The **answer** is forty-two, and the question is still unknown."
    faux.enqueue(faux_text(answer))
    session = await make_session(project)
    clipboard = MemoryClipboard()
    app = make_app(session, clipboard=clipboard)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("what is it?")
        await pilot.press("enter")
        await app.wait_until_idle()
        await pilot.pause()
        view = list(app.query(AssistantMessageView))[-1]
        frozen = view.query_one(".-frozen")
        app.editor.load_text("my next draft")
        await pilot.pause()

        x, y = _find(frozen, "forty-two")
        await pilot.mouse_down(frozen, offset=(x, y))
        await pilot.hover(frozen, offset=(x + 8, y))
        await pilot.mouse_up(frozen, offset=(x + 8, y))
        await pilot.pause()
        assert app.screen.get_selected_text() == "forty-two"

        await pilot.press("ctrl+c")
        await pilot.pause()
        assert clipboard.last == "forty-two"
        assert app.editor.text == "my next draft"
        assert not app.screen.selections  # the copy clears the selection; the next Ctrl+C clears the editor

        # Double-click selects a whole message: its Markdown source is what gets copied.
        user = list(app.query(UserMessageView))[-1]
        x, y = _find(user, "what")
        await pilot.click(user, offset=(x, y), times=2)
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert clipboard.last == "what is it?"
        assert app.editor.text == "my next draft"
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.editor.text == ""
        assert clipboard.last == "what is it?"
