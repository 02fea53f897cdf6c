"""Shared steps of the daily-use tests: a scripted run of many tool turns, wheel notches as a terminal sends
them, and sending a prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from pi_app.ai.providers.faux import FauxResponse, faux_text, faux_tool
from tests.tui.conftest import make_app, make_session

SIZE = (120, 40)
FINAL_LAST_LINE = "THE END OF THE ANSWER."


def tool_run(turns: int = 10) -> list[FauxResponse]:
    """~``turns`` tool turns, then a final answer with a code block whose last line is FINAL_LAST_LINE."""
    responses = [
        faux_tool("bash", {"command": f"seq 1 {5 + i}"}, text=f"Step {i}: checking things carefully.")
        for i in range(turns)
    ]
    paragraphs = "\n\n".join(f"Paragraph {j} of the final answer." for j in range(15))
    responses.append(
        faux_text(f"## Final\n\n{paragraphs}\n\n```python\nprint('x')\n```\n\n{FINAL_LAST_LINE}")
    )
    return responses


async def start(project: Path, faux: Any, responses: list[FauxResponse], **kwargs: Any) -> Any:
    faux.enqueue(*responses)
    return make_app(await make_session(project), **kwargs)


async def send(app: Any, pilot: Any, text: str) -> None:
    """Type ``text`` into the editor and press Enter; returns once the run is over and drawn."""
    app.editor.load_text(text)
    app.editor.move_cursor(app.editor.document.end)
    app.menu.hide()
    await pilot.press("enter")
    await pilot.pause()
    await app.wait_until_idle()
    await pilot.pause()


async def wheel(app: Any, pilot: Any, notches: int, *, x: int = 50, y: int = 15) -> None:
    """Wheel notches over screen cell (x, y), through the app as the driver delivers them (the screen
    routes them to the widget under the pointer). Negative: up."""
    kind = events.MouseScrollUp if notches < 0 else events.MouseScrollDown
    for _ in range(abs(notches)):
        app.post_message(kind(None, x, y, 0, 0, 0, False, False, False, screen_x=x, screen_y=y))
        await pilot.pause()
