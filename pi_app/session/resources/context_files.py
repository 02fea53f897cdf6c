"""AGENTS.md / CLAUDE.md discovery: the agent dir first, then every ancestor of cwd from the root down."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class ContextFile:
    """An AGENTS.md or CLAUDE.md found for the session: its path and text, for the system prompt."""

    path: str
    content: str


def _first_in(directory: Path) -> Path | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def load_context_files(cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str]) -> list[ContextFile]:
    found: list[Path] = []
    global_file = _first_in(Path(agent_dir))
    if global_file:
        found.append(global_file)
    here = Path(cwd).resolve()
    chain = [here, *here.parents]
    for directory in reversed(chain):
        f = _first_in(directory)
        if f:
            found.append(f)
    out: list[ContextFile] = []
    seen: set[str] = set()
    for path in found:
        key = str(path.resolve())
        if key in seen:
            continue
        seen.add(key)
        try:
            out.append(ContextFile(str(path), path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return out
