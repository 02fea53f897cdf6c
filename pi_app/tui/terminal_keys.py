"""What the terminal can and cannot tell apart.

Alt+Enter: terminals without an extended-key protocol (xterm's default, tmux, most emulators) send it as ESC
then CR. Textual's parser drops the ESC of that pair and reports a plain Enter, so a follow-up went out as
steering. :func:`recognise_esc_cr` teaches the parser the pair; Textual offers no public hook for input
sequences, so this adds one entry to its sequence table (a test guards the parser's behaviour).

Shift+Enter and Ctrl+Enter: inside tmux without ``extended-keys`` they arrive as plain Enter (and
Ctrl+Shift+letter as Ctrl+letter), so they cannot be told apart at all. :func:`unreachable_keys` names such keys (for /hotkeys, which must not advertise them) and
:func:`key_notes` says so once at start, naming the key that does arrive.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

ESC_CR = "\x1b\r"


@dataclass(frozen=True)
class _KeyName:
    """Stands in for a ``textual.keys.Keys`` member in the parser's table (it reads ``.value``)."""

    value: str


def recognise_esc_cr() -> None:
    """Make the ESC CR pair arrive as ``alt+enter`` (idempotent)."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table = ANSI_SEQUENCES_KEYS
    if ESC_CR not in table and isinstance(table, dict):
        table[ESC_CR] = (_KeyName("alt+enter"),)


def _tmux_option(name: str) -> str | None:
    """A global tmux option's value (None: no tmux client, or it did not answer)."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    try:
        done = subprocess.run(
            [tmux, "show-options", "-gv", name], capture_output=True, text=True, timeout=1, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def unreachable_keys(
    env: Mapping[str, str], tmux_option: Callable[[str], str | None] = _tmux_option
) -> frozenset[str]:
    """Keys that cannot arrive in this terminal as themselves (they come as another key)."""
    if env.get("TMUX") and (tmux_option("extended-keys") or "off") == "off":
        # Enter with a modifier comes as Enter; Ctrl+Shift+letter as Ctrl+letter (a control byte has no Shift)
        return frozenset(
            {"shift+enter", "ctrl+enter", *(f"ctrl+shift+{c}" for c in "abcdefghijklmnopqrstuvwxyz")}
        )
    return frozenset()


def key_notes(unreachable: frozenset[str]) -> list[str]:
    """What to tell the user once at start about keys that cannot arrive, and the key to use instead."""
    if "shift+enter" in unreachable:
        return [
            "tmux has extended-keys off, so Shift+Enter arrives as Enter here: use Ctrl+J for a new line "
            "(or add `set -g extended-keys on` to ~/.tmux.conf and restart tmux)"
        ]
    return []
