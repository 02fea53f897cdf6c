"""The app driven by a real AgentSession on the faux provider."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tool
from tests.tui.conftest import SIZE, make_app, make_session
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.tool_panel import ToolPanel


async def test_prompt_streams_answer_tool_panels_and_footer(project: Path, faux) -> None:
    faux.enqueue(
        faux_tool("ls", {"path": "."}, text="Let me look.", usage={"input": 1200, "output": 30}),
        faux_text("There are **two** entries.", usage={"input": 1500, "output": 40}),
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("what is here?")
        await pilot.press("enter")
        await pilot.pause()
        await app.wait_until_idle()
        await pilot.pause()
        users = list(app.query(UserMessageView))
        assert [u.text for u in users] == ["what is here?"]
        answers = list(app.query(AssistantMessageView))
        assert answers[-1].text == "There are **two** entries."
        assert all(a.finalized for a in answers)
        panels = list(app.query(ToolPanel))
        assert len(panels) == 1 and panels[0].tool_name == "ls"
        assert panels[0].state == "success"
        assert "notes.txt" in panels[0].result.output
        data = app.footer.data
        assert (data.input_tokens, data.output_tokens) == (2700, 70)
        assert data.model_id == "faux-1"
        lines = [line.plain for line in app.footer.lines()]
        assert "↑2.7k ↓70" in lines[1]
        assert lines[0].startswith("/work/proj")
