"""Snapshots of a conversation screen built from the widgets (fixed content: no clocks, spinners, real paths)."""

from textual.app import ComposeResult

from pi_app.ai.types import AssistantMessage, TextContent, ThinkingContent
from tests.widgets.harness import PiTestApp
from widgets.bash_view import BashExecutionView
from widgets.chat_log import ChatLog
from widgets.editor import PromptEditor
from widgets.footer import PiFooter
from widgets.footer_format import FooterData
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.no_model import NoModelPanel
from widgets.notices import ErrorNotice
from widgets.queue_area import QueueArea
from widgets.status_line import StatusLine
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel

HOME = "/home/tester"


class ConversationApp(PiTestApp):
    def compose(self) -> ComposeResult:
        log = ChatLog()
        log.compose_add_child(UserMessageView("Rename `beta` to **BETA** in notes.txt"))
        log.compose_add_child(
            AssistantMessageView.from_message(
                AssistantMessage(
                    content=[
                        ThinkingContent(thinking="The file is small; read it first."),
                        TextContent(
                            text="## Plan\n\n1. read the file\n2. edit it\n\n`notes.txt` has 3 lines."
                        ),
                    ]
                )
            )
        )
        read = ToolPanel("r1", "read", {"path": f"{HOME}/proj/app.py", "offset": 1, "limit": 12}, home=HOME)
        read.set_result(ToolResultData("\n".join(f"def f{i}(x):\n    return x + {i}" for i in range(7))))
        log.compose_add_child(read)
        edit = ToolPanel("e1", "edit", {"path": "notes.txt"}, home=HOME)
        edit.set_result(
            ToolResultData(
                "ok", details={"diff": " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma", "firstChangedLine": 2}
            )
        )
        log.compose_add_child(edit)
        bad = ToolPanel("b1", "bash", {"command": "make test", "timeout": 60}, home=HOME)
        bad.set_result(
            ToolResultData("\n".join(f"test {i} ... ok" for i in range(8)) + "\nFAILED", is_error=True)
        )
        log.compose_add_child(bad)
        bash = BashExecutionView("ls", clock=lambda: 0.0, tick=False)
        bash.append_output("a.txt\nb.txt\n")
        bash.finish(0)
        log.compose_add_child(bash)
        log.compose_add_child(ErrorNotice("Error: 429 rate limited"))
        yield log
        queue = QueueArea()
        queue.set_queues(["also update the docs"], ["then run the tests"])
        yield queue
        status = StatusLine(spinner=False)
        yield status
        editor = PromptEditor(blink=False)
        editor.thinking_level = "medium"
        yield editor
        yield PiFooter(
            FooterData(
                cwd=f"{HOME}/proj",
                home=HOME,
                git_branch="main",
                input_tokens=12_345,
                output_tokens=2_100,
                cost=0.0421,
                context_percent=76.3,
                context_window=200_000,
                model_id="claude-sonnet-4",
                reasoning=True,
                thinking_level="medium",
            )
        )

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(StatusLine).show_working()


class NoModelApp(PiTestApp):
    def compose(self) -> ComposeResult:
        yield NoModelPanel()


def test_conversation_snapshot(snap_compare):
    assert snap_compare(ConversationApp(), terminal_size=(120, 40))


def test_conversation_expanded_snapshot(snap_compare):
    async def expand(pilot):
        pilot.app.query_one(ChatLog).set_tools_expanded(True)
        pilot.app.query_one(ChatLog).scroll_to_latest()
        await pilot.pause()

    assert snap_compare(ConversationApp(), terminal_size=(120, 40), run_before=expand)


def test_no_model_snapshot(snap_compare):
    assert snap_compare(NoModelApp(), terminal_size=(120, 40))
