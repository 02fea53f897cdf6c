"""One MCP server connection through the official ``mcp`` SDK (imported only when a server connects).

A connection is owned by one task that enters the SDK's transport (``stdio_client`` or
``streamable_http_client``) and ``ClientSession`` and leaves them again, as anyio requires. Calls come
from any task. The transport's read stream is relayed so its end (the server exited, the HTTP stream
died) marks the connection ``disconnected``; the next call connects again. Stopping a stdio server
closes its stdin, then SIGTERM and SIGKILL go to its whole process group, so the grandchildren of
wrappers such as ``npx`` or ``uvx`` stop too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi_app.tools.process_registry import group_alive

from .config import ConfigValueError, ServerEntry, expand_home, resolve_mapping, server_cwd

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientSession, IncomingMessage

State = Literal["connecting", "connected", "disconnected", "failed", "disabled"]
STDERR_TAIL_LINES = 40
GROUP_KILL_GRACE_S = 2.0
EXIT_POLL_S = 0.1


class ServerUnavailable(Exception):
    """The server is not connected (the message says why, for the model and the user)."""


class McpConnection:
    def __init__(
        self,
        entry: ServerEntry,
        cwd: str,
        *,
        on_tools_changed: Callable[[McpConnection], Awaitable[None]] | None = None,
        on_log: Callable[[str, str, str | None, Any], None] | None = None,
    ) -> None:
        self.entry = entry
        self.name = entry.name
        self.cwd = cwd
        self.state: State = "disabled" if not entry.enabled else "disconnected"
        self.error: str | None = None
        self.tools: list[mcp_types.Tool] = []
        self.instructions: str | None = None
        self.has_resources = False
        self.pgid: int | None = None
        self._on_tools_changed = on_tools_changed
        self._on_log = on_log
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._stderr: Any = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._background: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ state
    @property
    def connected(self) -> bool:
        return self.state == "connected" and self._session is not None

    @property
    def stderr_tail(self) -> list[str]:
        self._read_stderr()
        return list(self._stderr_tail)

    def _read_stderr(self) -> None:
        f = self._stderr
        if f is None or f.closed:
            return
        with contextlib.suppress(OSError, ValueError):
            f.seek(0)
            for line in f.read().splitlines():
                self._stderr_tail.append(line)
            f.seek(0)
            f.truncate()

    # ------------------------------------------------------------------ connecting
    async def connect(self) -> None:
        """Connect unless connected (one attempt at a time); raises ServerUnavailable on failure."""
        if not self.entry.enabled:
            raise ServerUnavailable(f'MCP server "{self.name}" is disabled')
        async with self._lock:
            if self.connected:
                return
            await self._close_owner()
            self._ready = asyncio.Event()
            self._stop = asyncio.Event()
            self.state, self.error = "connecting", None
            self._owner = asyncio.get_running_loop().create_task(self._own(), name=f"mcp:{self.name}")
            await self._ready.wait()
        if not self.connected:
            raise ServerUnavailable(f'MCP server "{self.name}" is not connected: {self.error or self.state}')

    async def wait_ready(self, timeout: float) -> bool:
        """Wait (bounded) for a connection attempt in progress; True when connected."""
        if self.state == "connecting":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._ready.wait()), timeout)
        return self.connected

    async def _own(self) -> None:
        """The task that holds the transport and session open until stopped or the stream ends."""
        import anyio
        from mcp.client.session import ClientSession

        eof = asyncio.Event()
        was_connected = False
        try:
            async with AsyncExitStack() as stack:
                read, write = await self._open_transport(stack)
                relay_send, relay_read = anyio.create_memory_object_stream[Any](0)

                async def relay() -> None:
                    async with relay_send:
                        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                            async for item in read:
                                await relay_send.send(item)
                    eof.set()

                async def watch_exit(pid: int) -> None:
                    # a grandchild holding the server's stdout keeps the pipe open after the server
                    # exits, so its exit is watched too
                    while _running(pid):
                        await anyio.sleep(EXIT_POLL_S)
                    eof.set()

                tg = await stack.enter_async_context(anyio.create_task_group())
                tg.start_soon(relay)
                if self.pgid is not None:
                    tg.start_soon(watch_exit, self.pgid)
                session = await stack.enter_async_context(
                    ClientSession(
                        relay_read,
                        write,
                        read_timeout_seconds=self.entry.config.timeout_s,
                        logging_callback=self._log,
                        message_handler=self._on_message,
                    )
                )
                with anyio.fail_after(self.entry.config.timeout_s):
                    init = await session.initialize()
                    self.instructions = init.instructions
                    caps = init.capabilities
                    self.has_resources = caps.resources is not None
                    self.tools = await _list_tools(session)
                self._session = session
                self.state, was_connected = "connected", True
                self._ready.set()
                stop = asyncio.ensure_future(self._stop.wait())
                ended = asyncio.ensure_future(eof.wait())
                try:
                    await asyncio.wait({stop, ended}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stop.cancel()
                    ended.cancel()
                self._session = None
                if not self._stop.is_set():
                    self.state = "disconnected"
                    self.error = "the server closed the connection"
                tg.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - any failure is this server's state, never the session's
            self._session = None
            if not was_connected:
                self.state = "failed"
                self.error = _describe(exc)
        finally:
            self._session = None
            await self._kill_group()
            self._read_stderr()
            if self.state == "connected":
                self.state = "disconnected"
            self._ready.set()

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        config = self.entry.config
        if config.kind == "http":
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = resolve_mapping("header", config.headers)
            client = await stack.enter_async_context(
                # the SDK's own defaults: a response stream may stay open for minutes
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
            )
            assert config.url is not None
            read, write = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=client)
            )
            return read, write
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert config.command is not None
        params = StdioServerParameters(
            command=expand_home(config.command),
            args=[expand_home(a) for a in config.args],
            env={**os.environ, **resolve_mapping("env", config.env)},
            cwd=server_cwd(config, self.cwd),
        )
        self._stderr = stack.enter_context(
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace", prefix="pi-mcp-stderr-")
        )
        # the file outlives the transport so the tail of a failed server can still be read
        stack.callback(self._read_stderr)
        before = _children_of(os.getpid())
        read, write = await stack.enter_async_context(stdio_client(params, errlog=self._stderr))
        self.pgid = _find_group_leader(before, [params.command, *params.args])
        if self.pgid is not None:
            _claimed.add(self.pgid)
        return read, write

    async def _kill_group(self) -> None:
        """SIGTERM then SIGKILL to what is left of the server's process group (the SDK has already
        closed stdin and stopped the server itself)."""
        pgid, self.pgid = self.pgid, None
        if pgid is None:
            return
        _claimed.discard(pgid)
        if not group_alive(pgid):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + GROUP_KILL_GRACE_S
        while time.monotonic() < deadline and group_alive(pgid):
            await asyncio.sleep(0.05)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)

    # ------------------------------------------------------------------ notifications
    async def _log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        if self._on_log is not None:
            self._on_log(self.name, str(params.level), params.logger, params.data)

    async def _on_message(self, message: IncomingMessage) -> None:
        import mcp_types

        if isinstance(message, mcp_types.ToolListChangedNotification):
            task = asyncio.get_running_loop().create_task(self._refresh_tools())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _refresh_tools(self) -> None:
        session = self._session
        if session is None:
            return
        try:
            self.tools = await _list_tools(session)
        except Exception as exc:  # noqa: BLE001
            self.error = f"listing tools failed: {_describe(exc)}"
            return
        if self._on_tools_changed is not None:
            await self._on_tools_changed(self)

    # ------------------------------------------------------------------ requests
    async def session(self) -> ClientSession:
        """The live session, connecting first when the server is disconnected (after a drop)."""
        if not self.connected:
            await self.connect()
        assert self._session is not None
        return self._session

    async def call(self, request: Callable[[ClientSession], Awaitable[Any]]) -> Any:
        """Run one request; a connection that ends under it is marked disconnected and reported."""
        from mcp.shared.exceptions import MCPError

        session = await self.session()
        try:
            return await request(session)
        except MCPError as exc:
            if _is_closed(exc):
                self._mark_dropped()
                raise ServerUnavailable(
                    f'MCP server "{self.name}" disconnected; it reconnects on the next call'
                ) from None
            raise
        except (OSError, EOFError) as exc:
            self._mark_dropped()
            raise ServerUnavailable(f'MCP server "{self.name}" disconnected: {_describe(exc)}') from None

    def _mark_dropped(self) -> None:
        self._session = None
        if self.state == "connected":
            self.state = "disconnected"
        self._stop.set()

    # ------------------------------------------------------------------ stopping
    async def _close_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), 15)
        except (TimeoutError, asyncio.CancelledError):
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner
        except Exception:  # noqa: BLE001 - already recorded in self.state/error
            pass

    async def stop(self) -> None:
        self._stop.set()
        for task in list(self._background):
            task.cancel()
        await self._close_owner()
        if self.state in ("connected", "connecting"):
            self.state = "disconnected"


async def _list_tools(session: ClientSession) -> list[mcp_types.Tool]:
    import mcp_types

    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server that paginates forever cannot hang the connection
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _is_closed(exc: Exception) -> bool:
    import mcp_types

    code = getattr(getattr(exc, "error", None), "code", None)
    return code == getattr(mcp_types, "CONNECTION_CLOSED", -32000) or "closed" in str(exc).lower()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _describe(inner)
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConfigValueError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ------------------------------------------------------------------ process groups (Linux /proc)
def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, pgid, state) of ``pid`` from /proc; None when unknown (gone, or no /proc)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    return int(fields[1]), int(fields[2]), fields[0]


def _children_of(parent: int) -> set[int]:
    out: set[int] = set()
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                st = _stat(int(entry.name))
                if st is not None and st[0] == parent:
                    out.add(int(entry.name))
    return out


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def _find_group_leader(before: set[int], argv: list[str]) -> int | None:
    """The server process the SDK just started in a session of its own (its pid is its process group
    id): a new child of ours leading its group, preferably running ``argv`` (a ``#!`` script shows its
    interpreter first, so the arguments decide)."""
    candidates = [
        pid
        for pid in sorted(_children_of(os.getpid()) - before - _claimed)
        if (st := _stat(pid)) is not None and st[1] == pid
    ]
    for pid in candidates:
        cmd = _cmdline(pid)
        if cmd == argv or (len(argv) > 1 and cmd[-(len(argv) - 1) :] == argv[1:]):
            return pid
    return candidates[0] if len(candidates) == 1 else None


_claimed: set[int] = set()  # group leaders already owned by a connection


def _running(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[2] != "Z"
