"""File helpers shared by the file tools: opening only regular files (never blocking on a FIFO or
streaming a device), running file I/O off the event loop with abort, and per-file serialisation of writes."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import stat
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortError, AbortSignal, race_abort

T = TypeVar("T")

_CHUNK = 1 << 20


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_chunk(fd: int, data: memoryview) -> int:
    """One write call (a seam for crash tests)."""
    return os.write(fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = _write_chunk(fd, view[:_CHUNK])
        view = view[written:]


def write_file(path: str, data: bytes) -> None:
    """Replace the contents of ``path`` (symlinks followed, so a link survives) with ``data``.

    A new file, or one this process may replace without changing anything but its bytes, gets a temp file in
    the same directory renamed over it: readers see the old or the new file, never half of one. A file with
    more than one hard link, or whose owner/group a fresh file could not keep, or in a directory we may not
    create files in, is rewritten in place after its old bytes are saved to a backup (see
    :func:`_write_in_place`). FIFOs, sockets and devices are refused; so is a file without write permission
    (EACCES), as for edit. Docs: docs/architecture.md, "How files are written"."""
    target = os.path.realpath(path)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(path)
        if not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        if st.st_nlink > 1:
            _write_in_place(target, data)
            return
    try:
        _write_by_rename(target, data, st)
    except _UseInPlace:
        _write_in_place(target, data)


class _UseInPlace(Exception):
    """A rename would lose the file's owner or group, or the directory takes no new files."""


def _write_by_rename(target: str, data: bytes, st: os.stat_result | None) -> None:
    directory = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    except PermissionError:
        if st is None:
            raise
        raise _UseInPlace() from None
    try:
        if st is not None:
            mine = os.fstat(fd)
            if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except PermissionError:
                    raise _UseInPlace() from None
        _write_all(fd, data)
        os.fsync(fd)
        # after fchown: chown clears set-id bits, so the mode is applied last
        os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_current_umask())
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _make_backup(target: str, src: int) -> tuple[int, str]:
    """Copy the open file ``src`` to a fresh 0600 file next to ``target`` (else in the temp dir), fsynced."""
    name = f".{os.path.basename(target)}."
    try:
        fd, backup = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=name, suffix=".pi-backup")
    except OSError:
        fd, backup = tempfile.mkstemp(prefix=name, suffix=".pi-backup")
    try:
        offset = 0
        while chunk := os.pread(src, _CHUNK, offset):
            _write_all(fd, chunk)
            offset += len(chunk)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(backup)
        raise
    return fd, backup


def _overwrite(fd: int, data: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    _write_all(fd, data)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _write_in_place(target: str, data: bytes) -> None:
    """Rewrite the file through its own inode, so its links, owner, mode and ACLs stay as they are.

    The old bytes go to a fsynced backup first; if writing fails midway (ENOSPC, EIO) they are written back
    and the backup removed. Only a crash between the two leaves the backup (named in no error) behind."""
    fd = open_regular(target, os.O_RDWR, shown=target)
    try:
        bfd, backup = _make_backup(target, fd)
        try:
            try:
                _overwrite(fd, data)
            except OSError as exc:
                try:
                    _overwrite(fd, _read_fd(bfd))
                except OSError:
                    raise OSError(
                        exc.errno, f"{exc.strerror}; the original content is saved in {backup}"
                    ) from exc
                _unlink_quietly(backup)
                raise
        finally:
            os.close(bfd)
        _unlink_quietly(backup)
    finally:
        os.close(fd)


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _read_fd(fd: int) -> bytes:
    parts: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)


class NotRegularFileError(ToolError):
    """A FIFO, socket or device where a file's contents are expected: reading one may block forever or
    never end, and replacing one destroys it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Not a regular file: {path}")


def check_regular(st: os.stat_result, path: str) -> None:
    """Refuse anything but a regular file (directories are left to the caller's own error)."""
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        raise NotRegularFileError(path)


def open_regular(path: str, flags: int = os.O_RDONLY, shown: str | None = None) -> int:
    """Open ``path`` (symlinks followed) and return the fd, refusing anything that is not a regular file.

    O_NONBLOCK makes the open itself return at once even for a FIFO without a writer; the fstat on the open
    fd then decides, so a path swapped for a FIFO between a stat and the open is still refused."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(shown or path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_stop(stop: threading.Event) -> None:
    if stop.is_set():
        raise AbortError()


async def run_off_loop(fn: Callable[[threading.Event], T], signal: AbortSignal | None) -> T:
    """Run blocking file work in a thread; abort (or cancellation) returns at once.

    ``fn`` gets an Event that is set on abort/cancel and should check it between chunks; a thread left
    behind by an abort stops at its next check, and its result is dropped."""
    stop = threading.Event()
    remove = signal.add_listener(stop.set) if signal is not None else (lambda: None)
    try:
        return await race_abort(asyncio.to_thread(fn, stop), signal)
    finally:
        stop.set()
        remove()


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
