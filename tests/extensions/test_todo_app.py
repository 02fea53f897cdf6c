"""examples/extensions/todo.py in the app: the list as a widget above the editor and its calls drawn by the
tool's own render_call / render_result."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tools
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

from .test_rendering import _text

TODO = Path(__file__).resolve().parents[2] / "examples" / "extensions" / "todo.py"


async def test_todo_widget_and_custom_rendering(tmp_path, faux):
    project = tmp_path / "proj"
    project.mkdir()
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(TODO), "temporary")])
    runner.bind(session)
    app = make_app(session, extensions=runner)
    faux.enqueue(
        faux_tools(
            ("todo", {"action": "add", "text": "write tests"}), ("todo", {"action": "add", "text": "ship"})
        ),
        faux_tools(("todo", {"action": "done", "id": 1})),
        faux_text("Planned."),
    )
    async with app.run_test(size=SIZE) as pilot:
        app.submit("plan it")
        await wait_for(pilot, lambda: session.get_last_assistant_text() == "Planned.", "the answer")
        await wait_for(pilot, lambda: app.widgets_above.keys == ["todos"], "the todo widget")
        await pilot.pause()
        shown = _text(app)
        assert "Todos 1/2" in shown and "✓ write tests" in shown and "· ship" in shown
        assert "todo add write tests" in shown and "todo done #1" in shown
        assert '"action"' not in shown  # the calls are drawn by the tool, not as JSON
