from pi_app.ai.types import TextContent, ToolResultMessage
from tests.tui.session_helpers import wait_for
from tests.widgets.harness import PiTestApp
from widgets.chat_log import ChatLog
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel


async def test_tool_panel_state_transitions_and_live_args():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(120, 40)) as pilot:
        panel = ToolPanel("call_1", "edit", {})
        await log.add(panel)
        await pilot.pause()
        assert panel.has_class("-pending") and panel.build().plain == "edit ..."
        panel.update_args({"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]})
        # argument updates are throttled to ~30 fps: wait for the repaint, not for a fixed time
        await wait_for(pilot, lambda: "-1 x = 1\n+1 x = 2" in str(panel.content), "the live diff")
        pending_bg = panel.styles.background
        panel.set_running()
        panel.set_result(
            ToolResultMessage(
                toolCallId="call_1",
                toolName="edit",
                content=[TextContent(text="Successfully replaced 1 block(s) in a.py.")],
                details={"diff": " 1 a\n-2 x = 1\n+2 x = 2", "firstChangedLine": 2},
            )
        )
        await pilot.pause()
        assert panel.state == "success" and panel.has_class("-success") and not panel.has_class("-pending")
        assert str(panel.content).startswith("edit a.py:2")
        assert panel.styles.background != pending_bg

        failing = ToolPanel("call_2", "bash", {"command": "false"})
        await log.add(failing)
        failing.update_partial(ToolResultData("partial"))
        failing.set_result(ToolResultData("boom", is_error=True))
        await pilot.pause()
        assert failing.has_class("-error") and failing.state == "error"
        assert failing.styles.background not in (pending_bg, panel.styles.background)


async def test_expand_toggle_shows_everything():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(120, 40)) as pilot:
        panel = ToolPanel("c", "ls", {"path": "."})
        await log.add(panel)
        panel.set_result(ToolResultData("\n".join(f"f{i}" for i in range(30))))
        await pilot.pause()
        assert "... (10 more lines, ctrl+o to expand)" in str(panel.content)
        log.set_tools_expanded(True)
        await pilot.pause()
        assert "f29" in str(panel.content) and "more lines" not in str(panel.content)
