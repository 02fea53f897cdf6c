"""Built-in slash commands. Each handler gets the app's :class:`AppContext` (not the App) and the argument
text; the session-tree ones (/tree, /fork, /clone, /resume) live in :mod:`pi_app.tui.session_commands`."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from widgets.completion import SlashCommand
from widgets.notices import ErrorNotice, Notice

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.tui.context import AppContext

Handler = Callable[["AppContext", str], Awaitable[None]]


@dataclass(frozen=True)
class Command:
    """A built-in slash command: ``/name`` (or an alias) runs ``handler(ctx, args)``."""

    name: str
    description: str
    handler: Handler
    aliases: tuple[str, ...] = ()


def session_info_text(session: AgentSession) -> str:
    """pi's /session block (plain text)."""
    stats = session.get_session_stats()
    lines = ["Session Info", ""]
    if session.session_name:
        lines.append(f"Name: {session.session_name}")
    lines += [f"File: {stats.session_file or 'In-memory'}", f"ID: {stats.session_id}", ""]
    lines += [
        "Messages",
        f"User: {stats.user_messages}",
        f"Assistant: {stats.assistant_messages}",
        f"Tool Calls: {stats.tool_calls}",
        f"Tool Results: {stats.tool_results}",
        f"Total: {stats.total_messages}",
        "",
        "Tokens",
        f"Input: {stats.tokens.input:,}",
        f"Output: {stats.tokens.output:,}",
    ]
    if stats.tokens.cache_read:
        lines.append(f"Cache Read: {stats.tokens.cache_read:,}")
    if stats.tokens.cache_write:
        lines.append(f"Cache Write: {stats.tokens.cache_write:,}")
    lines.append(f"Total: {stats.tokens.total:,}")
    if stats.cost > 0:
        lines += ["", "Cost", f"Total: {stats.cost:.4f}"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- handlers
async def _model(app: AppContext, arg: str) -> None:
    app.open_model_selector(arg.strip())


async def _settings(app: AppContext, arg: str) -> None:
    app.open_settings()


async def _mcp(app: AppContext, arg: str) -> None:
    """The MCP screen; ``/mcp <args>`` (reconnect …) and sessions without builtin:mcp go to its command."""
    from pi_app.extensions.builtin.mcp.status import find_mcp

    ext = find_mcp(app.session.hooks)
    if ext is None or arg.strip():
        if not await app.session.hooks.handle_command(f"/mcp {arg}".rstrip()):
            await app.chat.add(Notice("MCP is turned off for this session (--no-mcp, -ne or -builtin:mcp)"))
        return
    from pi_app.tui.screens.mcp import McpScreen

    app.push_screen(McpScreen(ext))


async def _session(app: AppContext, arg: str) -> None:
    await app.chat.add(Notice(session_info_text(app.session), kind="info"))


async def _name(app: AppContext, arg: str) -> None:
    name = arg.strip()
    if not name:
        current = app.session.session_name
        await app.show_status(f"Session name: {current}" if current else "Usage: /name <name>")
        return
    app.session.set_session_name(name)
    await app.show_status(f"Session name set: {name}")
    app.refresh_footer()


THINKING_DESCRIPTIONS = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning",
    "low": "Light reasoning",
    "medium": "Moderate reasoning",
    "high": "Deep reasoning",
    "xhigh": "Maximum reasoning",
}


async def _thinking(app: AppContext, arg: str) -> None:
    from pi_app.ai.types import THINKING_LEVELS

    session = app.session
    model = session.model
    if model is None:
        await app.chat.add(ErrorNotice("No model selected. Use /model first."))
        return
    levels = list(session.available_thinking_levels())
    wanted = arg.strip().lower()
    if not wanted:
        if not model.reasoning:
            await app.show_status(f"{model.id} does not support thinking (level: off)")
            return
        choices = [(lvl, THINKING_DESCRIPTIONS.get(lvl, "")) for lvl in levels]

        def chosen(level: str | None) -> None:
            if level is not None:
                app.run_worker(_set_thinking(app, level, level), exit_on_error=False)

        from pi_app.tui.screens.choice import ChoiceScreen

        app.push_screen(ChoiceScreen("Thinking level", choices, session.thinking_level or "off"), chosen)
        return
    if wanted not in THINKING_LEVELS:
        await app.chat.add(
            ErrorNotice(f'Unknown thinking level "{arg.strip()}". Levels: {", ".join(THINKING_LEVELS)}')
        )
        return
    await _set_thinking(app, wanted, arg.strip())


async def _set_thinking(app: AppContext, level: str, asked: str) -> None:
    session = app.session
    session.set_thinking_level(level)
    effective = session.thinking_level or "off"
    app.editor.thinking_level = effective
    app.refresh_footer()
    model = session.model
    if effective != level and model is not None:
        await app.show_status(f"Thinking level: {effective} ({model.id} does not support {asked})")
    else:
        await app.show_status(f"Thinking level: {effective}")


async def _scoped_models(app: AppContext, arg: str) -> None:
    from pi_app.tui.screens.model_select import model_key
    from pi_app.tui.screens.scoped_models import ScopedModelsScreen

    session = app.session
    available = session.model_registry.get_available()
    if not available:
        await app.show_status("No models with credentials to choose from. Use /login or set an API key.")
        return
    keys = [model_key(m) for m in available]
    enabled = [model_key(s.model) for s in session.scoped_models]

    def chosen(result: list[str] | None) -> None:
        if result is not None:
            app.run_worker(_save_scope(app, result), exit_on_error=False)

    app.push_screen(ScopedModelsScreen(keys, enabled), chosen)


async def _save_scope(app: AppContext, keys: list[str]) -> None:
    from pi_app.session.config.resolver import resolve_model_scope

    session = app.session
    session.settings.set_enabled_models(keys or None)
    scoped, _ = resolve_model_scope(keys, session.model_registry.get_available())
    session.scoped_models = scoped
    if keys:
        await app.show_status(
            f"Ctrl+P cycles {len(keys)} models (saved as enabledModels): " + ", ".join(keys)
        )
    else:
        await app.show_status("Ctrl+P cycles every available model (enabledModels cleared)")


def changelog_path() -> str:
    """The project's CHANGELOG.md, beside the ``pi_app`` package."""
    import pi_app

    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(pi_app.__file__))), "CHANGELOG.md")


async def _changelog(app: AppContext, arg: str) -> None:
    from pi_app.tui.screens.changelog import ChangelogView

    path = changelog_path()
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        await app.chat.add(ErrorNotice(f"No changelog: cannot read {path} ({exc.strerror or exc})"))
        return
    await app.chat.add(ChangelogView(text))


async def _import(app: AppContext, arg: str) -> None:
    from pi_app.tui.session_commands import import_session

    await import_session(app, arg)


async def _copy(app: AppContext, arg: str) -> None:
    text = app.session.get_last_assistant_text()
    if not text:
        await app.chat.add(ErrorNotice("No agent messages to copy yet."))
        return
    await app.copy_text(text, "Copied last agent message to clipboard")


NOTHING_BEFORE_LAST_EXCHANGE = (
    "Nothing to compact yet: /compact keeps the last exchange, and there is nothing before it to summarise"
)


def manual_compaction_refusal(session: AgentSession) -> str | None:
    """Why a manual /compact would have nothing to do, said before any request (None: it can go ahead)."""
    from pi_app.session.compaction.cut_point import prepare_manual_compaction

    path = [e if isinstance(e, dict) else e.data for e in session.session_manager.get_branch()]
    if not any(e.get("type") == "message" for e in path):
        return None  # the app's own "no messages yet" applies
    if path[-1].get("type") == "compaction":
        return "Already compacted: nothing new since the last compaction"
    keep = session.settings.settings.compaction.keepRecentTokens
    return NOTHING_BEFORE_LAST_EXCHANGE if prepare_manual_compaction(path, keep) is None else None


async def _compact(app: AppContext, arg: str) -> None:
    refusal = None if app.session.is_streaming else manual_compaction_refusal(app.session)
    if refusal is not None:
        await app.show_status(refusal, "warning")
        return
    await app.run_compaction(arg.strip() or None)


async def _new(app: AppContext, arg: str) -> None:
    await app.session.new_session()
    await app.rebuild_chat(header=True)
    await app.show_status("✓ New session started")


async def _reload(app: AppContext, arg: str) -> None:
    session = app.session
    if session.is_streaming:
        await app.show_status("Wait for the current response to finish before reloading.", "warning")
        return
    if session.is_compacting:
        await app.show_status("Wait for compaction to finish before reloading.", "warning")
        return
    try:
        await session.reload()
    except Exception as exc:
        await app.chat.add(ErrorNotice(f"Reload failed: {exc}"))
        return
    app.refresh_completions()
    for warning in app.reload_keybindings():
        await app.chat.add(Notice(warning, kind="warning"))
    await app.show_status("Reloaded skills, prompts, context files, settings and key bindings")


async def _hotkeys(app: AppContext, arg: str) -> None:
    await app.chat.add(Notice(app.hotkeys_text(), kind="info"))


def export_target(arg: str, cwd: str) -> str | None:
    """The file /export writes: the argument (``~`` expanded, relative to the session's cwd) or the default."""
    raw = arg.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        raw = raw[1:-1]
    if not raw:
        return None
    path = os.path.expanduser(raw)
    return path if os.path.isabs(path) else os.path.join(cwd, path)


async def _export(app: AppContext, arg: str) -> None:
    session = app.session
    session_file = session.session_file
    if not session_file or not os.path.exists(session_file):
        await app.chat.add(ErrorNotice("Failed to export session: the session has not been saved yet"))
        return
    from pi_app.session.export import default_export_path, export_session

    target = export_target(arg, session.cwd) or os.path.join(session.cwd, default_export_path(session_file))
    options: dict[str, Any] = {}
    if not target.lower().endswith(".jsonl"):
        import themes

        options = {
            "theme_name": app.theme if app.theme in themes.available_themes() else "dark",
            "system_prompt": session.system_prompt,
            "leaf_id": session.session_manager.leaf_id,
        }
    try:
        path = export_session(session_file, target, **options)
    except Exception as exc:
        await app.chat.add(ErrorNotice(f"Failed to export session: {exc}"))
        return
    await app.show_status(f"Session exported to: {os.path.abspath(path)}")


async def _tree(app: AppContext, arg: str) -> None:
    from pi_app.tui.session_commands import open_tree

    await open_tree(app)


async def _fork(app: AppContext, arg: str) -> None:
    from pi_app.tui.session_commands import open_fork_picker

    await open_fork_picker(app)


async def _clone(app: AppContext, arg: str) -> None:
    from pi_app.tui.session_commands import clone_current

    await clone_current(app)


async def _resume(app: AppContext, arg: str) -> None:
    from pi_app.tui.session_commands import open_resume

    await open_resume(app)


async def _trust(app: AppContext, arg: str) -> None:
    from pi_app.session.trust import resolve_trust
    from pi_app.tui.screens.trust import open_trust

    session = app.session
    decision = resolve_trust(session.cwd, session.agent_dir)
    for warning in decision.warnings:
        await app.chat.add(Notice(warning, kind="warning"))
    open_trust(app, decision)


async def _quit(app: AppContext, arg: str) -> None:
    app.exit()


async def _login(app: AppContext, arg: str) -> None:
    app.open_login(arg.strip())


async def _logout(app: AppContext, arg: str) -> None:
    auth = app.session.model_registry.auth
    provider = arg.strip()
    stored = auth.list()
    if not provider:
        if len(stored) == 1:
            provider = stored[0]
        elif not stored:
            await app.show_status("No stored credentials. Use /login first.")
            return
        else:
            await app.show_status("Usage: /logout <provider> (stored: " + ", ".join(stored) + ")")
            return
    if provider not in stored:
        await app.chat.add(ErrorNotice(f"No stored credentials for {provider}"))
        return
    auth.remove(provider)
    app.session.model_registry.refresh()
    await app.show_status(f"Logged out of {provider}")
    app.refresh_footer()


BUILTINS: list[Command] = [
    Command("settings", "Open settings menu", _settings),
    Command("mcp", "MCP servers: state, tools, errors; reconnect", _mcp),
    Command("model", "Select model (opens selector UI)", _model),
    Command("export", "Export session to HTML file (or a .jsonl copy)", _export),
    Command("copy", "Copy last agent message to clipboard", _copy),
    Command("thinking", "Set the thinking level (no argument: choose from a list)", _thinking),
    Command("scoped-models", "Choose the models Ctrl+P cycles through", _scoped_models),
    Command("name", "Set session display name", _name),
    Command("session", "Show session info and stats", _session),
    Command("hotkeys", "Show all keyboard shortcuts", _hotkeys),
    Command("login", "Store an API key for a provider", _login),
    Command("logout", "Remove stored credentials", _logout),
    Command("fork", "Create a new fork from a previous message", _fork),
    Command("clone", "Duplicate the current session at the current position", _clone),
    Command("tree", "Navigate session tree (switch branches)", _tree),
    Command("resume", "Resume a different session", _resume),
    Command("new", "Start a new session", _new),
    Command("compact", "Manually compact the session context", _compact),
    Command("import", "Import a JSONL session file (keeps its id and working directory)", _import),
    Command("reload", "Reload skills, prompts, context files and settings", _reload),
    Command("trust", "Save a project trust decision for future pi processes", _trust),
    Command("changelog", "Show the changelog", _changelog),
    Command("quit", "Quit pi", _quit, aliases=("exit",)),
]


def find_command(name: str) -> Command | None:
    for command in BUILTINS:
        if name == command.name or name in command.aliases:
            return command
    return None


def split_command(text: str) -> tuple[str, str]:
    """``/name rest`` → (``name``, ``rest``)."""
    body = text[1:]
    name, _, arg = body.partition(" ")
    if "\n" in name:
        name, _, more = name.partition("\n")
        arg = more + (" " + arg if arg else "")
    return name, arg


def completion_commands(session: AgentSession) -> list[SlashCommand]:
    items = [SlashCommand(c.name, c.description) for c in BUILTINS]
    items += [SlashCommand(a, c.description) for c in BUILTINS for a in c.aliases]
    builtin = {c.name for c in BUILTINS}  # a built-in wins over an extension command of the same name
    items += [
        SlashCommand(c["name"], c.get("description", ""))
        for c in session.get_commands()
        if c["name"] not in builtin
    ]
    return items


async def run_command(app: AppContext, command: Command, arg: str) -> None:
    await command.handler(app, arg)
