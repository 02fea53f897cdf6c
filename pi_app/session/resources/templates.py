"""Prompt templates (spec §4.4): ``/name args`` expands a markdown file with $1, $@, ${@:N}, ${@:N:L}."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pi_app.session.resources.frontmatter import parse_frontmatter, read_markdown


@dataclass
class PromptTemplate:
    """A prompt template: the markdown file ``/name args`` expands, with its description and origin."""

    name: str
    description: str
    content: str
    source: str  # "user" | "project" | "path"
    file_path: str


@dataclass
class TemplateLoadResult:
    """The prompt templates that loaded, and the warnings about their files."""

    templates: list[PromptTemplate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def parse_command_args(text: str) -> list[str]:
    """Shell-like split: single or double quotes group, spaces and tabs separate. Empty arguments (``""``)
    are dropped, as pi drops them, so ``$N`` counts only arguments that hold text."""
    args: list[str] = []
    current = ""
    quote: str | None = None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch in " \t":
            if current:
                args.append(current)
            current = ""
        else:
            current += ch
    if current:
        args.append(current)
    return args


_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$(\d+)|\$ARGUMENTS|\$@")


def substitute_args(content: str, args: list[str]) -> str:
    """One pass over the template, so argument values are never substituted again."""
    joined = " ".join(args)

    def repl(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            start = max(int(m.group(1)) - 1, 0)
            if m.group(2) is not None:
                return " ".join(args[start : start + int(m.group(2))])
            return " ".join(args[start:])
        if m.group(3) is not None:
            idx = int(m.group(3)) - 1
            return args[idx] if 0 <= idx < len(args) else ""
        return joined

    return _PLACEHOLDER.sub(repl, content)


def _load_file(path: Path, source: str, warnings: list[str]) -> PromptTemplate | None:
    try:
        raw = read_markdown(path, warnings)
    except OSError as exc:
        warnings.append(f"{path}: cannot read prompt template: {exc.strerror or exc}")
        return None
    fm = parse_frontmatter(raw)
    if fm.errors:  # malformed frontmatter: the template is not loaded (as pi)
        warnings.extend(f"{path}: prompt template not loaded: frontmatter {err}" for err in fm.errors)
        return None
    description = str(fm.data.get("description") or "")
    if not description:
        first = next((line for line in fm.body.split("\n") if line.strip()), "")
        description = first[:60] + ("..." if len(first) > 60 else "")
    # pi 0.73 shows where a template comes from separately (sourceInfo), not inside the description.
    return PromptTemplate(path.stem, description, fm.body, source, str(path))


def _from_dir(directory: Path, source: str, warnings: list[str]) -> list[PromptTemplate]:
    if not directory.is_dir():
        return []
    out = []
    for f in sorted(directory.iterdir()):
        if f.is_file() and f.suffix == ".md":
            t = _load_file(f, source, warnings)
            if t:
                out.append(t)
    return out


def load_prompt_templates(
    cwd: str,
    agent_dir: str,
    extra_paths: list[str] | None = None,
    include_defaults: bool = True,
    include_project: bool = True,
) -> TemplateLoadResult:
    """``include_project=False`` (an untrusted folder) leaves out ``.pi/prompts``."""
    result = TemplateLoadResult()
    found: list[PromptTemplate] = []
    if include_defaults:
        found += _from_dir(Path(agent_dir) / "prompts", "user", result.warnings)
        if include_project:
            found += _from_dir(Path(cwd) / ".pi" / "prompts", "project", result.warnings)
    for p in extra_paths or []:
        path = Path(os.path.expanduser(p))
        if path.is_dir():
            found += _from_dir(path, "path", result.warnings)
        elif path.is_file():
            t = _load_file(path, "path", result.warnings)
            if t:
                found.append(t)
        else:
            result.warnings.append(f"{path}: prompt template path does not exist")
    names: set[str] = set()
    for t in found:
        if t.name in names:
            result.warnings.append(f"{t.file_path}: prompt template /{t.name} is already defined; ignored")
            continue
        names.add(t.name)
        result.templates.append(t)
    return result


def expand_prompt_template(text: str, templates: list[PromptTemplate]) -> str:
    """``/name args`` → the template with arguments substituted; any other text is returned unchanged."""
    if not text.startswith("/"):
        return text
    name, _, rest = text[1:].partition(" ")
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(rest))
