"""A scripted HTTP server on 127.0.0.1 for provider tests.

Each test queues :class:`Scripted` responses; the real SDK clients are pointed at ``server.url``. Bodies
are sent with chunked transfer encoding so that a dropped connection (``DROP``) is visible to the client
as an incomplete body, exactly like a network failure mid-stream. ``Pause(s)`` sleeps between chunks
(pacing, stalls for idle-timeout tests). Every request is recorded for assertions.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waits import HANG_GUARD_S

# A server stall that outlasts the hang guard, so only the client's own timeout or abort can end the wait.
STALL_S = 10 * HANG_GUARD_S


@dataclass
class Pause:
    seconds: float


class _Drop:
    pass


DROP = _Drop()
Chunk = bytes | str | Pause | _Drop


@dataclass
class Scripted:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    chunks: list[Chunk] = field(default_factory=list)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def sse(*events: tuple[str | None, Any]) -> list[bytes]:
    """SSE frames for ``(event_name_or_None, data)``; data that is not a str is JSON-encoded."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
        out.append(frame.encode())
    return out


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Scripted:
    h = {"content-type": "application/json"}
    h.update(headers or {})
    return Scripted(status=status, headers=h, chunks=[json.dumps(body).encode()])


class LoopbackServer:
    def __init__(self) -> None:
        self.script: deque[Scripted] = deque()
        self.requests: list[Recorded] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.requests.append(
                    Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                resp = (
                    outer.script.popleft()
                    if outer.script
                    else Scripted(
                        status=500,
                        headers={"content-type": "application/json"},
                        chunks=[b'{"error": {"message": "loopback: no scripted response"}}'],
                    )
                )
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    self.send_header(k, v)
                self.send_header("transfer-encoding", "chunked")
                self.send_header("connection", "close")
                self.end_headers()
                try:
                    for chunk in resp.chunks:
                        if isinstance(chunk, Pause):
                            time.sleep(chunk.seconds)
                            continue
                        if isinstance(chunk, _Drop):
                            self.wfile.flush()
                            self.connection.shutdown(socket.SHUT_RDWR)
                            self.close_connection = True
                            return
                        data = chunk.encode() if isinstance(chunk, str) else chunk
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client went away (abort tests)
                self.close_connection = True

            do_POST = _handle
            do_GET = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def add(self, *responses: Scripted) -> None:
        self.script.extend(responses)

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
