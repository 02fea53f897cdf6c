"""The ``bash`` tool: run a command in its own process group, stream its output, kill the whole tree on
timeout or abort. What it leaves running in the background is tracked by :mod:`process_registry`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal as signals
import subprocess
import time
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import TextContent
from pi_app.tools import process_registry
from pi_app.tools.common import req_str
from pi_app.tools.options import ToolOptions
from pi_app.tools.output import OutputAccumulator
from pi_app.tools.truncate import TruncationResult, format_size

UPDATE_INTERVAL_S = 0.1
EXIT_STDIO_GRACE_S = 0.1  # after the shell exits, how long to wait for output still in the pipe
KILL_GRACE_S = 2.0
READ_CHUNK = 64 * 1024


def shell_config(shell_path: str | None, settings_hint: str) -> list[str]:
    if shell_path:
        if os.path.exists(shell_path):
            return [shell_path, "-c"]
        raise ToolError(
            f"Custom shell path not found: {shell_path}\nPlease update shellPath in {settings_hint}"
        )
    if os.path.exists("/bin/bash"):
        return ["/bin/bash", "-c"]
    found = shutil.which("bash")
    return [found or "sh", "-c"]


def shell_env(bin_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    path = env.get("PATH", "")
    if bin_dir not in path.split(os.pathsep):
        env["PATH"] = os.pathsep.join(p for p in (bin_dir, path) if p)
    return env


async def kill_process_group(pgid: int) -> None:
    """SIGTERM the group, then SIGKILL whatever is still alive after the grace period."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signals.SIGTERM)
    deadline = time.monotonic() + KILL_GRACE_S
    while time.monotonic() < deadline:
        if not process_registry.group_alive(pgid):
            return
        await asyncio.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signals.SIGKILL)


def _format_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class BashTool(AgentTool):
    name = "bash"
    label = "bash"
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command line to run"},
            "timeout": {
                "type": "number",
                "description": "Give up after this many seconds (default: no limit)",
            },
        },
        "required": ["command"],
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()
        lim = self.options.limits_for("bash")
        self.description = (
            "Run a command with bash in the working directory; stdout and stderr come back together. Only "
            f"the last {lim.max_lines} lines or {lim.max_bytes // 1024}KB are shown (whichever is less); when "
            "output is cut, the complete output is saved to a temp file whose path is given. timeout is "
            "optional, in seconds."
        )

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        command = req_str(params, "command")
        timeout = params.get("timeout")
        if timeout is None or isinstance(timeout, bool):
            timeout = self.options.bash_timeout
        else:
            try:
                timeout = float(timeout)
            except (TypeError, ValueError):
                raise ToolError(f"timeout must be a number, got {timeout!r}") from None
        prefix = self.options.shell_command_prefix
        if prefix:
            command = f"{prefix}\n{command}"
        lim = self.options.limits_for("bash")
        acc = OutputAccumulator(lim.max_lines, lim.max_bytes, "pi-bash")
        updater = _Updater(acc, on_update)
        try:
            outcome, code = await self.run_command(command, timeout, signal, acc, updater)
        finally:
            acc.finish()
            updater.flush()
            updater.close()
            acc.close()

        if outcome == "aborted":
            raise ToolError(_with_status(self._render(acc)[0], "Command aborted"))
        if outcome == "timeout":
            assert timeout is not None
            secs = _format_seconds(timeout)
            raise ToolError(_with_status(self._render(acc)[0], f"Command timed out after {secs} seconds"))
        text, details = self._render(acc, "(no output)")
        if code is not None and code != 0:
            raise ToolError(_with_status(text, f"Command exited with code {code}"))
        return AgentToolResult(content=[TextContent(text=text)], details=details)

    async def run_command(
        self,
        command: str,
        timeout: float | None,
        signal: AbortSignal | None,
        acc: OutputAccumulator,
        updater: _Updater | None = None,
    ) -> tuple[str, int | None]:
        """Run ``command`` as given (no prefix added), feeding output into ``acc``.

        Returns ``(outcome, exit_code)`` with outcome "exited", "aborted" or "timeout". Shared by the tool
        and the user's own ``!cmd`` so both kill, stream and truncate the same way."""
        settings_hint = os.path.join(os.path.dirname(self.options.resolved_bin_dir()), "settings.json")
        argv = shell_config(self.options.shell_path, settings_hint)
        if not os.path.isdir(self.cwd):
            raise ToolError(f"Working directory does not exist: {self.cwd}\nCannot execute bash commands.")
        if updater is not None and (on_update := updater.on_update):
            on_update(AgentToolResult(content=[], details=None))
        loop = asyncio.get_running_loop()

        def on_data(chunk: bytes) -> None:
            acc.append(chunk)
            if updater is not None:
                updater.dirty()

        env = shell_env(self.options.resolved_bin_dir())
        # what the command leaves running in the background is ended when the app exits
        marker = env[process_registry.MARKER] = process_registry.new_call(
            self.options.keep_background_processes
        )
        try:
            transport, proto = await loop.subprocess_exec(
                lambda: _ShellProtocol(loop, on_data),
                *argv,
                command,
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except BaseException:
            process_registry.finished(marker)
            raise
        pid = transport.get_pid()
        process_registry.set_group(marker, pid)
        stoppers: set[asyncio.Future[Any]] = set()
        abort_task = asyncio.ensure_future(signal.wait()) if signal is not None else None
        if abort_task is not None:
            stoppers.add(abort_task)
        timer = asyncio.ensure_future(asyncio.sleep(timeout)) if timeout and timeout > 0 else None
        if timer is not None:
            stoppers.add(timer)
        outcome = "exited"
        try:
            # Wait for the shell process itself, not for EOF on its output: a background daemon started
            # with `&` inherits the pipe and may hold it open indefinitely.
            done, _ = await asyncio.wait({proto.exited, *stoppers}, return_when=asyncio.FIRST_COMPLETED)
            if proto.exited not in done:
                outcome = "aborted" if abort_task is not None and abort_task in done else "timeout"
                await kill_process_group(pid)
                await proto.exited
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(proto.eof), EXIT_STDIO_GRACE_S)
        except BaseException:
            if transport.get_returncode() is None:
                await asyncio.shield(kill_process_group(pid))
            raise
        finally:
            for task in stoppers:
                task.cancel()
            for task in stoppers:
                with contextlib.suppress(BaseException):
                    await task
            transport.close()
            process_registry.finished(marker)
        if outcome == "exited" and signal is not None and signal.aborted:
            outcome = "aborted"
        code = transport.get_returncode()
        # Killed by a signal: Node reports a null exit code, which pi treats as success.
        return outcome, (code if code is not None and code >= 0 else None)

    def _render(self, acc: OutputAccumulator, empty: str = "") -> tuple[str, dict[str, Any] | None]:
        tr = acc.snapshot()
        text = tr.content or empty
        if not tr.truncated:
            return text, None
        path = acc.full_output_path
        start = tr.totalLines - tr.outputLines + 1
        end = tr.totalLines
        if tr.lastLinePartial:
            notice = (
                f"[Showing last {format_size(tr.outputBytes)} of line {end} "
                f"(line is {format_size(acc.last_line_bytes)}). Full output: {path}]"
            )
        elif tr.truncatedBy == "lines":
            notice = f"[Showing lines {start}-{end} of {tr.totalLines}. Full output: {path}]"
        else:
            notice = (
                f"[Showing lines {start}-{end} of {tr.totalLines} ({format_size(acc.max_bytes)} limit). "
                f"Full output: {path}]"
            )
        return f"{text}\n\n{notice}", _details(tr, path)


def _details(tr: TruncationResult | None, path: str | None) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if tr is not None and tr.truncated:
        details["truncation"] = tr.to_json()
    if path is not None:
        details["fullOutputPath"] = path
    return details


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


class _ShellProtocol(asyncio.SubprocessProtocol):
    def __init__(self, loop: asyncio.AbstractEventLoop, on_data: Any) -> None:
        self.exited: asyncio.Future[None] = loop.create_future()
        self.eof: asyncio.Future[None] = loop.create_future()
        self._on_data = on_data

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._on_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.eof.done():
            self.eof.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class _Updater:
    """Sends the running output to ``on_update`` at most every UPDATE_INTERVAL_S."""

    def __init__(self, acc: OutputAccumulator, on_update: OnUpdate | None) -> None:
        self.acc = acc
        self.on_update = on_update
        self._dirty = False
        self._last = 0.0
        self._handle: asyncio.TimerHandle | None = None

    def dirty(self) -> None:
        if self.on_update is None:
            return
        self._dirty = True
        delay = UPDATE_INTERVAL_S - (time.monotonic() - self._last)
        if delay <= 0:
            self.flush()
        elif self._handle is None:
            self._handle = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._handle = None
        self.flush()

    def flush(self) -> None:
        if self.on_update is None or not self._dirty:
            return
        self._dirty = False
        self._last = time.monotonic()
        tr = self.acc.snapshot()
        self.on_update(
            AgentToolResult(
                content=[TextContent(text=tr.content)],
                details=_details(tr, self.acc.full_output_path) or None,
            )
        )

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
