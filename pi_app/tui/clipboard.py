"""Copying text: the system clipboard tool when one exists, else OSC 52 through the terminal; reading an
image from the clipboard (Ctrl+V, as pi) with the same tools.

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

    def paste_image(self) -> bytes | None:
        """The image on the clipboard (PNG or whatever the tool gives), or None when there is none."""
        ...


IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp")


def image_readers(env: Mapping[str, str], platform: str = sys.platform) -> list[tuple[list[str], list[str]]]:
    """(command that lists the clipboard's types, command that prints an image of type {type}) pairs
    available here; on macOS ``pngpaste -`` prints the image directly (no listing)."""
    out: list[tuple[list[str], list[str]]] = []
    if platform == "darwin":
        if shutil.which("pngpaste"):
            out.append(([], ["pngpaste", "-"]))
    elif not platform.startswith("win"):
        if env.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
            out.append((["wl-paste", "--list-types"], ["wl-paste", "--no-newline", "--type", "{type}"]))
        if env.get("DISPLAY") and shutil.which("xclip"):
            out.append(
                (
                    ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
                    ["xclip", "-selection", "clipboard", "-t", "{type}", "-o"],
                )
            )
    return out


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

    def _run(self, cmd: list[str]) -> bytes | None:
        try:
            done = subprocess.run(cmd, timeout=self.timeout_s, capture_output=True, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 and done.stdout else None

    def paste_image(self) -> bytes | None:
        for lister, reader in image_readers(self.env):
            if not lister:
                found = self._run(reader)
                if found:
                    return found
                continue
            listed = self._run(lister)
            types = listed.decode("utf-8", "replace").split() if listed else []
            kind = next((t for t in IMAGE_TYPES if t in types), None)
            if kind is not None:
                data = self._run([part.replace("{type}", kind) for part in reader])
                if data:
                    return data
        return None


@dataclass
class MemoryClipboard:
    """For tests: records every copy."""

    copies: list[str] = field(default_factory=list)
    available: bool = True
    image: bytes | None = None  # what paste_image returns

    def copy(self, text: str) -> str | None:
        if not self.available:
            return None
        self.copies.append(text)
        return "memory"

    @property
    def last(self) -> str | None:
        return self.copies[-1] if self.copies else None

    def paste_image(self) -> bytes | None:
        return self.image
