"""Time a full-screen program in a pseudo-terminal until a marker is drawn (the TUI cases of bench_vs_pi).

The program gets a 120x40 pty; its output is read as it comes and the clock stops when ``marker`` has
appeared in the stream (a plain word the frame draws without styling inside it: the model id in the
footer, a word of the last message). Both ours and pi 1.6 ask the terminal questions at start (cursor
position, device attributes, kitty keyboard flags); a real terminal answers them and a program that waits
for the answer must not be charged for a silent pty, so the common ones are answered here.

With ``type_after``, those keys are typed the moment the marker appears and the clock runs on until the
program has drawn them (the editor takes keys and shows them): "keys accepted" measured, not assumed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ROWS, COLS = 40, 120

# query → the answer a typical xterm-like terminal gives
ANSWERS: tuple[tuple[bytes, bytes], ...] = (
    (b"\x1b[6n", b"\x1b[1;1R"),  # cursor position
    (b"\x1b[c", b"\x1b[?62;22c"),  # primary device attributes
    (b"\x1b[?u", b"\x1b[?0u"),  # kitty keyboard protocol flags
    (b"\x1b[?2026$p", b"\x1b[?2026;2$y"),  # synchronized output supported
)


@dataclass
class FrameRun:
    seconds: float | None  # None: the marker never appeared within the timeout
    output_bytes: int
    echo_seconds: float | None = None  # ``type_after`` drawn (from the start); None: not asked or never


def time_to_marker(
    cmd: list[str],
    env: dict[str, str],
    cwd: Path,
    marker: bytes,
    timeout: float = 60.0,
    type_after: bytes | None = None,
) -> FrameRun:
    """Start ``cmd`` in a pty and return the time until ``marker`` first appears in its output (and, with
    ``type_after``, until those keys, typed then, are drawn)."""
    env = {
        **env,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LINES": str(ROWS),
        "COLUMNS": str(COLS),
    }
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # child
        try:
            os.chdir(cwd)
            os.execvpe(cmd[0], cmd, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    seen = b""
    total = 0
    found: float | None = None
    echoed: float | None = None
    wanted = marker
    try:
        while time.perf_counter() - started < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            for query, answer in ANSWERS:
                if query in chunk:
                    os.write(fd, answer)
            total += len(chunk)
            if wanted in seen:
                if found is not None:
                    echoed = time.perf_counter() - started
                    break
                found = time.perf_counter() - started
                if type_after is None:
                    break
                os.write(fd, type_after)
                wanted, seen = type_after, b""
                continue
            seen = seen[-4096:]  # the tail is kept so a marker split across two reads is still found
    finally:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # pty.fork made the child a session (and group) leader
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            os.close(fd)
    return FrameRun(found, total, echoed)
