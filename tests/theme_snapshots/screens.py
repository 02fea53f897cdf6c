"""Fixed-content screens for the per-theme snapshots (no clocks, spinners or real paths).

A screen is a function returning the widgets to compose (or a whole `Screen`, which is pushed on mount);
`ScreenApp(build, theme)` hosts it with every built-in pi theme registered and `theme` active. Adding a screen to the snapshots is one builder here
and one test function in test_theme_snapshots.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widget import Widget

import themes
from pi_app.ai.types import AssistantMessage, TextContent, ThinkingContent
from themes import textual_adapter
from widgets.chat_log import ChatLog
from widgets.editor import PromptEditor
from widgets.footer import PiFooter
from widgets.footer_format import FooterData
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.queue_area import QueueArea
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel

HOME = "/home/tester"
SIZE = (120, 40)

ScreenBuilder = Callable[[], Iterable[Widget] | Screen[object]]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"

ANSWER = """\
Change `greet` in **app.py** to say *hello*, as [the docs](https://example.com/docs) ask:

```python
def greet(name: str) -> str:
    return f"hello {name}" * 2  # friendlier
```"""

EDIT_DIFF = (
    "  9 def greet(name: str) -> str:\n-10     return 'hi ' + name\n+10     return f\"hello {name}\" * 2"
)


def conversation() -> Iterable[Widget]:
    """A finished turn: user prompt, thinking + markdown with a code block, success (edit diff),
    error (bash) and pending (read) tool panels, queued messages, editor and footer."""
    log = ChatLog()
    log.compose_add_child(UserMessageView("Make `greet` say **hello**"))
    log.compose_add_child(
        AssistantMessageView.from_message(
            AssistantMessage(
                content=[
                    ThinkingContent(thinking="A one-line change; the tests cover greet()."),
                    TextContent(text=ANSWER),
                ]
            )
        )
    )
    edit = ToolPanel("e1", "edit", {"path": f"{HOME}/proj/app.py"}, home=HOME)
    edit.set_result(ToolResultData("ok", details={"diff": EDIT_DIFF, "firstChangedLine": 10}))
    log.compose_add_child(edit)
    bash = ToolPanel("b1", "bash", {"command": "pytest -q", "timeout": 60}, home=HOME)
    bash.set_result(ToolResultData("FAILED test_app.py::test_greet - AssertionError", is_error=True))
    log.compose_add_child(bash)
    log.compose_add_child(ToolPanel("r1", "read", {"path": f"{HOME}/proj/test_app.py"}, home=HOME))
    yield log
    queue = QueueArea()
    queue.set_queues(["use double quotes"], ["then update the changelog"])
    yield queue
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
            context_percent=36.3,
            context_window=200_000,
            model_id="claude-sonnet-4",
            reasoning=True,
            thinking_level="medium",
        )
    )


def tree_browser() -> Screen[object]:
    """The /tree browser on a branched session (default filter, a label, the active path marked)."""
    from pi_app.session.store import SessionManager
    from widgets.tree import TreeModel
    from widgets.tree.screen import TreeBrowserScreen

    sm = SessionManager.open(FIXTURES / "branched.jsonl")
    model = TreeModel.from_session(sm, home=HOME)
    model.set_label("b0b00004", "argparse-done")
    return TreeBrowserScreen(model)  # type: ignore[return-value]


class ScreenApp(App[None]):
    """Hosts one screen builder with pi theme `theme` active."""

    def __init__(self, build: ScreenBuilder, theme: str = "dark") -> None:
        super().__init__()
        self._build = build
        self._theme_name = theme
        self._screen: Screen[object] | None = None

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults()

    def on_mount(self) -> None:
        textual_adapter.register_all(self)
        self.theme = self._theme_name
        if self._screen is not None:
            self.push_screen(self._screen)

    def compose(self) -> ComposeResult:
        built = self._build()
        if isinstance(built, Screen):
            self._screen = built
            return
        yield from built
