"""Extension shortcuts through keybindings.json (Pilot): remapped by ``ext.<extension>.<name>``, listed in
/hotkeys with the keys in effect, clashes (with the app and between extensions) and bad entries reported."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from textual.widgets import Static

from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.session.config.paths import agent_dir
from tests.extensions.helpers import write_ext
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

EXT = """
def register(pi):
    pi.register_shortcut("f9", lambda ctx: ctx.ui.set_editor_text("filled"), description="Fill", name="fill")
    pi.register_shortcut("f6", lambda ctx: ctx.ui.set_editor_text("other"), description="Other")
    pi.register_shortcut("f5", lambda ctx: None, description="Moved onto the app", name="moved")
    pi.register_shortcut("f4", lambda ctx: None, description="Badly remapped", name="bad")

    def late(event, ctx):  # registered by a handler, after the app read its keys
        pi.register_shortcut("f3", lambda ctx: ctx.ui.set_editor_text("late"), description="Late")

    pi.on("session_start", late)
"""

SECOND = """
def register(pi):
    pi.register_shortcut("f6", lambda ctx: ctx.ui.set_editor_text("second"), description="Same key")
"""


async def _app(tmp_path: Path) -> Any:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    sources = [
        ExtensionSource(str(write_ext(tmp_path / "ext", "keys.py", EXT)), "temporary"),
        ExtensionSource(str(write_ext(tmp_path / "ext", "second.py", SECOND)), "temporary"),
    ]
    await runner.load(sources)
    runner.bind(session)
    return make_app(session, extensions=runner)


def _chat_text(app: Any) -> str:
    return "\n".join(str(w.render()) for w in app.chat.query(Static))


async def test_remapped_listed_and_clashes_reported(tmp_path, faux):
    path = agent_dir() / "keybindings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"ext.keys.fill": "f7", "ext.keys.moved": "ctrl+g", "ext.keys.bad": "hyper+q"}),
        encoding="utf-8",
    )
    app = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "ext.keys.moved" in _chat_text(app), "the clash warnings")
        text = _chat_text(app)
        assert "Extension shortcut ctrl+g (keys) is already bound to" in text
        assert 'remap it in keybindings.json as "ext.keys.moved"' in text
        assert "Extension shortcut f6 (second) is already bound to 'keys: Other'" in text
        assert "'ext.keys.bad': unknown or repeated modifier 'hyper'" in text
        assert "unknown action 'ext." not in text  # the app's own loader leaves ext.* ids alone

        await pilot.press("f9")  # the registered key no longer fires
        await pilot.press("f7")
        await wait_for(pilot, lambda: app.editor.text == "filled", "the remapped shortcut")
        await pilot.press("f6")  # the first extension keeps a shared key
        await wait_for(pilot, lambda: app.editor.text == "other", "the earlier shortcut")

        await pilot.press("f3")
        await wait_for(pilot, lambda: app.editor.text == "late", "the shortcut registered at session_start")

        hotkeys = app.hotkeys_text()
        assert re.search(r"f7 +Fill \(keys\) \[ext.keys.fill\]", hotkeys)
        assert "Other (keys) [ext.keys.f6]" in hotkeys
