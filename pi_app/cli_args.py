"""pi's command line: ``parse_args(argv) -> CliArgs``. The help text is ``pi_app.cli_help``, the tool
flags' meaning ``pi_app.tool_selection`` and ``@file`` arguments ``pi_app.cli_files``.

Pure and import-light on purpose: ``pi --version`` / ``pi --help`` must start fast, so nothing here
imports pydantic, Textual or an SDK. Errors are :class:`CliError`; the caller prints the message as one
line to stderr and exits non-zero.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pi_app.tool_selection import ToolSelection, resolve_tools

MODES: tuple[str, ...] = ("text", "json", "rpc")
# Same order as pi_app.ai.types.THINKING_LEVELS (not imported: that module pulls in pydantic).
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


class CliError(Exception):
    """Bad command line; ``str(err)`` is the one line to print."""


TUI_MODES: tuple[str, ...] = ("regular", "fullscreen")
# pi's sub-commands this port does not have: said so instead of being sent to the model as a prompt.
UNSUPPORTED_COMMANDS: tuple[str, ...] = (
    "install",
    "remove",
    "uninstall",
    "update",
    "list",
    "config",
    "auth",
)
_SESSION_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")


def parse_tool_list(value: str, sel: ToolSelection) -> None:
    """Fill ``sel`` from one ``--tools`` value; raises CliError as pi does for mixed or patterned deltas."""
    entries = _split_commas(value)
    deltas = [e for e in entries if e[0] in "+-"]
    if deltas and len(deltas) != len(entries):
        raise CliError("--tools: tool names cannot be mixed with +name or -name entries")
    for entry in deltas:
        if "*" in entry:
            raise CliError(f"--tools: +name and -name entries take exact tool names, not patterns: {entry}")
    if not deltas:
        sel.allow, sel.add, sel.remove = entries, [], []
        return
    sel.allow = None
    sel.add = [e[1:] for e in deltas if e[0] == "+" and e[1:]]
    sel.remove = [e[1:] for e in deltas if e[0] == "-" and e[1:]]


@dataclass
class CliArgs:
    """The parsed command line: one field per option, plus the prompt messages and ``@file`` arguments."""

    help: bool = False
    version: bool = False
    mode: Literal["text", "json", "rpc"] | None = None
    print: bool = False
    continue_session: bool = False  # -c/--continue
    resume: bool = False
    session: str | None = None  # path or (partial) session id
    session_dir: str | None = None
    no_session: bool = False
    fork: str | None = None  # session path or id to fork from
    name: str | None = None  # session display name
    provider: str | None = None
    model: str | None = None  # raw pattern; see split_model_pattern
    api_key: str | None = None
    thinking: str | None = None
    models: list[str] | None = None  # --models, split on commas
    # The final tool list when -t/-xt/-nbt/-nt were given (resolved against the default tools by
    # resolve_tools), else None. tool_selection keeps the raw flags for callers that resolve against
    # another base (a resumed session's tools).
    tools: list[str] | None = None
    no_tools: bool = False  # -nt
    no_builtin_tools: bool = False  # -nbt
    tool_selection: ToolSelection | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)  # repeatable, in order
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    themes: list[str] = field(default_factory=list)  # --theme, repeatable
    no_themes: bool = False
    use_theme: str | None = None  # --use-theme: initial theme name for this run
    no_context_files: bool = False  # -nc
    no_mcp: bool = False  # skip the builtin:mcp extension
    session_id: str | None = None  # --session-id
    tui_mode: Literal["fullscreen", "regular"] | None = None
    export: str | None = None  # input session file
    export_out: str | None = None  # optional output path after it
    list_models: bool = False
    list_models_search: str | None = None
    verbose: bool = False
    offline: bool = False
    approve: bool = False  # -a: trust project resources for this process
    no_approve: bool = False  # -na: skip them for this process

    @property
    def project_trust_override(self) -> bool | None:
        """This process's trust decision from the command line (None: none given)."""
        return True if self.approve else False if self.no_approve else None

    messages: list[str] = field(default_factory=list)
    file_args: list[str] = field(default_factory=list)  # @file arguments without the "@"
    # flags registered by extensions: name (without "--") -> True or the string value
    extension_flags: dict[str, bool | str] = field(default_factory=dict)
    # long options nobody knew while extensions were not loaded yet (see parse_args' defer_unknown)
    unknown_options: list[str] = field(default_factory=list)
    argv: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # non-fatal problems for stderr


# option -> CliArgs attribute; the value kind decides how it is stored
_BOOL_FLAGS: dict[str, str] = {
    "--help": "help",
    "-h": "help",
    "--version": "version",
    "-v": "version",
    "--print": "print",
    "-p": "print",
    "--continue": "continue_session",
    "-c": "continue_session",
    "--resume": "resume",
    "-r": "resume",
    "--no-session": "no_session",
    "--no-tools": "no_tools",
    "-nt": "no_tools",
    "--no-builtin-tools": "no_builtin_tools",
    "-nbt": "no_builtin_tools",
    "--no-context-files": "no_context_files",
    "-nc": "no_context_files",
    "--no-mcp": "no_mcp",
    "--no-extensions": "no_extensions",
    "-ne": "no_extensions",
    "--no-skills": "no_skills",
    "-ns": "no_skills",
    "--no-prompt-templates": "no_prompt_templates",
    "-np": "no_prompt_templates",
    "--no-themes": "no_themes",
    "--verbose": "verbose",
    "--offline": "offline",
    "--approve": "approve",
    "-a": "approve",
    "--no-approve": "no_approve",
    "-na": "no_approve",
}
_STRING_OPTS: dict[str, str] = {
    "--provider": "provider",
    "--model": "model",
    "--api-key": "api_key",
    "--system-prompt": "system_prompt",
    "--session": "session",
    "--session-dir": "session_dir",
    "--name": "name",
    "-n": "name",
    "--fork": "fork",
    "--use-theme": "use_theme",
}
_LIST_OPTS: dict[str, str] = {
    "--append-system-prompt": "append_system_prompt",
    "--extension": "extensions",
    "-e": "extensions",
    "--skill": "skills",
    "--prompt-template": "prompt_templates",
    "--theme": "themes",
}
_SPECIAL = {
    "--mode",
    "--thinking",
    "--models",
    "--tools",
    "-t",
    "--exclude-tools",
    "-xt",
    "--session-id",
    "--tui-mode",
    "--export",
    "--list-models",
}


def _split_commas(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _is_optional_value(arg: str) -> bool:
    """Whether ``arg`` can be the optional value of --list-models / --export (not a flag or @file)."""
    return not arg.startswith("-") and not arg.startswith("@")


def parse_args(
    argv: list[str],
    extension_flags: Mapping[str, Literal["boolean", "string"]] | None = None,
    *,
    defer_unknown: bool = False,
) -> CliArgs:
    """Parse pi's command line (without the program name).

    ``extension_flags`` maps extension-registered flag names (without ``--``) to their kind; any other
    unknown option raises ``CliError("Unknown option: --foo")`` — unless ``defer_unknown``: then unknown
    long options are collected in ``unknown_options`` and the line is parsed again once extensions have
    declared their flags.
    """
    out = CliArgs(argv=list(argv))
    ext = dict(extension_flags or {})
    if argv and argv[0] in UNSUPPORTED_COMMANDS:
        raise CliError(
            f'"pi {argv[0]}" is not supported by this version of pi (no package or auth commands); '
            f'to send it as a prompt, use: pi -- "{argv[0]}"'
        )
    i = 0
    n = len(argv)

    def take_value(flag: str, inline: str | None) -> str:
        nonlocal i
        if inline is not None:
            return inline
        if i + 1 >= n:
            raise CliError(f"Option {flag} requires a value")
        i += 1
        return argv[i]

    only_positional = False
    while i < n:
        arg = argv[i]
        if only_positional or not arg.startswith("-") or arg == "-":
            if arg.startswith("@") and not only_positional:
                out.file_args.append(arg[1:])
            elif arg == "-" and not only_positional:
                raise CliError("Unknown option: -")
            else:
                out.messages.append(arg)
            i += 1
            continue
        if arg == "--":
            only_positional = True
            i += 1
            continue

        flag, inline = arg, None
        if arg.startswith("--") and "=" in arg:  # also accept --opt=value
            flag, inline = arg.split("=", 1)

        if flag in _BOOL_FLAGS:
            if inline is not None:
                raise CliError(f"Option {flag} does not take a value")
            setattr(out, _BOOL_FLAGS[flag], True)
        elif flag in _STRING_OPTS:
            setattr(out, _STRING_OPTS[flag], take_value(flag, inline))
        elif flag in _LIST_OPTS:
            getattr(out, _LIST_OPTS[flag]).append(take_value(flag, inline))
        elif flag in _SPECIAL:
            _parse_special(out, flag, inline, take_value)
            # optional trailing value: --export <in> [out], --list-models [search]
            if flag == "--export" or (flag == "--list-models" and inline is None):
                if i + 1 < n and _is_optional_value(argv[i + 1]):
                    i += 1
                    if flag == "--export":
                        out.export_out = argv[i]
                    else:
                        out.list_models_search = argv[i]
        elif flag.startswith("--") and flag[2:] in ext:
            name = flag[2:]
            if ext[name] == "boolean":
                out.extension_flags[name] = True
            else:
                out.extension_flags[name] = take_value(flag, inline)
        elif defer_unknown and flag.startswith("--"):
            out.unknown_options.append(flag)
        else:
            raise CliError(f"Unknown option: {flag}")
        i += 1
    if out.approve and out.no_approve:
        raise CliError("--approve and --no-approve cannot be used together")
    _finish(out)
    return out


def _finish(out: CliArgs) -> None:
    """Checks across flags, the resolved tool list, and warnings for flags this port cannot honour yet."""
    if out.fork:
        for flag, given in (
            ("--session", out.session),
            ("--continue", out.continue_session),
            ("--resume", out.resume),
            ("--no-session", out.no_session),
        ):
            if given:
                raise CliError(f"--fork cannot be combined with {flag}")
    if out.session_id is not None:
        for flag, given in (
            ("--session", out.session),
            ("--continue", out.continue_session),
            ("--resume", out.resume),
        ):
            if given:
                raise CliError(f"--session-id cannot be combined with {flag}")
    sel = out.tool_selection
    if sel is not None or out.no_tools or out.no_builtin_tools:
        sel = sel or ToolSelection()
        sel.no_tools, sel.no_builtin_tools = out.no_tools, out.no_builtin_tools
        out.tool_selection = sel
        out.tools, warnings = resolve_tools(sel)
        out.warnings += warnings
    if out.tui_mode == "regular":
        out.warnings.append('Warning: --tui-mode regular is not supported; using "fullscreen"')


def _parse_special(
    out: CliArgs, flag: str, inline: str | None, take_value: Callable[[str, str | None], str]
) -> None:
    if flag == "--mode":
        mode = take_value(flag, inline)
        if mode not in MODES:
            raise CliError(f'Invalid mode "{mode}". Valid values: {", ".join(MODES)}')
        out.mode = mode  # type: ignore[assignment]
    elif flag == "--thinking":
        level = take_value(flag, inline)
        if level not in THINKING_LEVELS:
            raise CliError(f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}')
        out.thinking = level
    elif flag == "--models":
        out.models = _split_commas(take_value(flag, inline))
    elif flag in ("--tools", "-t"):
        out.tool_selection = out.tool_selection or ToolSelection()
        parse_tool_list(take_value(flag, inline), out.tool_selection)
    elif flag in ("--exclude-tools", "-xt"):
        out.tool_selection = out.tool_selection or ToolSelection()
        out.tool_selection.exclude += _split_commas(take_value(flag, inline))
    elif flag == "--session-id":
        value = take_value(flag, inline)
        if not _SESSION_ID_RE.match(value):
            raise CliError(
                "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
                "and start and end with an alphanumeric character"
            )
        out.session_id = value
    elif flag == "--tui-mode":
        mode = take_value(flag, inline)
        if mode not in TUI_MODES:
            raise CliError(f'Invalid TUI mode "{mode}". Valid values: {", ".join(TUI_MODES)}')
        out.tui_mode = mode  # type: ignore[assignment]
    elif flag == "--export":
        out.export = take_value(flag, inline)
    elif flag == "--list-models":
        out.list_models = True
        if inline is not None:
            out.list_models_search = inline


def split_model_pattern(pattern: str) -> tuple[str | None, str, str | None]:
    """Split ``--model`` into (provider hint, model pattern, thinking level).

    ``anthropic/claude-sonnet-4:high`` -> ("anthropic", "claude-sonnet-4", "high"). The suffix counts as a
    thinking level only when it is one; the provider hint is the text before the first "/" and the caller
    decides whether it names a known provider (model ids such as ``openai/gpt-4o`` on OpenRouter contain
    slashes too).
    """
    thinking: str | None = None
    head, sep, tail = pattern.rpartition(":")
    if sep and tail in THINKING_LEVELS and head:
        pattern, thinking = head, tail
    provider: str | None = None
    if "/" in pattern:
        first, rest = pattern.split("/", 1)
        if first and rest:
            provider = first
    model_id = pattern[len(provider) + 1 :] if provider else pattern
    return provider, model_id, thinking
