"""A tool execution box: created when the tool call starts streaming so arguments render live.

State is a CSS class (``-pending`` → ``-success`` / ``-error``) over ``$pi-tool-*-bg`` backgrounds.
Updates are coalesced to ~30 fps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from pi_app.ai.types import ToolResultMessage
from pi_app.tools.presenters import presenter_for
from widgets.custom_render import ToolRenderers, render_tool
from widgets.rendering import Throttle, on_theme_change
from widgets.tool_format import ToolResultData, format_tool, format_tool_duration

TIMED_TOOLS = frozenset({"bash"})  # pi shows "Took Ns" under these

ToolState = Literal["pending", "running", "success", "error"]


class ToolPanel(Static):
    DEFAULT_CSS = """
    ToolPanel {
        padding: 1 1;
        margin: 1 0 0 0;
        height: auto;
        background: $pi-tool-pending-bg;
        color: $pi-tool-output;
    }
    ToolPanel.-success { background: $pi-tool-success-bg; }
    ToolPanel.-error { background: $pi-tool-error-bg; }
    """

    expanded: var[bool] = var(False)

    def __init__(
        self,
        tool_call_id: str,
        name: str,
        args: dict[str, Any] | None = None,
        home: str | None = None,
        expanded: bool = False,
        clock: Callable[[], float] = time.monotonic,
        custom: ToolRenderers | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(classes="-pending", **kwargs)
        self.custom = custom  # an extension's render_call / render_result for this tool
        self._clock = clock
        self._started: float | None = None  # set when the tool starts running (not for stored history)
        self.took: float | None = None
        self.tool_call_id = tool_call_id
        self.tool_name = name
        self.args: dict[str, Any] = dict(args or {})
        self.home = home
        self.state: ToolState = "pending"
        self.result: ToolResultData | None = None
        self.set_reactive(ToolPanel.expanded, expanded)
        self._throttle = Throttle(self, self._render_panel)

    def on_mount(self) -> None:
        self._render_panel()
        # Previews and diffs are Content styled with $pi-* variables, resolved when rendered: re-render so
        # a theme switch reaches text already on screen.
        on_theme_change(self, self._render_panel)

    def on_resize(self) -> None:
        if presenter_for(self.tool_name).body == "tail":  # tail previews count visual lines (width-bound)
            self._throttle()

    # --------------------------------------------------------------- driven by agent events
    def update_args(self, args: dict[str, Any]) -> None:
        """Streaming tool-call arguments (partial JSON already parsed by the provider layer)."""
        self.args = dict(args or {})
        self._throttle()

    def set_running(self) -> None:
        if self._started is None:
            self._started = self._clock()
        self.state = "running"
        self._throttle()

    def update_partial(self, result: ToolResultData) -> None:
        """``tool_execution_update``: partial output while the tool runs."""
        self.state = "running"
        self.result = result
        self._throttle()

    def set_result(self, result: ToolResultData | ToolResultMessage) -> None:
        """``tool_execution_end`` / the tool result message."""
        if isinstance(result, ToolResultMessage):
            result = ToolResultData.from_content(result.content, result.details, result.isError)
        self.result = result
        if self._started is not None and self.took is None:
            self.took = max(0.0, self._clock() - self._started)
        self.state = "error" if result.is_error else "success"
        self.set_class(False, "-pending")
        self.set_class(self.state == "success", "-success")
        self.set_class(self.state == "error", "-error")
        if self.is_mounted:
            self._throttle.flush()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._render_panel()

    # --------------------------------------------------------------- rendering
    def build(self) -> Any:
        if self.custom is not None:
            return render_tool(self.custom, self.tool_name, self.args, self.result, self.expanded)
        width = self.content_size.width or None
        content = format_tool(self.tool_name, self.args, self.result, self.expanded, self.home, width)
        if self.took is not None and self.tool_name in TIMED_TOOLS:
            took = Content.styled(f"Took {format_tool_duration(self.took)}", "$pi-muted")
            content = Content("\n").join([content, Content(""), took])
        return content

    def _render_panel(self) -> None:
        self.update(self.build())
