"""Advisory "this session is open" marker: warn about a second interactive instance, never block."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from .paths import iso_now


def lock_path_for(session_file: str) -> Path:
    return Path(f"{session_file}.lock")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def other_holder(session_file: str) -> int | None:
    """Pid of another live process on this host that holds the marker, if any (stale markers are ignored)."""
    try:
        info = json.loads(lock_path_for(session_file).read_text("utf-8"))
        pid = int(info["pid"])
        host = info.get("host")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid == os.getpid() or host != socket.gethostname():
        return None
    return pid if _alive(pid) else None


def claim(session_file: str) -> str | None:
    """Mark the session as ours; returns a warning when another live instance already has it open."""
    holder = other_holder(session_file)
    if holder is not None:
        return (
            f"Session {session_file} is already open in another pi instance (pid {holder}); "
            "entries from both will interleave in the file"
        )
    path = lock_path_for(session_file)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": iso_now()}))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only session dir only loses the warning, not the session
    return None


def release(session_file: str) -> None:
    """Remove the marker if it is ours."""
    path = lock_path_for(session_file)
    try:
        info = json.loads(path.read_text("utf-8"))
        if int(info.get("pid", -1)) == os.getpid():
            path.unlink()
    except (OSError, ValueError, TypeError):
        pass
