"""Skills (spec §4.3): discovery, frontmatter validation (warnings, never crashes), prompt block, expansion."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from pi_app.session.resources.frontmatter import parse_frontmatter, read_markdown

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_SKIP_DIRS = {"node_modules"}


@dataclass
class Skill:
    """A skill found on disk: its name and description, its file, and where it was found (user, project, path)."""

    name: str
    description: str
    file_path: str
    base_dir: str
    source: str
    disable_model_invocation: bool = False


@dataclass
class SkillLoadResult:
    """The skills that loaded, and the warnings about their files."""

    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _ignored_names(directory: Path) -> set[str]:
    """Plain names listed in .gitignore/.ignore/.fdignore (enough to skip build and vendor dirs)."""
    names: set[str] = set()
    for fname in (".gitignore", ".ignore", ".fdignore"):
        try:
            text = (directory / fname).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip().strip("/")
            if line and not line.startswith("#") and "*" not in line and "/" not in line:
                names.add(line)
    return names


def _dir_key(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a directory (following symlinks), None when it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _sorted_children(directory: Path) -> list[Path]:
    try:
        return sorted(directory.iterdir())
    except OSError:
        return []


def _walkable(child: Path, ignored: Collection[str] = ()) -> bool:
    try:
        is_dir = child.is_dir()
    except OSError:
        return False
    return (
        is_dir
        and not child.name.startswith(".")
        and child.name not in _SKIP_DIRS
        and child.name not in ignored
    )


def _candidate_files(root: Path) -> list[Path]:
    """``*.md`` directly in ``root``, then ``SKILL.md`` found depth first below it (a directory holding one
    is not searched further). Directories are visited once by (device, inode), so symlink loops end."""
    out: list[Path] = []
    root_key = _dir_key(root)
    if root_key is None or not root.is_dir():
        return out
    root_skill = root / "SKILL.md"
    if root_skill.is_file():  # a skill directory is one skill: its nested SKILL.md files are its own files
        return [root_skill]
    children = _sorted_children(root)
    for entry in children:
        try:
            if entry.is_file() and entry.suffix == ".md":
                out.append(entry)
        except OSError:
            continue
    visited: set[tuple[int, int]] = {root_key}
    stack = [c for c in reversed(children) if _walkable(c)]
    while stack:
        directory = stack.pop()
        key = _dir_key(directory)
        if key is None or key in visited:
            continue
        visited.add(key)
        skill_md = directory / "SKILL.md"
        try:
            if skill_md.is_file():
                out.append(skill_md)
                continue
        except OSError:
            continue
        ignored = _ignored_names(directory)
        stack.extend(c for c in reversed(_sorted_children(directory)) if _walkable(c, ignored))
    return out


def _load_skill(path: Path, source: str, warnings: list[str]) -> Skill | None:
    try:
        text = read_markdown(path, warnings)
    except OSError as exc:
        warnings.append(f"{path}: cannot read skill: {exc.strerror or exc}")
        return None
    fm = parse_frontmatter(text)
    if fm.errors:  # malformed frontmatter: pi does not load the skill
        warnings.extend(f"{path}: skill not loaded: frontmatter {err}" for err in fm.errors)
        return None
    parent = path.parent.name if path.name == "SKILL.md" else path.stem
    name = str(fm.data.get("name") or parent)
    description = fm.data.get("description")
    if description is None or not str(description).strip():
        warnings.append(f"{path}: skill has no description and was not loaded")
        return None
    description = str(description)
    if name != parent:
        warnings.append(f'{path}: name "{name}" does not match its directory "{parent}"')
    if len(name) > MAX_NAME:
        warnings.append(f"{path}: name is longer than {MAX_NAME} characters")
    if not NAME_RE.match(name):
        warnings.append(f'{path}: name "{name}" should use lowercase letters, digits and single hyphens')
    if len(description) > MAX_DESCRIPTION:
        warnings.append(f"{path}: description is longer than {MAX_DESCRIPTION} characters")
    return Skill(
        name=name,
        description=description,
        file_path=str(path),
        base_dir=str(path.parent),
        source=source,
        disable_model_invocation=bool(fm.data.get("disable-model-invocation")),
    )


def skill_dirs(cwd: str, agent_dir: str, home: str | None = None) -> list[tuple[Path, str]]:
    """Default locations, global first: agent dir, ~/.agents, then .pi/.agents in cwd and ancestors up to
    the git root (or the filesystem root when there is no repository)."""
    home_path = Path(home or os.path.expanduser("~"))
    dirs: list[tuple[Path, str]] = [
        (Path(agent_dir) / "skills", "user"),
        (home_path / ".agents" / "skills", "user"),
    ]
    here = Path(cwd).resolve()
    for directory in [here, *here.parents]:
        dirs.append((directory / ".pi" / "skills", "project"))
        dirs.append((directory / ".agents" / "skills", "project"))
        if (directory / ".git").exists():
            break
    return dirs


def load_skills(
    cwd: str,
    agent_dir: str,
    extra_paths: list[str] | None = None,
    include_defaults: bool = True,
    include_project: bool = True,
) -> SkillLoadResult:
    """``include_project=False`` (an untrusted folder) leaves out the .pi/.agents skill directories."""
    result = SkillLoadResult()
    roots: list[tuple[Path, str]] = skill_dirs(cwd, agent_dir) if include_defaults else []
    if not include_project:
        roots = [r for r in roots if r[1] != "project"]
    for p in extra_paths or []:
        path = Path(os.path.expanduser(p))
        if not path.exists():
            result.warnings.append(f"{path}: skill path does not exist")
            continue
        roots.append((path, "path"))
    seen_real: set[str] = set()
    by_name: dict[str, Skill] = {}
    for root, source in roots:
        files = [root] if root.is_file() else _candidate_files(root)
        for f in files:
            real = os.path.realpath(f)
            if real in seen_real:
                continue
            seen_real.add(real)
            skill = _load_skill(f, source, result.warnings)
            if skill is None:
                continue
            if skill.name in by_name:
                result.warnings.append(
                    f'{f}: skill name "{skill.name}" already defined by {by_name[skill.name].file_path}; ignored'
                )
                continue
            by_name[skill.name] = skill
            result.skills.append(skill)
    return result


def _xml(s: str) -> str:
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(skills: list[Skill]) -> str:
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "\n\nThese skills hold instructions for particular kinds of task.",
        "When a task fits a skill's description, load the skill file with the read tool first.",
        "Paths inside a skill file are relative to the skill's directory; turn them into absolute paths before using them in tool calls.",
        "",
        "<available_skills>",
    ]
    for s in visible:
        lines += [
            "  <skill>",
            f"    <name>{_xml(s.name)}</name>",
            f"    <description>{_xml(s.description)}</description>",
            f"    <location>{_xml(s.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: list[Skill]) -> str | None:
    """``/skill:name args`` → the skill block pi sends; None when ``text`` is not a known skill command."""
    if not text.startswith("/skill:"):
        return None
    head, _, args = text[len("/skill:") :].partition(" ")
    name = head.strip()
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return None
    try:
        body = parse_frontmatter(read_markdown(Path(skill.file_path), [])).body.strip()
    except OSError:
        return None
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    args = args.strip()
    return f"{block}\n\n{args}" if args else block
