"""RPC mode (``pi --mode rpc``): JSONL commands on stdin, responses and session events on stdout.

Each input line is one command ``{id?, type, ...}``; it is answered by ``{id?, type: "response", command,
success, data? | error}``. Events carry no ``id``. Commands run concurrently as they arrive (``abort_bash``
must reach a running ``bash``), so a client correlates responses by ``id``. ``prompt`` is acknowledged
before the run starts; a failure found later arrives as a second response with the same ``id``. Malformed
JSON and unknown commands get an error response and the server keeps serving. At end of input the server
lets running work finish, then returns 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from pi_app.modes.jsonl import JsonlWriter, LineSplitter
from pi_app.modes.rpc_commands import HANDLERS, NO_DATA, RpcError, parse_images
from pi_app.modes.wire import event_json
from pi_app.session.session_events import SessionEvent

if TYPE_CHECKING:
    from pi_app.modes.rpc_extension_ui import RpcExtensionUI
    from pi_app.session.agent_session import AgentSession, StreamingBehavior

STREAMING_BEHAVIORS = ("steer", "followUp")


def success_response(request_id: Any, command: str, data: Any = NO_DATA) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update(type="response", command=command, success=True)
    if data is not NO_DATA:
        out["data"] = data
    return out


def error_response(request_id: Any, command: str, message: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update(type="response", command=command, success=False, error=message)
    return out


class RpcServer:
    """Serves one AgentSession over a JSONL channel (see the module docstring)."""

    def __init__(
        self,
        session: AgentSession,
        writer: JsonlWriter | None = None,
        extension_ui: RpcExtensionUI | None = None,
    ) -> None:
        self.session = session
        self.writer = writer or JsonlWriter()
        self.extension_ui = extension_ui
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe = session.subscribe(self._on_event)

    # ------------------------------------------------------------------ output
    def output(self, obj: Any) -> bool:
        """Write one record; False when it could not be encoded (the writer said so on stderr)."""
        return self.writer.write(obj) is not False

    async def _on_event(self, event: SessionEvent) -> None:
        data = event_json(event)
        if data is not None:
            self.output(data)

    # ------------------------------------------------------------------ input
    def handle_line(self, line: str) -> None:
        """Parse one line and start handling it (responses are written when ready)."""
        if not line.strip():
            return
        try:
            command = json.loads(line)
        except ValueError as exc:
            self.output(error_response(None, "parse", f"Failed to parse command: {exc}"))
            return
        if not isinstance(command, dict):
            self.output(
                error_response(None, "parse", "Failed to parse command: a command must be a JSON object")
            )
            return
        if command.get("type") == "extension_ui_response":
            if self.extension_ui is not None:
                self.extension_ui.resolve(command)
            return
        if command.get("type") == "prompt":
            self._prompt(command)  # acknowledged synchronously, before any event of the run
            return
        self._spawn(self._run_command(command))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_command(self, command: dict[str, Any]) -> None:
        request_id = command.get("id")
        kind = command.get("type")
        name = kind if isinstance(kind, str) else "undefined" if kind is None else json.dumps(kind)
        handler = HANDLERS.get(name)
        if handler is None:
            self.output(error_response(request_id, name, f"Unknown command: {name}"))
            return
        try:
            data = await handler(self.session, command)
        except Exception as exc:  # every failure is an answer, never the end of the server
            self.output(error_response(request_id, name, str(exc) or type(exc).__name__))
            return
        # Setters emit their events (thinking_level_changed, session_info_changed) from a task; pi emits
        # them synchronously, so they come before the response. Let those tasks run first.
        await asyncio.sleep(0)
        if not self.output(success_response(request_id, name, data)):
            self.output(error_response(request_id, name, "Failed to encode the response as JSON"))

    def _prompt(self, command: dict[str, Any]) -> None:
        request_id = command.get("id")
        message = command.get("message")
        behavior = command.get("streamingBehavior")
        try:
            if not isinstance(message, str):
                raise RpcError('prompt requires a string "message"')
            if behavior is not None and behavior not in STREAMING_BEHAVIORS:
                raise RpcError(f'Invalid streamingBehavior "{behavior}". Valid values: steer, followUp')
            images = parse_images(command.get("images"))
        except RpcError as exc:
            self.output(error_response(request_id, "prompt", str(exc)))
            return
        # pi 1.6: the response says what became of the prompt ("handled" by an extension, "queued" during a
        # run, or "started") before any event of the run; the run ends with agent_settled. Without an
        # extension that could consume it the answer is known now and goes out at once.
        if self.session.hooks.may_handle(message):
            self._spawn(self._run_prompt(request_id, message, images, behavior, acked=False))
            return
        disposition = "queued" if self.session.is_streaming else "started"
        self.output(success_response(request_id, "prompt", {"disposition": disposition}))
        self._spawn(self._run_prompt(request_id, message, images, behavior, acked=True))

    async def _run_prompt(
        self, request_id: Any, message: str, images: Any, behavior: str | None, *, acked: bool
    ) -> None:
        def accepted(disposition: str) -> None:
            self.output(success_response(request_id, "prompt", {"disposition": disposition}))

        try:
            await self.session.prompt(
                message,
                images=images,
                streaming_behavior=_behavior(behavior),
                source="rpc",
                on_accepted=None if acked else accepted,
            )
        except Exception as exc:
            self.output(error_response(request_id, "prompt", str(exc) or type(exc).__name__))

    # ------------------------------------------------------------------ lifecycle
    async def serve(self, chunks: AsyncIterator[bytes]) -> int:
        """Handle every line of ``chunks``; at end of input wait for running work, then return 0."""
        splitter = LineSplitter()
        try:
            async for chunk in chunks:
                for line in splitter.feed(chunk):
                    self.handle_line(line)
                await asyncio.sleep(0)  # let the commands just started run before reading on
            for line in splitter.finish():
                self.handle_line(line)
            await self.drain()
        finally:
            self._unsubscribe()
        return 0

    async def drain(self) -> None:
        """Wait until no command is running and the agent is idle."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self.session.is_streaming:
            await self.session.wait_for_idle()


async def stdin_chunks(fd: int = 0, size: int = 65536) -> AsyncIterator[bytes]:
    """Raw bytes from ``fd`` until EOF, read on a thread (works for pipes, files and terminals alike)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def reader() -> None:
        try:
            while True:
                data = os.read(fd, size)
                loop.call_soon_threadsafe(queue.put_nowait, data or None)
                if not data:
                    return
        except OSError:
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=reader, name="pi-rpc-stdin", daemon=True).start()
    while True:
        data = await queue.get()
        if data is None:
            return
        yield data


async def run_rpc_mode(
    session: AgentSession, writer: JsonlWriter | None = None, extension_ui: RpcExtensionUI | None = None
) -> int:
    server = RpcServer(session, writer, extension_ui)
    try:
        return await server.serve(stdin_chunks())
    finally:
        if extension_ui is not None:
            extension_ui.cancel_all()  # stdin closed: nobody will answer a pending dialog


def _behavior(value: str | None) -> StreamingBehavior | None:
    """The validated ``streamingBehavior`` narrowed to the session's type."""
    if value == "steer":
        return "steer"
    if value == "followUp" or value == "follow_up":
        return "followUp"
    return None
