"""What a session is built from, besides the store: resources (context files, skills, templates), the system
prompt, tool options from settings, and the message conversion for the model (image blocking)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.ai.deferred import Deferred
from pi_app.ai.types import ImageContent, TextContent
from pi_app.session.config import SettingsManager
from pi_app.session.messages import convert_to_llm
from pi_app.session.resources.context_files import ContextFile, load_context_files
from pi_app.session.resources.prompt_files import PromptFiles, load_prompt_files
from pi_app.session.resources.skills import Skill, load_skills
from pi_app.session.resources.system_prompt import SystemPromptOptions, build_system_prompt
from pi_app.session.resources.templates import PromptTemplate, load_prompt_templates
from pi_app.tools.options import OutputLimits, ToolOptions

IMAGE_BLOCKED_TEXT = "Image reading is disabled."


@dataclass
class ResourceOptions:
    """What decides the loaded resources and the system prompt (kept for ``reload()``)."""

    system_prompt: str | None = None
    append_system_prompt: str | list[str] | None = (
        None  # each item text or a file path, joined by blank lines
    )
    skills_paths: list[str] = field(default_factory=list)
    no_skills: bool = False
    template_paths: list[str] = field(default_factory=list)
    no_templates: bool = False
    no_context_files: bool = False  # -nc: no AGENTS.md / CLAUDE.md
    # Whether protected project resources (.pi/SYSTEM.md, .pi/APPEND_SYSTEM.md) may load: project trust.
    allow_project: bool = True


@dataclass
class Resources:
    """What a session loaded besides its store: context files, skills, templates, SYSTEM.md files, warnings."""

    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    prompt_templates: list[PromptTemplate] = field(default_factory=list)
    prompt_files: PromptFiles = field(default_factory=PromptFiles)  # SYSTEM.md / APPEND_SYSTEM.md
    warnings: list[str] = field(default_factory=list)


def _text_or_file(value: str | None) -> str | None:
    """``--system-prompt`` and ``--append-system-prompt`` take text or the path of a file holding it."""
    if not value:
        return value
    try:
        path = Path(os.path.expanduser(value))
        if len(value) < 4096 and "\n" not in value and path.is_file():
            return path.read_text(encoding="utf-8")
    except OSError:
        pass
    return value


def load_resources(cwd: str, agent_dir: str, settings: SettingsManager, opts: ResourceOptions) -> Resources:
    s = settings.settings
    trusted = settings.project_trusted  # context files load regardless; project resources need trust
    res = Resources(context_files=[] if opts.no_context_files else load_context_files(cwd, agent_dir))
    res.prompt_files = load_prompt_files(
        cwd, agent_dir, allow_project=opts.allow_project and trusted, warnings=res.warnings
    )
    skills = load_skills(
        cwd,
        agent_dir,
        [*s.skills, *opts.skills_paths],
        include_defaults=not opts.no_skills,
        include_project=trusted,
    )
    res.skills = skills.skills
    res.warnings += skills.warnings
    templates = load_prompt_templates(
        cwd,
        agent_dir,
        [*s.prompts, *opts.template_paths],
        include_defaults=not opts.no_templates,
        include_project=trusted,
    )
    res.prompt_templates = templates.templates
    res.warnings += templates.warnings
    return res


def system_prompt_for(
    cwd: str,
    tool_names: list[str],
    res: Resources,
    opts: ResourceOptions,
    *,
    tool_snippets: dict[str, str] | None = None,
    prompt_guidelines: list[str] | None = None,
) -> str:
    """``--system-prompt`` beats SYSTEM.md; ``--append-system-prompt`` replaces APPEND_SYSTEM.md (as pi 1.6)."""
    files = res.prompt_files
    custom = _text_or_file(opts.system_prompt) if opts.system_prompt else None
    if custom is None and files.system is not None:
        custom = files.system.content
    appends = opts.append_system_prompt
    if isinstance(appends, str):
        appends = [appends]
    append = "\n\n".join(_text_or_file(a) or "" for a in appends) if appends else None
    if append is None and files.append is not None:
        append = files.append.content
    return build_system_prompt(
        SystemPromptOptions(
            cwd=cwd,
            custom_prompt=custom,
            selected_tools=tool_names,
            tool_snippets=dict(tool_snippets or {}),
            prompt_guidelines=list(prompt_guidelines or []),
            append_system_prompt=append,
            context_files=res.context_files,
            skills=res.skills,
        )
    )


def tool_options_from_settings(settings: SettingsManager, agent_dir: str) -> ToolOptions:
    s = settings.settings
    t = s.tools
    base = OutputLimits(max_lines=t.maxLines, max_bytes=t.maxBytes)
    per_tool = {
        name: OutputLimits(max_lines=lim.maxLines or base.max_lines, max_bytes=lim.maxBytes or base.max_bytes)
        for name, lim in t.limits.items()
    }
    return ToolOptions(
        limits=base,
        tool_limits=per_tool,
        grep_max_line_length=t.grepMaxLineLength,
        bash_timeout=t.bashTimeout,
        shell_command_prefix=s.shellCommandPrefix,
        shell_path=s.shellPath,
        auto_resize_images=s.images.autoResize,
        keep_background_processes=s.bash.keepBackgroundProcesses,
        bin_dir=os.path.join(agent_dir, "bin"),
    )


def block_images(messages: list[Any]) -> list[Any]:
    """Every image becomes the text "Image reading is disabled." (consecutive duplicates collapsed)."""
    out: list[Any] = []
    for msg in messages:
        if isinstance(msg, Deferred) and msg.role in ("user", "toolResult"):
            msg = msg.value()  # untyped so far (see convert_to_llm): its images are found typed
            if msg is None:
                continue
        content = getattr(msg, "content", None)
        if getattr(msg, "role", None) not in ("user", "toolResult") or not isinstance(content, list):
            out.append(msg)
            continue
        if not any(isinstance(c, ImageContent) for c in content):
            out.append(msg)
            continue
        blocks: list[Any] = []
        for c in content:
            if isinstance(c, ImageContent):
                prev = blocks[-1] if blocks else None
                if isinstance(prev, TextContent) and prev.text == IMAGE_BLOCKED_TEXT:
                    continue
                c = TextContent(text=IMAGE_BLOCKED_TEXT)
            blocks.append(c)
        out.append(msg.model_copy(update={"content": blocks}))
    return out


def make_convert_to_llm(settings: SettingsManager) -> Callable[[list[Any]], list[Any]]:
    def convert(messages: list[Any]) -> list[Any]:
        converted = convert_to_llm(messages)
        # Read per call: toggling the setting mid-session takes effect on the next request.
        return block_images(converted) if settings.settings.images.blockImages else converted

    return convert
