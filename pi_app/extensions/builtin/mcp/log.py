"""Server log notifications appended to ``<agent dir>/mcp.log`` (moved to ``mcp.log.1`` past 5 MB)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MAX_LOG_BYTES = 5 * 1024 * 1024


class McpLog:
    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes

    def write(self, server: str, level: str, logger: str | None, data: Any) -> None:
        """``<time> [<server>] <level> <logger>: <message>``; a log that cannot be written is skipped."""
        message = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        when = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line = f"{when} [{server}] {level} {logger or '-'}: {message}\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size + len(line) > self.max_bytes:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line)
        except OSError:
            pass
