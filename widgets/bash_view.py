"""``!cmd`` user bash execution: live output, elapsed time (injectable clock), exit status."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from widgets.footer_format import to_fixed
from widgets.rendering import Throttle
from widgets.tool_format import EXPAND_KEY

PREVIEW_LINES = 5


class BashExecutionView(Static):
    DEFAULT_CSS = """
    BashExecutionView {
        border: round $pi-bash-mode;
        padding: 0 1;
        margin: 1 0 0 0;
        height: auto;
    }
    BashExecutionView.-error { border: round $pi-error; }
    BashExecutionView.-excluded { border: round $pi-dim; }
    BashExecutionView.-excluded.-error { border: round $pi-error; }
    """

    EXCLUDED_NOTE = "!! output kept out of the context (not sent to the model)"

    expanded: var[bool] = var(False)

    def __init__(
        self,
        command: str,
        clock: Callable[[], float] = time.monotonic,
        tick: bool = True,
        exclude_from_context: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.command = command
        self.exclude_from_context = exclude_from_context
        self.set_class(exclude_from_context, "-excluded")
        self.output = ""
        self.status: str = "running"  # running | done | error | cancelled
        self.exit_code: int | None = None
        self.full_output_path: str | None = None
        self._clock = clock
        self._started = clock()
        self._ended: float | None = None
        self._tick = tick
        self._throttle = Throttle(self, self._render_view)

    def on_mount(self) -> None:
        self._render_view()
        if self._tick:
            self._timer = self.set_interval(1.0, self._render_view)

    @property
    def elapsed(self) -> float:
        return (self._ended if self._ended is not None else self._clock()) - self._started

    def append_output(self, chunk: str) -> None:
        self.output += chunk.replace("\r", "")
        self._throttle()

    def finish(
        self, exit_code: int | None, cancelled: bool = False, full_output_path: str | None = None
    ) -> None:
        self._ended = self._clock()
        self.exit_code = exit_code
        self.full_output_path = full_output_path
        if cancelled:
            self.status = "cancelled"
        elif exit_code not in (0, None):
            self.status = "error"
        else:
            self.status = "done"
        self.set_class(self.status == "error", "-error")
        if getattr(self, "_timer", None) is not None:
            self._timer.stop()
        if self.is_mounted:
            self._throttle.flush()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._render_view()

    def build(self) -> Content:
        lines: list[Content] = [Content.styled(f"$ {self.command}", "$pi-bash-mode bold")]
        if self.exclude_from_context:
            lines.append(Content.styled(self.EXCLUDED_NOTE, "$pi-dim italic"))
        out_lines = self.output.rstrip("\n").split("\n") if self.output.strip() else []
        shown = out_lines if self.expanded else out_lines[-PREVIEW_LINES:]
        hidden = len(out_lines) - len(shown)
        if shown:
            lines.append(Content(""))
            lines.extend(Content.styled(line, "$pi-muted") for line in shown)
        seconds = f"{to_fixed(self.elapsed, 1)}s"
        if self.status == "running":
            lines.append(Content(""))
            lines.append(Content.styled(f"Running... {seconds} (esc to cancel)", "$pi-muted"))
            return Content("\n").join(lines)
        status: list[Content] = []
        if hidden > 0:
            status.append(
                Content.assemble(
                    Content.styled(f"... {hidden} more lines", "$pi-muted"), f" ({EXPAND_KEY} to expand)"
                )
            )
        elif self.expanded and len(out_lines) > PREVIEW_LINES:
            status.append(Content(f"({EXPAND_KEY} to collapse)"))
        if self.status == "cancelled":
            status.append(Content.styled("(cancelled)", "$pi-warning"))
        elif self.status == "error":
            status.append(Content.styled(f"(exit {self.exit_code})", "$pi-error"))
        status.append(Content.styled(f"took {seconds}", "$pi-dim"))
        if self.full_output_path:
            status.append(
                Content.styled(f"Output truncated. Full output: {self.full_output_path}", "$pi-warning")
            )
        lines.append(Content(""))
        lines.extend(status)
        return Content("\n").join(lines)

    def _render_view(self) -> None:
        self.update(self.build())
