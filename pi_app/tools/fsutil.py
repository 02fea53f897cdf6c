"""File helpers shared by write and edit: atomic replacement and per-file serialisation."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from collections.abc import AsyncIterator

_CHUNK = 1 << 20


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_chunk(fd: int, data: memoryview) -> int:
    """One write call (a seam for crash tests)."""
    return os.write(fd, data)


def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new file, never half of one.

    The bytes go to a temp file in the same directory, which is then renamed over the target; an existing
    file's permission bits are kept, and a symlink is followed so the link itself survives.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        view = memoryview(data)
        while view:
            written = _write_chunk(fd, view[:_CHUNK])
            view = view[written:]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_current_umask())
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_locks: dict[str, asyncio.Lock] = {}


@contextlib.asynccontextmanager
async def file_mutation_lock(path: str) -> AsyncIterator[None]:
    """Serialise edits/writes to one file (parallel tool calls may target the same path)."""
    key = os.path.realpath(path)
    lock = _locks.setdefault(key, asyncio.Lock())
    try:
        async with lock:
            yield
    finally:
        if not lock.locked() and not getattr(lock, "_waiters", None):
            _locks.pop(key, None)
