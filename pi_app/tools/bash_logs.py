"""The full-output logs of bash commands (``<tmpdir>/pi-bash-<16 hex>.log``): private, and not kept forever.

Retention: a log lives as long as the process that wrote it (the model and ``!cmd`` results point at it
during the session); :func:`remove_own_logs` deletes this process's logs at exit, and the first log a
process creates sweeps away this user's logs older than ``STALE_AFTER_S`` (left by a crash or a kill).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
import threading
import time
from typing import BinaryIO

STALE_AFTER_S = 7 * 24 * 3600
_NAME = re.compile(r"pi-bash-[0-9a-f]{16}\.log\Z")

_lock = threading.RLock()  # re-entrant: also used from a signal handler
_own: set[str] = set()
_swept = False


def create_log(prefix: str) -> tuple[str, BinaryIO]:
    """A new log file, mode 0600 from the start (never world-readable, even for a moment)."""
    _sweep_once()
    while True:
        path = os.path.join(tempfile.gettempdir(), f"{prefix}-{secrets.token_hex(8)}.log")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        break
    with _lock:
        _own.add(path)
    return path, os.fdopen(fd, "wb")


def remove_own_logs() -> None:
    """Delete every log this process created (called when the app exits)."""
    with _lock:
        paths = list(_own)
        _own.clear()
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def sweep_stale(directory: str | None = None, max_age_s: float = STALE_AFTER_S) -> list[str]:
    """Delete this user's ``pi-bash-*.log`` files not written to for ``max_age_s``; returns what went."""
    directory = directory or tempfile.gettempdir()
    cutoff = time.time() - max_age_s
    uid = os.geteuid()
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not _NAME.match(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if st.st_uid == uid and st.st_mtime < cutoff and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.path)
        except OSError:
            continue
    return removed


def _sweep_once() -> None:
    global _swept
    with _lock:
        if _swept:
            return
        _swept = True
    sweep_stale()
