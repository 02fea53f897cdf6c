"""Every process a bash call starts (the model's tool calls and the user's ``!cmd``), so that what is left
running in the background (``cmd &``, ``nohup``, ``setsid``, servers) ends with the app.

Each call runs in its own process group and with ``PI_BASH_SESSION=<app token>.<call number>`` in its
environment. A process that leaves the group (``setsid``) keeps the variable, one that clears its
environment (``env -i``) stays in the group; :func:`terminate_all` ends both kinds: SIGTERM, then SIGKILL
after a short grace. Only a process that does both (a double-forked daemon that also wipes its
environment) escapes. Calls made with ``keepBackgroundProcesses`` are forgotten once they return, so what
they started in the background survives; a call still running at exit is ended either way.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "PI_BASH_SESSION"
TERM_GRACE_S = 0.5
_POLL_S = 0.02

_TOKEN = f"{os.getpid()}-{secrets.token_hex(4)}"
_lock = threading.RLock()  # re-entrant: the signal handler may run while the main thread holds it
_counter = 0


@dataclass
class _Call:
    """One tracked bash call: its process group (once known), whether to keep what it leaves running, and if it runs."""

    pgid: int | None
    keep: bool
    running: bool = True


_calls: dict[str, _Call] = {}


def new_call(keep: bool) -> str:
    """Track a call about to start; returns its ``PI_BASH_SESSION`` value.

    Tracked before the spawn: if the caller is cancelled while the shell starts (the app exiting), the
    processes it already started are still found by their marker."""
    global _counter
    with _lock:
        _counter += 1
        marker = f"{_TOKEN}.{_counter}"
        _calls[marker] = _Call(None, keep)
    return marker


def set_group(marker: str, pgid: int) -> None:
    """The call's shell runs as leader of process group ``pgid``."""
    with _lock:
        call = _calls.get(marker)
        if call is not None:
            call.pgid = pgid


def finished(marker: str) -> None:
    """The call's shell has exited (its background processes may live on)."""
    with _lock:
        call = _calls.get(marker)
        if call is None:
            return
        call.running = False
        if call.keep:
            del _calls[marker]
            return
        pgid = call.pgid
    if pgid is not None and not group_alive(pgid):
        with _lock:
            call.pgid = None  # nobody left: never signal a number the kernel may hand out again


def tracked_markers() -> list[str]:
    with _lock:
        return list(_calls)


def terminate_all(grace: float = TERM_GRACE_S) -> int:
    """End everything tracked calls left running: SIGTERM, then SIGKILL after ``grace`` seconds.

    Returns how many processes (and groups) were signalled. Safe to call more than once."""
    with _lock:
        calls = dict(_calls)
        _calls.clear()
    if not calls:
        return 0
    groups = {c.pgid for c in calls.values() if c.pgid is not None}
    pids = set(marked_pids(set(calls)))
    targets = len(groups) + len(pids)
    _signal_all(groups, pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        groups = {g for g in groups if group_alive(g)}
        pids = {p for p in pids if _pid_alive(p)}
        if not groups and not pids:
            return targets
        time.sleep(_POLL_S)  # polling real process state, bounded by the grace period
    _signal_all(groups, pids | set(marked_pids(set(calls))), signal.SIGKILL)
    return targets


def end_on_fatal_signals(also: Callable[[], None] | None = None) -> None:
    """On SIGTERM or SIGHUP (a closed terminal), which end Python without running ``finally`` blocks:
    :func:`terminate_all` and ``also``, then die of the same signal. Only where no handler is installed;
    only from the main thread."""

    def handler(signum: int, frame: object) -> None:
        try:
            terminate_all()
            if also is not None:
                also()
        finally:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, handler)


def _signal_all(groups: set[int], pids: set[int], sig: int) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def marked_pids(markers: set[str]) -> list[int]:
    """Live processes whose environment carries one of ``markers`` (Linux /proc; elsewhere none)."""
    wanted = {f"{MARKER}={m}".encode() for m in markers}
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue  # gone, or another user's
        if any(var in wanted for var in env.split(b"\0")) and _pid_alive(int(entry)):
            found.append(int(entry))
    return found


def _state(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :]


def _pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _state(pid)
    if fields is None:
        return not os.path.isdir("/proc")  # no /proc: trust kill(0); else it has just gone
    return fields[:1] != b"Z"


def group_alive(pgid: int) -> bool:
    """True while any non-zombie process of the group exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc"):
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _state(int(entry))
        if fields is None:
            continue
        parts = fields.split()
        if len(parts) > 2 and int(parts[2]) == pgid and parts[0] != b"Z":
            return True
    return False
