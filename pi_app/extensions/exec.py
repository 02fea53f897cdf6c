"""``pi.exec``: run a program without a shell, with a timeout, an abort signal and an output cap."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from typing import Any

from pi_app.ai.abort import AbortSignal
from pi_app.extensions.types import ExecResult

KILL_GRACE_S = 5.0
MAX_BUFFER = 256 * 1024 * 1024


async def run_exec(
    command: str,
    args: list[str] | tuple[str, ...] = (),
    *,
    cwd: str | None = None,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    max_buffer: int = MAX_BUFFER,
) -> ExecResult:
    """Exit code as a shell reports it: 128+N when a signal ended the process (143 SIGTERM, 137 SIGKILL).
    A program that is not found gives code 127 and the error on stderr."""
    try:
        proc = await asyncio.create_subprocess_exec(
            command,
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return ExecResult("", f"{command}: {exc.strerror or exc}", 127)
    out = bytearray()
    err = bytearray()
    killed = truncated = False
    stop = asyncio.Event()

    async def pump(stream: asyncio.StreamReader | None, sink: bytearray) -> None:
        nonlocal truncated
        if stream is None:
            return
        while chunk := await stream.read(65536):
            room = max_buffer - len(out) - len(err)
            sink += chunk[: max(room, 0)]
            if len(chunk) > room:
                truncated = True
                stop.set()
                return

    remove = signal.add_listener(stop.set) if signal is not None else None
    if signal is not None and signal.aborted:
        stop.set()
    pumps: asyncio.Future[Any] = asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err))
    waiter: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({pumps, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if pumps not in done:  # timeout, abort or the output cap: end the whole process group
            killed = True
            await _terminate(proc)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pumps, 1.0)
        code = await proc.wait()
    finally:
        waiter.cancel()
        if remove is not None:
            remove()
    if code < 0:
        code = 128 - code
    elif killed and code == 0:
        code = 128 + signals.SIGTERM
    return ExecResult(out.decode(errors="replace"), err.decode(errors="replace"), code, killed, truncated)


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    for sig, grace in ((signals.SIGTERM, KILL_GRACE_S), (signals.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), grace)
            return
        except TimeoutError:
            continue
