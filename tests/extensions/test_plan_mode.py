"""examples/extensions/plan_mode.py in the app: a shortcut and a command toggle read-only tools, a status
slot and a widget above the editor show the mode and the plan's steps."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

PLAN_MODE = Path(__file__).resolve().parents[2] / "examples" / "extensions" / "plan_mode.py"


async def test_plan_mode_toggles_tools_status_and_shows_the_plan(tmp_path, faux):
    project = tmp_path / "proj"
    project.mkdir()
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(PLAN_MODE), "temporary")])
    runner.bind(session)
    before = list(session.tool_names)
    app = make_app(session, extensions=runner)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await wait_for(pilot, lambda: app.extension_status.entries.get("plan"), "the plan-mode status")
        assert session.tool_names == ["read", "grep", "find", "ls"]  # the read-only built-ins
        faux.enqueue(faux_text("Here is the plan:\n1. Read the config loader\n2. Add the new key\nDone."))
        app.submit("add a setting")
        await wait_for(pilot, lambda: app.widgets_above.keys == ["plan"], "the plan widget")
        request = faux.requests[-1]
        assert "You are in plan mode" in request.systemPrompt
        assert [t.name for t in request.tools or []] == ["read", "grep", "find", "ls"]
        app.submit("/plan")
        await wait_for(pilot, lambda: not app.extension_status.entries, "plan mode off")
        assert session.tool_names == before and app.widgets_above.keys == []


async def test_plan_flag_starts_in_plan_mode(tmp_path, faux):
    project = tmp_path / "proj"
    project.mkdir()
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(PLAN_MODE), "temporary")])
    runner.flag_values = {"plan": True}
    runner.bind(session)
    await runner.start()
    assert session.tool_names == ["read", "grep", "find", "ls"]
