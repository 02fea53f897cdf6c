"""Where sessions live and how their files and ids are named (pi's layout, see spec §5)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Container
from datetime import UTC, datetime
from pathlib import Path

SESSION_SUFFIX = ".jsonl"


def agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``: the one definition in ``pi_app.session.config.paths``.

    Imported when called: the config package's ``__init__`` loads the settings schema and model registry,
    which the store (``pi --export``, listings) does not otherwise need."""
    from pi_app.session.config.paths import agent_dir as config_agent_dir

    return config_agent_dir()


def sessions_dir() -> Path:
    return agent_dir() / "sessions"


def encode_cwd(cwd: str) -> str:
    """Directory name for a cwd: leading separator dropped, ``/``, ``\\`` and ``:`` turned into ``-``."""
    safe = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for ch in "/\\:":
        safe = safe.replace(ch, "-")
    return f"--{safe}--"


def default_session_dir(cwd: str, create: bool = True) -> Path:
    d = sessions_dir() / encode_cwd(cwd)
    if create:
        d.mkdir(parents=True, exist_ok=True)
    return d


def iso_now() -> str:
    """``new Date().toISOString()``: UTC, millisecond precision, ``Z`` suffix."""
    return iso_from_ms(int(time.time() * 1000))


def iso_from_ms(ms: int) -> str:
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def session_file_name(timestamp_iso: str, session_id: str) -> str:
    return f"{timestamp_iso.replace(':', '-').replace('.', '-')}_{session_id}{SESSION_SUFFIX}"


def uuid7(ms: int | None = None) -> str:
    """RFC 9562 UUIDv7: 48-bit unix-ms timestamp, version 7, variant 10, 74 random bits."""
    ts = int(time.time() * 1000) if ms is None else ms
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    rand_a = rand >> 68  # 12 bits
    rand_b = rand & ((1 << 62) - 1)  # 62 bits
    value = (ts & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def new_entry_id(taken: Container[str]) -> str:
    """8 hex chars not yet used in this file; a full UUID if (absurdly) 100 tries collide, as pi does."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return uuid7()
