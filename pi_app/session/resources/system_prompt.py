"""The system prompt (spec §4.2): same structure and information as pi 0.73's, in our own words."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from pi_app.session.resources.context_files import ContextFile
from pi_app.session.resources.skills import Skill, format_skills_for_prompt

DEFAULT_TOOLS = ("read", "bash", "edit", "write")

TOOL_ONE_LINERS = {
    "read": "Read the contents of a file",
    "bash": "Run shell commands (ls, rg, find, git, tests, ...)",
    "edit": "Replace exact text in a file; several separate replacements per call",
    "write": "Create a file or overwrite one completely",
    "grep": "Search file contents for a pattern (honours .gitignore)",
    "find": "Find files by glob pattern (honours .gitignore)",
    "ls": "List a directory",
}

DOCS_URL = "https://github.com/badlogic/pi-mono/tree/main/packages/coding-agent"


@dataclass
class SystemPromptOptions:
    """What the system prompt is built from: cwd, tools and their snippets, context files, skills, overrides."""

    cwd: str
    custom_prompt: str | None = None
    selected_tools: list[str] | None = None
    tool_snippets: dict[str, str] = field(default_factory=dict)
    prompt_guidelines: list[str] = field(default_factory=list)
    append_system_prompt: str | None = None
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    today: date | None = None  # injectable for golden tests
    docs_path: str = DOCS_URL


def _guidelines(tools: list[str], extra: list[str]) -> list[str]:
    out: list[str] = []

    def add(text: str) -> None:
        if text and text not in out:
            out.append(text)

    has = set(tools)
    explore = has & {"grep", "find", "ls"}
    if "bash" in has and not explore:
        add("Use bash for looking around the file system (ls, rg, find)")
    elif "bash" in has and explore:
        add(
            "For exploring files prefer the grep, find and ls tools to bash: they are faster and honour .gitignore"
        )
    if "read" in has and "edit" in has:
        add("Read a file with the read tool before editing it; do not inspect files with cat or sed")
    if "edit" in has:
        add(
            "With edit, each oldText must match the file exactly and be unique in it; keep it short but "
            "unambiguous. Put several separate changes to one file into one edit call as multiple edits, "
            "and never let two edits overlap"
        )
    if "write" in has:
        add("Use write only to create new files or to replace a file entirely")
    if "edit" in has or "write" in has:
        add("Report what you did in plain prose; do not echo files or changes through bash or cat")
    for g in extra:
        add(g.strip())
    add("Keep answers short and to the point")
    add("Name file paths explicitly when you talk about files")
    return out


def _tail(opts: SystemPromptOptions, tools: list[str]) -> str:
    """Parts 5-8: appended prompt, project context, skills, date and cwd (shared by custom prompts)."""
    out = ""
    if opts.append_system_prompt:
        out += f"\n\n{opts.append_system_prompt}"
    if opts.context_files:
        out += "\n\n# Project Context\n\nInstructions and conventions for this project:\n\n"
        for cf in opts.context_files:
            out += f"## {cf.path}\n\n{cf.content}\n\n"
    if "read" in tools and opts.skills:
        out += format_skills_for_prompt(opts.skills)
    today = (opts.today or date.today()).isoformat()
    out += f"\nCurrent date: {today}"
    out += f"\nCurrent working directory: {opts.cwd.replace(chr(92), '/')}"
    return out


def build_system_prompt(opts: SystemPromptOptions) -> str:
    tools = list(opts.selected_tools) if opts.selected_tools is not None else list(DEFAULT_TOOLS)
    if opts.custom_prompt:
        return opts.custom_prompt + _tail(opts, tools)
    tool_lines = (
        "\n".join(f"- {t}: {opts.tool_snippets.get(t) or TOOL_ONE_LINERS.get(t) or t}" for t in tools)
        if tools
        else "(none)"
    )
    guidelines = "\n".join(f"- {g}" for g in _guidelines(tools, opts.prompt_guidelines))
    head = (
        "You are an expert software engineer working as a coding assistant inside pi, a terminal coding agent. "
        "You help the user by reading files, running commands, editing code and writing new files.\n\n"
        f"Available tools:\n{tool_lines}\n\n"
        "The project may also give you further custom tools beyond these.\n\n"
        f"Guidelines:\n{guidelines}\n\n"
        "About pi itself (consult only when the user asks about pi, its extensions, themes, skills, prompt "
        "templates, keybindings, models or SDK):\n"
        f"- Documentation: {opts.docs_path} (README.md and docs/)\n"
        "- Read the relevant document completely and follow its links before acting on it"
    )
    return head + _tail(opts, tools)
