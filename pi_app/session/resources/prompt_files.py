"""SYSTEM.md and APPEND_SYSTEM.md: files that replace or extend the default system prompt.

The project's ``.pi/`` file wins over the agent directory's file of the same name (they are not combined).
Project files are protected resources: they are read only when ``allow_project`` is true (project trust).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"


@dataclass(frozen=True)
class PromptFile:
    """A SYSTEM.md or APPEND_SYSTEM.md that was read: its path and text."""

    path: str
    content: str


@dataclass(frozen=True)
class PromptFiles:
    """The SYSTEM.md and APPEND_SYSTEM.md in effect, if any."""

    system: PromptFile | None = None  # replaces the default prompt
    append: PromptFile | None = None  # added after it


def _read(path: Path, warnings: list[str]) -> PromptFile | None:
    try:
        if not path.is_file():
            return None
        return PromptFile(str(path), path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        warnings.append(f"{path}: cannot read: {exc.strerror or exc}")
        return None


def _first(
    name: str, cwd: str, agent_dir: str, allow_project: bool, warnings: list[str]
) -> PromptFile | None:
    if allow_project:
        found = _read(Path(cwd) / ".pi" / name, warnings)
        if found is not None:
            return found
    return _read(Path(agent_dir) / name, warnings)


def load_prompt_files(
    cwd: str, agent_dir: str, *, allow_project: bool = True, warnings: list[str] | None = None
) -> PromptFiles:
    """The SYSTEM.md / APPEND_SYSTEM.md in force: ``cwd/.pi/`` first (when allowed), then the agent dir."""
    sink = warnings if warnings is not None else []
    return PromptFiles(
        system=_first(SYSTEM_FILE, cwd, agent_dir, allow_project, sink),
        append=_first(APPEND_SYSTEM_FILE, cwd, agent_dir, allow_project, sink),
    )
