"""The user's own shell commands (``!cmd`` / ``!!cmd``), run with the bash tool's executor.

Output is sanitised the same way as the tool's (ANSI stripped, tail-truncated, full output saved to a temp
file past the limits); ``on_chunk`` receives the sanitised text as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.ai.abort import AbortController, AbortSignal
from pi_app.session.messages import BashExecutionMessage
from pi_app.tools.bash import BashTool
from pi_app.tools.options import ToolOptions
from pi_app.tools.output import OutputAccumulator

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession


@dataclass
class BashResult:
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


class _StreamingAccumulator(OutputAccumulator):
    def __init__(self, max_lines: int, max_bytes: int, on_chunk: Callable[[str], Any] | None) -> None:
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
    on_chunk: Callable[[str], Any] | None = None,
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


class UserBashMixin:
    _bash_controller: AbortController | None
    _pending_bash: list[BashExecutionMessage]

    async def execute_bash(
        self: AgentSession,
        command: str,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], Any] | None = None,
    ) -> BashResult:
        """Run the user's ``!cmd`` (``!!cmd``: ``exclude_from_context``) and record it as a bashExecution
        message; while the agent runs it is held back and added once the run ends."""
        if self._bash_controller is not None:
            raise RuntimeError("A bash command is already running.")
        controller = AbortController()
        self._bash_controller = controller
        try:
            result = await run_user_bash(command, self.cwd, self._tool_options, controller.signal, on_chunk)
        finally:
            self._bash_controller = None
        message = BashExecutionMessage(
            command=command,
            output=result.output,
            exitCode=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            fullOutputPath=result.full_output_path,
            excludeFromContext=True if exclude_from_context else None,
        )
        if self.agent.state.is_streaming:
            self._pending_bash.append(message)  # between a tool call and its result would break the turn
        else:
            self._record_bash(message)
        return result

    def abort_bash(self: AgentSession) -> None:
        if self._bash_controller is not None:
            self._bash_controller.abort()

    def _record_bash(self: AgentSession, message: BashExecutionMessage) -> None:
        self.agent.append_message(message)
        try:
            self.session_manager.append_message(message)
        except OSError as exc:
            self.resource_warnings.append(f"Could not write session file {self.session_file}: {exc}")

    def _flush_pending_bash(self: AgentSession) -> None:
        if self.agent.state.is_streaming:
            return
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self._record_bash(message)
