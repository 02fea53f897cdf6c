"""Starts test MCP servers (stdio_server.py) by forking one process that has already imported the SDK.

Importing the SDK's server side costs ~1.4 s of CPU, once per server start; the MCP tests start about twenty.
This process imports it once per test worker, then for each connection on its Unix socket forks a child that
takes over the connecting launcher's stdin, stdout and stderr (passed as file descriptors) and its
environment and folder, and runs stdio_server.py there: the same server, talking on the same pipes, as if the
launcher had exec'd it. The launcher (launch.py, the ``command`` in mcp.json) waits until the child ends;
when the launcher is killed the child ends its own process group (itself and the ``sleep`` it started).

    python zygote.py SOCKET      (ends when its stdin closes: the test worker went away)
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
from pathlib import Path

import mcp.server.mcpserver  # noqa: F401  (the point: imported once, before any fork)
import mcp.server.mcpserver.exceptions  # noqa: F401
import mcp.types  # noqa: F401

SERVER = str(Path(__file__).with_name("stdio_server.py"))


def _receive(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    size = int.from_bytes(data[:4], "big")
    body = data[4:]
    while len(body) < size:
        more = conn.recv(size - len(body))
        if not more:
            raise EOFError("launcher went away")
        body += more
    return json.loads(body), list(fds)


def _serve(conn: socket.socket) -> None:
    """In the forked child: become the server the launcher asked for."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's auto-reaping must not hide its children
    os.setpgid(0, 0)  # a group of its own, ended as one when the launcher goes
    request, fds = _receive(conn)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in dict(request["env"]).items()})  # type: ignore[call-overload]

    def watch_launcher() -> None:
        with contextlib.suppress(OSError):
            conn.recv(1)  # returns when the launcher exits or is killed
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch_launcher, daemon=True).start()
    try:
        sys.argv = [SERVER]
        runpy.run_path(SERVER, run_name="__main__")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.killpg(0, signal.SIGKILL)  # the server is done: so is what it started (its launcher exits too)


def main() -> None:
    path = sys.argv[1]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                if not os.read(sys.stdin.fileno(), 1):  # the test worker is gone
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                    return
                continue
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                try:
                    _serve(conn)
                finally:
                    os._exit(0)
            conn.close()


if __name__ == "__main__":
    main()
