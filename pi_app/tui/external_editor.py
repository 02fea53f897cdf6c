"""Ctrl+G: edit the prompt in the user's own editor ($VISUAL, then $EDITOR, then vi)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping


def editor_command(env: Mapping[str, str]) -> list[str]:
    for var in ("VISUAL", "EDITOR"):
        value = env.get(var, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


def edit_text(text: str, env: Mapping[str, str] | None = None) -> str | None:
    """Run the editor on ``text`` in a temp file and return the new text (None if the editor failed).

    A trailing newline added by the editor is dropped, so a one-line prompt stays one line."""
    env = os.environ if env is None else env
    fd, path = tempfile.mkstemp(prefix="pi-prompt-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            done = subprocess.run([*editor_command(env), path], check=False)
        except OSError:
            return None
        if done.returncode != 0:
            return None
        with open(path, encoding="utf-8") as fh:
            new = fh.read()
        return new[:-1] if new.endswith("\n") else new
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
