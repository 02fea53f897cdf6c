"""pi's command line: ``parse_args(argv) -> CliArgs``, ``HELP_TEXT`` and ``@file`` processing.

Pure and import-light on purpose: ``pi --version`` / ``pi --help`` must start fast, so nothing here
imports pydantic, Textual or an SDK at module level (``ImageContent`` is imported inside
:func:`process_file_args`). Errors are :class:`CliError`; the caller prints the message as one line to
stderr and exits non-zero.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent

MODES: tuple[str, ...] = ("text", "json", "rpc")
# Same order as pi_app.ai.types.THINKING_LEVELS (not imported: that module pulls in pydantic).
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
BUILTIN_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")


HELP_TEXT = """pi - a coding agent for the terminal, with read, bash, edit and write tools

Usage:
  pi [options] [--] [@files...] [messages...]

Commands:
  pi mcp add|remove|list          Configure and check MCP servers (pi mcp --help)
  (pi's install, remove, uninstall, update, list, config and auth are not available here)

Options:
  --provider <name>              Provider to search for --model
  --model <pattern>              Model id or pattern; "provider/id" and a ":<thinking>" suffix work too
  --api-key <key>                API key for this run (otherwise taken from the environment / auth.json)
  --system-prompt <text>         Replace the system prompt (text or a file path; beats SYSTEM.md)
  --append-system-prompt <text>  Add text or a file's contents to the system prompt (repeatable;
                                 replaces APPEND_SYSTEM.md)
  --mode <mode>                  Output mode: text (default), json or rpc
  --print, -p                    Run the given prompt(s) without the UI, print the answer and exit
  --continue, -c                 Continue the most recent session in this directory
  --resume, -r                   Pick a previous session to resume
  --session <path|id>            Open a session by file path or full/partial id
  --session-id <id>              Use this directory's session with this id, creating it otherwise
  --fork <path|id>               Fork a session (file path or full/partial id) into this directory
  --session-dir <dir>            Where sessions are stored and looked up
  --no-session                   Do not save anything (in-memory session)
  --name, -n <name>              Name the session
  --models <patterns>            Comma-separated models to cycle with Ctrl+P (globs and fuzzy
                                 matches, e.g. "anthropic/*,*sonnet*,haiku:low")
  --no-tools, -nt                Start with every tool disabled
  --no-builtin-tools, -nbt       Start with the built-in tools disabled
  --tools, -t <tools>            Comma-separated allowlist of tool names or patterns (*) to enable;
                                 a list of only +name/-name entries adds to or removes from the defaults
  --exclude-tools, -xt <tools>   Comma-separated tool names or patterns (*) to disable, applied last
  --thinking <level>             Thinking level: off, minimal, low, medium, high, xhigh, max
  --extension, -e <path>         Load an extension file or directory, or builtin:<name> (repeatable;
                                 loads even with -ne)
  --no-extensions, -ne           Skip discovered and configured extensions and the built-in ones (MCP)
  --no-mcp                       Disable MCP servers (the builtin:mcp extension) for this run
  --skill <path>                 Load a skill file or directory (repeatable)
  --no-skills, -ns               Skip skill discovery (explicit --skill paths still load)
  --prompt-template <path>       Load a prompt template file or directory (repeatable)
  --no-prompt-templates, -np     Skip prompt template discovery (explicit paths still load)
  --theme <path>                 Load a theme file or directory (repeatable)
  --use-theme <name>             Use this theme for this run
  --no-themes                    Skip theme discovery and loading
  --no-context-files, -nc        Skip AGENTS.md and CLAUDE.md discovery and loading
  --export <in.jsonl> [out]      Write a session file out as HTML (or copy it to a .jsonl path) and exit
  --list-models [search]         Print the available models (optionally fuzzy-filtered) and exit
  --approve, -a                  Trust this folder's project config and resources for this run
  --no-approve, -na              Ignore this folder's trust-gated project config for this run
  --verbose                      Show full startup output even if quietStartup is set
  --tui-mode <mode>              TUI mode: fullscreen (default); regular is not supported
  --offline                      No network access at startup (same as PI_OFFLINE=1)
  --                             End option parsing; the rest are messages and @files
  --help, -h                     Print this help and exit
  --version, -v                  Print the version and exit

Arguments:
  @file                          Attach a file: text is added to the first message, images are attached
  message                        Prompts to send, one after another

Examples:
  pi                                          Start the interactive UI
  pi "Explain what src/main.py does"          Start with a first prompt
  pi @notes.md @screenshot.png "What's wrong?" Include files with the prompt
  pi -p "Summarise the README"                Answer once and exit
  pi -p -- "- Summarise these points"         A prompt that begins with a dash
  pi -c "Where were we?"                      Carry on with the last session
  pi --model openai/gpt-4o-mini "Refactor this"
  pi --model sonnet:high "A hard problem"     Model with a thinking level
  pi --tools read,grep,find,ls -p "Review src/"   Read-only run
  pi --tools +grep,-write                     The default tools plus grep, without write
  pi --exclude-tools 'b*'                     Every default tool but bash
  pi --export session.jsonl out.html          Export a session to HTML

Files:
  ~/.pi/agent/SYSTEM.md, .pi/SYSTEM.md        Replace the default system prompt (the project's wins)
  ~/.pi/agent/APPEND_SYSTEM.md, .pi/APPEND_SYSTEM.md   Add to the system prompt (the project's wins)

Environment:
  PI_CODING_AGENT_DIR            Config and session directory (default: ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Session storage directory (overridden by --session-dir)
  PI_OFFLINE                     Set to 1/true/yes to skip startup network access
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, XAI_API_KEY, OPENROUTER_API_KEY,
  MISTRAL_API_KEY, CEREBRAS_API_KEY, ...      Provider API keys

Built-in tool names:
  read                           Read file contents (default)
  bash                           Run shell commands (default)
  edit                           Edit files with exact replacements (default)
  write                          Create or overwrite files (default)
  grep                           Search file contents (off by default)
  find                           Find files by glob pattern (off by default)
  ls                             List directory contents (off by default)
"""


class CliError(Exception):
    """Bad command line; ``str(err)`` is the one line to print."""


DEFAULT_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
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


@dataclass
class ToolSelection:
    """The tool flags as given: ``-t`` is an allowlist (``allow``) or only ``+name``/``-name`` changes to
    the defaults (``add``/``remove``); ``-xt`` patterns are removed last; ``-nt``/``-nbt`` empty the base."""

    allow: list[str] | None = None
    add: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    no_tools: bool = False
    no_builtin_tools: bool = False


def _pattern(entry: str) -> re.Pattern[str]:
    """``*`` matches any characters; nothing else is special."""
    return re.compile("^" + ".*".join(re.escape(part) for part in entry.split("*")) + "$")


MCP_RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})


def tool_selected(sel: ToolSelection, name: str) -> bool:
    """Whether a tool that appears after startup (an extension's, an MCP server's) may be active under the
    tool flags, as pi: ``-nt`` none; an allowlist names or matches it — except that MCP tools (``mcp__*`` and
    the resource tools) are kept until an entry starts with ``mcp__``; ``-xt`` patterns and ``-name`` drop it."""
    if sel.no_tools:
        return False
    is_mcp = name.startswith("mcp__") or name in MCP_RESOURCE_TOOLS
    if sel.allow is not None and (not is_mcp or any(e.startswith("mcp__") for e in sel.allow)):
        if not any(_pattern(e).match(name) for e in sel.allow):
            return False
    if name in sel.remove or any(_pattern(e).match(name) for e in sel.exclude):
        return False
    return True


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


def resolve_tools(
    sel: ToolSelection, base: Sequence[str] = DEFAULT_TOOLS, available: Sequence[str] = BUILTIN_TOOLS
) -> tuple[list[str], list[str]]:
    """The enabled tool names for ``sel`` on top of ``base`` (the defaults, or a resumed session's tools),
    and warnings for names that match no available tool."""
    warnings: list[str] = []
    known = list(available)

    def unknown(name: str) -> None:
        warnings.append(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(known)}')

    start = [] if sel.no_tools or sel.no_builtin_tools else [t for t in base if t in known]
    if sel.allow is not None:
        names: list[str] = []
        for entry in sel.allow:
            matches = [t for t in known if _pattern(entry).match(t)] if "*" in entry else [entry]
            if "*" not in entry and entry not in known:
                unknown(entry)
                continue
            names += [m for m in matches if m not in names]
    else:
        names = list(start)
        for name in sel.add:
            if name not in known:
                unknown(name)
            elif name not in names:
                names.append(name)
        names = [t for t in names if t not in sel.remove]
    if sel.exclude:
        patterns = [_pattern(e) for e in sel.exclude]
        names = [t for t in names if not any(p.match(t) for p in patterns)]
    return names, warnings


@dataclass
class CliArgs:
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


# ---------------------------------------------------------------------------------------------- @file

_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image_mime(head: bytes) -> str | None:
    """png/jpeg/gif/webp from the first bytes, else None (the extension does not matter)."""
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def resolve_file_arg(file_arg: str, cwd: str) -> str:
    """Absolute path for an ``@file`` argument: ``~`` expansion, odd Unicode spaces, macOS screenshot names."""
    path = file_arg[1:] if file_arg.startswith("@") else file_arg
    path = path.translate(_UNICODE_SPACES)
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser("~") + path[1:]
    resolved = os.path.abspath(os.path.join(cwd, path))
    if os.path.exists(resolved):
        return resolved
    am_pm = resolved.replace(" AM.", "\u202fAM.").replace(" PM.", "\u202fPM.")
    nfd = unicodedata.normalize("NFD", resolved)
    for variant in (am_pm, nfd, resolved.replace("'", "\u2019"), nfd.replace("'", "\u2019")):
        if variant != resolved and os.path.exists(variant):
            return variant
    return resolved


def process_file_args(file_args: list[str], cwd: str) -> tuple[str, list[ImageContent]]:
    """Turn ``@file`` arguments into (text prefix for the first message, image attachments).

    Text files are inlined as ``<file name="ABS">\\ncontent\\n</file>\\n``; images (detected by their magic
    bytes) are attached as base64 with an empty ``<file name="ABS"></file>\\n`` reference; empty files are
    skipped. A missing or unreadable file raises CliError naming it. Images are resized to pi's limits
    (``pi_app.tools.images``); the note of a resized or refused image goes inside its ``<file>`` reference.
    """
    from pi_app.ai.types import ImageContent  # deferred: pydantic import is slow for --version

    text = ""
    images: list[ImageContent] = []
    for arg in file_args:
        path = resolve_file_arg(arg, cwd)
        if not os.path.exists(path):
            raise CliError(f"File not found: {path}")
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, "is a directory")
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise CliError(f"Could not read file {path}: {exc.strerror or exc}") from exc
        if not data:
            continue
        mime = sniff_image_mime(data[:16])
        if mime:
            from pi_app.tools.images import ImageRefused, prepare_image

            prepared = prepare_image(data, mime)
            if isinstance(prepared, ImageRefused):
                text += f'<file name="{path}">{prepared.message}</file>\n'
                continue
            images.append(ImageContent(data=prepared.data, mimeType=prepared.mime))
            text += f'<file name="{path}">{"".join(prepared.hints)}</file>\n'
            continue
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError:
            content = data.decode("utf-8", errors="replace")
        text += f'<file name="{path}">\n{content}\n</file>\n'
    return text, images
