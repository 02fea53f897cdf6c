"""Config value resolution shared by auth.json and models.json (pi's ``resolveConfigValue``).

``"!cmd"`` runs ``cmd`` through the shell (10 s timeout) and uses its trimmed stdout; the result, even a
failure, is cached for the life of the process. A string with ``$NAME`` or ``${NAME}`` has the environment
interpolated (pi 1.6; ``$$`` and ``$!`` are a literal ``$`` and ``!``; an unset variable is empty, and a
value that comes out empty is no value). Any other string is the value of the environment variable of
that name when one is set (and non-empty, as pi 0.73), else the literal string.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading

COMMAND_TIMEOUT_S = 10.0

_cache: dict[str, str | None] = {}
_lock = threading.Lock()


def _run(command: str) -> str | None:
    try:
        proc = subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # so a timeout can kill the whole pipeline, not just the shell
        )
    except OSError:
        return None
    try:
        stdout, _ = proc.communicate(timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    if proc.returncode != 0:
        return None
    return stdout.strip() or None


_INTERPOLATION = re.compile(r"\$\$|\$!|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _interpolate(match: re.Match[str]) -> str:
    token = match.group(0)
    if token in ("$$", "$!"):
        return token[1]
    return os.environ.get(match.group(1) or match.group(2) or "", "")


def resolve_config_value(config: str) -> str | None:
    """The value ``config`` stands for (see module docstring); None if a command fails or prints nothing."""
    if config.startswith("!"):
        with _lock:
            if config not in _cache:
                _cache[config] = _run(config[1:])
            return _cache[config]
    if "$" in config:
        return _INTERPOLATION.sub(_interpolate, config) or None
    return os.environ.get(config) or config


def resolve_headers(headers: dict[str, str] | None) -> dict[str, str] | None:
    """Resolve every header value; headers that resolve to nothing are dropped; None if none remain."""
    if not headers:
        return None
    resolved = {k: v for k, raw in headers.items() if (v := resolve_config_value(raw))}
    return resolved or None


def clear_config_value_cache() -> None:
    with _lock:
        _cache.clear()
