"""Small helpers every tool uses: abort checks, pi-style OS error texts, numeric argument coercion."""

from __future__ import annotations

import errno
import os
from typing import Any

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortError, AbortSignal

# Node's wording for the errors models most often see from pi (``ENOENT: no such file or directory, ...``).
_NODE_MESSAGES = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTDIR: "not a directory",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
}


def check_abort(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise AbortError()


def error_code(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, "EIO")


def node_error(exc: OSError, syscall: str, path: str | None) -> ToolError:
    """An OSError phrased the way Node reports it, e.g. ``ENOENT: no such file or directory, open '/x'``."""
    code = error_code(exc)
    text = _NODE_MESSAGES.get(exc.errno or 0, (exc.strerror or str(exc)).lower())
    where = f"{syscall} '{path}'" if path is not None else syscall
    return ToolError(f"{code}: {text}, {where}")


def opt_int(params: dict[str, Any], key: str) -> int | None:
    """An optional numeric argument as an int (models send 10, 10.0 or "10")."""
    value = params.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ToolError(f"{key} must be a number")
    try:
        return int(float(value))
    except (TypeError, ValueError):
        raise ToolError(f"{key} must be a number, got {value!r}") from None


def opt_bool(params: dict[str, Any], key: str) -> bool:
    value = params.get(key)
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


def req_str(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise ToolError(f"{key} must be a string")
    return value


def opt_str(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"{key} must be a string")
    return value


def is_dir(path: str) -> bool:
    return os.path.isdir(path)
