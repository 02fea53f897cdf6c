"""examples/extensions/bookmarks.py in the app (Pilot): a bookmark shows as a card and in the header, ``#``
completes its name, and a resumed session shows the card and the header again."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from pi_app.ai.providers.faux import faux_text
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.session.store import SessionManager
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extensions" / "bookmarks.py"


async def _app(tmp_path: Path, session: Any = None) -> tuple[Any, Any]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = session or await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(EXAMPLE), "temporary")])
    assert runner.failures == []
    runner.bind(session)
    return make_app(session, extensions=runner), session


def _text(app: Any) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


async def test_bookmarks_card_header_completion_and_resume(tmp_path, faux):
    app, session = await _app(tmp_path)
    faux.enqueue(faux_text("noted"))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("hello")  # the session file is written from the first answer on
        await wait_for(pilot, lambda: "noted" in _text(app) and not session.is_streaming, "the answer")
        app.submit("/bookmark before-refactor")
        await wait_for(pilot, lambda: "🔖 #before-refactor" in _text(app), "the card")
        await wait_for(pilot, lambda: "bookmarks: 1" in _text(app), "the header")
        await pilot.click("#editor")
        await pilot.press(*"back to #bef")
        await wait_for(pilot, lambda: app.menu.is_open, "the bookmark suggestion")
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.editor.text == "back to #before-refactor ", "the completed name")

    resumed = await make_session(tmp_path / "proj", session=SessionManager.open(session.session_file))
    app2, _ = await _app(tmp_path, resumed)
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: "🔖 #before-refactor" in _text(app2) and "bookmarks: 1" in _text(app2),
            "the card and header after resume",
        )
