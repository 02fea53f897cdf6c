"""Copying text: the system clipboard tool when one exists, else OSC 52 through the terminal.

A copy is reported only when it happened: ``copy`` returns the backend that took the text, or None.
Tests inject a :class:`MemoryClipboard`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol


class Clipboard(Protocol):
    def copy(self, text: str) -> str | None:
        """Put ``text`` on the clipboard; return the backend's name, or None when nothing was copied."""
        ...


def system_commands(env: Mapping[str, str], platform: str = sys.platform) -> list[list[str]]:
    """Clipboard writer commands available here, most native first."""
    candidates: list[list[str]] = []
    if platform == "darwin":
        candidates.append(["pbcopy"])
    elif platform.startswith("win"):
        candidates.append(["clip"])
    else:
        if env.get("WAYLAND_DISPLAY"):
            candidates.append(["wl-copy"])
        if env.get("DISPLAY"):
            candidates.append(["xclip", "-selection", "clipboard"])
            candidates.append(["xsel", "--clipboard", "--input"])
    return [c for c in candidates if shutil.which(c[0])]


@dataclass
class SystemClipboard:
    """Native tools (pbcopy, wl-copy, xclip, xsel), then OSC 52 via ``osc52`` (the App's writer)."""

    osc52: Callable[[str], None] | None = None
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    timeout_s: float = 2.0

    def copy(self, text: str) -> str | None:
        for cmd in system_commands(self.env):
            try:
                done = subprocess.run(
                    cmd, input=text.encode("utf-8"), timeout=self.timeout_s, capture_output=True, check=False
                )
            except (OSError, subprocess.TimeoutExpired):
                continue
            if done.returncode == 0:
                return cmd[0]
        if self.osc52 is not None:
            # OSC 52 cannot be confirmed; over SSH it is the only route, so it counts as sent.
            self.osc52(text)
            return "osc52"
        return None


@dataclass
class MemoryClipboard:
    """For tests: records every copy."""

    copies: list[str] = field(default_factory=list)
    available: bool = True

    def copy(self, text: str) -> str | None:
        if not self.available:
            return None
        self.copies.append(text)
        return "memory"

    @property
    def last(self) -> str | None:
        return self.copies[-1] if self.copies else None
