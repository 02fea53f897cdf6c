"""The user's own shell commands (``!cmd`` / ``!!cmd``), run with the bash tool's executor.

Output is sanitised the same way as the tool's (ANSI stripped, tail-truncated, full output saved to a temp
file past the limits); ``on_chunk`` receives the sanitised text as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pi_app.agent import Agent
from pi_app.ai.abort import AbortController, AbortSignal
from pi_app.session.messages import BashExecutionMessage
from pi_app.session.store import SessionManager
from pi_app.tools.bash import BashTool
from pi_app.tools.options import ToolOptions
from pi_app.tools.output import OutputAccumulator


@dataclass
class BashResult:
    """How the user's ``!cmd`` ended: its sanitised output, exit code, and whether it was cancelled or truncated."""

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


class _StreamingAccumulator(OutputAccumulator):
    def __init__(self, max_lines: int, max_bytes: int, on_chunk: Callable[[str], None] | None) -> None:
        super().__init__(max_lines, max_bytes, "pi-bash")
        self._on_chunk = on_chunk

    def _add_text(self, text: str) -> None:
        super()._add_text(text)
        if text and self._on_chunk is not None:
            self._on_chunk(text)


async def run_user_bash(
    command: str,
    cwd: str,
    options: ToolOptions,
    signal: AbortSignal | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> BashResult:
    """Run ``command`` (with the shell prefix) in ``cwd``; never raises for a failing command."""
    tool = BashTool(cwd, options)
    prefix = options.shell_command_prefix
    full = f"{prefix}\n{command}" if prefix else command
    lim = options.limits_for("bash")
    acc = _StreamingAccumulator(lim.max_lines, lim.max_bytes, on_chunk)
    try:
        outcome, code = await tool.run_command(full, None, signal, acc)
    except Exception as exc:  # shell missing, cwd gone: report it as the command's output
        acc.finish()
        acc.close()
        return BashResult(output=str(exc), exit_code=None, cancelled=False, truncated=False)
    acc.finish()
    snap = acc.snapshot()
    acc.close()
    cancelled = outcome != "exited"
    return BashResult(
        output=snap.content,
        exit_code=None if cancelled else code,
        cancelled=cancelled,
        truncated=bool(snap.truncated),
        full_output_path=acc.full_output_path if snap.truncated else None,
    )


class UserShell:
    """Runs the user's ``!cmd`` and records it as a bashExecution message; while the agent runs it is held
    back (between a tool call and its result it would break the turn) and added once the run ends."""

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        cwd: str,
        tool_options: ToolOptions,
        warn: Callable[[str], None],
    ) -> None:
        self._agent = agent
        self._sm = session_manager
        self._cwd = cwd
        self._tool_options = tool_options
        self._warn = warn
        self._controller: AbortController | None = None
        self._pending: list[BashExecutionMessage] = []

    @property
    def is_running(self) -> bool:
        return self._controller is not None

    async def execute(
        self,
        command: str,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], None] | None = None,
    ) -> BashResult:
        """Run ``command`` (``exclude_from_context``: pi's ``!!cmd``)."""
        if self._controller is not None:
            raise RuntimeError("A bash command is already running.")
        controller = AbortController()
        self._controller = controller
        try:
            result = await run_user_bash(command, self._cwd, self._tool_options, controller.signal, on_chunk)
        finally:
            self._controller = None
        self.record(command, result, exclude_from_context)
        return result

    def record(self, command: str, result: BashResult, exclude_from_context: bool = False) -> None:
        """Add a finished command to the context and the session (held back while the agent streams)."""
        message = BashExecutionMessage(
            command=command,
            output=result.output,
            exitCode=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            fullOutputPath=result.full_output_path,
            excludeFromContext=True if exclude_from_context else None,
        )
        if self._agent.state.is_streaming:
            self._pending.append(message)
        else:
            self._record(message)

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    def drop_pending(self) -> None:
        """The session moved elsewhere: commands held back for the old one are not recorded."""
        self._pending.clear()

    def flush_pending(self) -> None:
        if self._agent.state.is_streaming:
            return
        pending, self._pending = self._pending, []
        for message in pending:
            self._record(message)

    def _record(self, message: BashExecutionMessage) -> None:
        self._agent.append_message(message)
        try:
            self._sm.append_message(message)
        except OSError as exc:
            self._warn(f"Could not write session file {self._sm.session_file}: {exc}")
