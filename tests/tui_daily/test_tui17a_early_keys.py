"""Keys typed before the first frame are kept (issue 17): they reach the editor once it exists."""

from __future__ import annotations

from pathlib import Path

from textual import events

from pi_app.tui.app import PiApp
from tests.tui_daily.helpers import SIZE, start


class TypedWhileStarting(PiApp):
    """The terminal's input thread posts keys as they come; these are queued before the app has mounted
    (and long before anything is drawn), as when the user types while pi starts."""

    async def on_mount(self) -> None:
        for char in "hi there":
            self.post_message(events.Key("space" if char == " " else char, char))
        await super().on_mount()


async def test_keys_typed_while_the_app_starts_reach_the_editor(project: Path, faux) -> None:
    made = await start(project, faux, [])
    app = TypedWhileStarting(made.session, options=made.options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.editor.text == "hi there"
        assert app.editor.has_focus
