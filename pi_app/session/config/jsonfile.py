"""Small file helpers shared by the config stores: reading JSON safely, advisory locks, atomic writes.

Reading never raises anything but :class:`ConfigFileError` (for content: not UTF-8, not JSON, nested too
deeply) and OSError (for access), and the error text always names the file, so each caller can turn a bad
file into one warning line and go on without it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``<path>.lock`` (the data file itself is replaced on write,
    so locking it would not serialise writers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class ConfigFileError(ValueError):
    """A config file whose content cannot be used; ``str()`` is one line naming the file."""


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as UTF-8; ConfigFileError naming ``source``, the byte and its offset otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise ConfigFileError(
            f"{source}: not valid UTF-8 (byte 0x{byte:02x} at offset {exc.start})"
        ) from None


def read_text(path: Path) -> str | None:
    """File contents, or None when it does not exist. Raises ConfigFileError when it is not UTF-8."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return decode_utf8(data, str(path))


def loads(text: str, source: str) -> Any:
    """``json.loads`` with errors as ConfigFileError naming ``source`` (position, or too deep nesting)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError(
            f"{source}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise ConfigFileError(f"{source}: invalid JSON (nested too deeply)") from None


def load_json_file(path: Path) -> Any:
    """The parsed file, or None when it does not exist. Raises ConfigFileError or OSError."""
    text = read_text(path)
    return None if text is None else loads(text, str(path))


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write via a temp file in the same directory and rename, so readers never see a half file.

    ``mode`` forces permissions (e.g. 0o600 for auth.json); otherwise an existing file's mode is kept.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = path.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; chmod before writing so a secret is never briefly world-readable.
        os.fchmod(fd, mode if mode is not None else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def dumps(data: Any) -> str:
    """pi's formatting: two-space indent, non-ASCII kept."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
