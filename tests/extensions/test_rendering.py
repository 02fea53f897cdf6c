"""Extension rendering in the app: a tool's render_call/render_result, custom message renderers, live and
resumed alike, and a raising renderer contained to its own line (Pilot and a snapshot)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from widgets.tool_panel import ToolPanel

from .helpers import write_ext

EXT = """
from rich.panel import Panel
from rich.text import Text
from pi_app.extensions import ToolDefinition

async def weather(call_id, params, signal, on_update, ctx):
    return {"content": [{"type": "text", "text": "sunny, 21C"}], "details": {"temp": 21}}

def render_call(args):
    return Text("☀ weather for " + args.get("city", "?"), style="bold")

def render_result(result, expanded):
    return Panel(result.text, title="forecast" + (" (full)" if expanded else ""))

def broken(message, expanded):
    raise ValueError("cannot draw this")

def register(pi):
    pi.register_tool(ToolDefinition(
        name="weather", description="Weather for a city", execute=weather,
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        render_call=render_call, render_result=render_result,
    ))
    pi.register_message_renderer("note", lambda m, expanded: ["NOTE", "  " + m.content])
    pi.register_message_renderer("broken", broken)

    async def notes(args, ctx):
        await pi.send_message("note", "remember the milk")
        await pi.send_message("broken", "never drawn")
    pi.register_command("notes", notes)
"""


async def _app(tmp_path: Path, session=None):
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = session or await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(write_ext(tmp_path / "ext", "render.py", EXT)), "temporary")])
    runner.bind(session)
    return make_app(session, extensions=runner), session


def _text(app) -> str:
    """What the screen shows, as plain text (the SVG screenshot's text runs)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def _answered(session) -> bool:
    return session.get_last_assistant_text() == "Take a jacket." and not session.is_streaming


async def test_custom_tool_and_message_rendering_live_and_resumed(tmp_path, faux):
    app, session = await _app(tmp_path)
    faux.enqueue(faux_tool("weather", {"city": "Oslo"}), faux_text("Take a jacket."))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("weather?")
        await wait_for(
            pilot, lambda: "Take a jacket" in _text(app) and not session.is_streaming, "the answer"
        )
        panel = app.chat.query_one(ToolPanel)
        assert panel.custom is not None
        await pilot.pause()
        shown = _text(app)
        assert "weather for Oslo" in shown and "forecast" in shown and "sunny, 21C" in shown
        app.submit("/notes")
        await wait_for(pilot, lambda: "Extension renderer failed" in _text(app), "the contained failure")
        text = _text(app)
        assert "NOTE" in text and "remember the milk" in text
        assert "Extension renderer failed (render): ValueError: cannot draw this" in text
        assert "never drawn" not in text  # the broken renderer's message shows only its error line

    from pi_app.session.store import SessionManager

    resumed_session = await make_session(tmp_path / "proj", session=SessionManager.open(session.session_file))
    app2, _ = await _app(tmp_path, resumed_session)
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "NOTE" in _text(app2), "the resumed chat")
        assert "weather for Oslo" in _text(app2)


def test_custom_tool_rendering_snapshot(snap_compare, tmp_path, faux) -> None:
    app, session = asyncio.run(_app(tmp_path))
    faux.enqueue(faux_tool("weather", {"city": "Oslo"}), faux_text("Take a jacket."))

    async def run_before(pilot) -> None:
        app.submit("weather?")
        await wait_for(
            pilot, lambda: "Take a jacket" in _text(app) and not session.is_streaming, "the answer"
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
