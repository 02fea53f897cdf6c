"""Ctrl+V with an image on the clipboard (as pi): an ``[Image #N]`` marker in the editor, the image sent with
the prompt (resized as pi does), a deleted marker drops its image, and no image means a normal paste."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from pi_app.ai.providers.faux import faux_text
from pi_app.tui.clipboard import MemoryClipboard
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for


def _png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


async def test_ctrl_v_attaches_the_clipboard_image_and_sends_it(project: Path, faux) -> None:
    clipboard = MemoryClipboard(image=_png((3000, 1000)))
    session = await make_session(project)
    app = make_app(session, clipboard=clipboard)
    faux.enqueue(faux_text("a blue rectangle"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+v")
        assert app.editor.text == "[Image #1]"
        await pilot.press(*" what is this?")
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.get_last_assistant_text() == "a blue rectangle", "the answer")
        user = faux.requests[-1].messages[-1]
        kinds = [c.type for c in user.content]
        assert kinds == ["text", "image"] and user.content[0].text == "what is this?"
        import base64

        sent = Image.open(io.BytesIO(base64.b64decode(user.content[1].data)))
        assert sent.size == (2000, 667)  # resized to pi's 2000x2000 box


async def test_a_deleted_marker_drops_its_image_and_text_paste_still_works(project: Path, faux) -> None:
    clipboard = MemoryClipboard(image=_png((10, 10)))
    session = await make_session(project)
    app = make_app(session, clipboard=clipboard)
    faux.enqueue(faux_text("ok"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+v")
        app.editor.load_text("no picture after all")  # the marker is gone
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.get_last_assistant_text() == "ok", "the answer")
        assert [c.type for c in faux.requests[-1].messages[-1].content] == ["text"]
        clipboard.image = None
        app.editor.load_text("")
        await pilot.press("ctrl+v")  # nothing on the system clipboard: TextArea's own paste, no marker
        assert "[Image" not in app.editor.text
