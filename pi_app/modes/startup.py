"""From parsed command line to a built session (config, session selection, the AgentSession), and the
headless modes (print, json, rpc). The interactive mode is chosen and run by ``pi_app.cli``.

Imported by ``pi_app.cli`` only after the ``--version``/``--help`` fast paths. Every user-facing failure is
a :class:`StartupError` whose message is the one line ``pi`` prints to stderr before exiting 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_app.cli_args import CliArgs, CliError
from pi_app.cli_files import process_file_args

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.extensions.runner import ExtensionError, ExtensionRunner
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.store import SessionManager
    from pi_app.session.trust import TrustDecision


class StartupError(Exception):
    """Startup cannot go on; ``str(err)`` is the one line for stderr."""


@dataclass
class Config:
    """What startup loaded for ``cwd``: agent dir, settings, auth, model registry, trust decision, warnings."""

    cwd: str
    agent_dir: str
    settings: Any
    auth: Any
    registry: Any
    warnings: list[str] = field(default_factory=list)
    trust: TrustDecision | None = None  # None: not decided here (embedding); project resources load


def load_config(cwd: str, trust_override: bool | None = None, *, decide_trust: bool = True) -> Config:
    """Agent dir, project trust, settings (project settings only once trusted), auth and models.

    The trust decision comes first: nothing the folder supplies is read before it (except ``sessionDir``).
    An undecided folder ("ask") loads as untrusted; the interactive app asks and reloads on a yes.
    """
    from pi_app.session.config import AuthStorage, ModelRegistry, SettingsManager
    from pi_app.session.config import agent_dir as config_agent_dir

    adir = str(config_agent_dir())
    existing = adir  # the agent dir, or the nearest part of its path that exists, must be a directory
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        where = "" if existing == adir else f" ({existing} is not a directory)"
        raise StartupError(f"PI_CODING_AGENT_DIR is not a directory: {adir}{where}")
    trust: TrustDecision | None = None
    if decide_trust:
        from pi_app.session.trust import resolve_trust

        trust = resolve_trust(cwd, adir, override=trust_override)
    settings = SettingsManager.create(cwd, adir, project_trusted=trust is None or trust.allowed)
    auth = AuthStorage.create(Path(adir) / "auth.json")
    registry = ModelRegistry(auth, Path(adir) / "models.json")
    # registry.error is reported once, with the session's warnings (or by --list-models)
    return Config(cwd, adir, settings, auth, registry, list(trust.warnings) if trust else [], trust)


def no_model_message(agent_dir: str) -> str:
    models_json = os.path.join(agent_dir, "models.json")
    return (
        "No models available. Set a provider API key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), "
        f"run /login in interactive pi, or add a provider to {models_json} "
        '(a local OpenAI-compatible server works: "api": "openai-completions", "baseUrl": "http://127.0.0.1:PORT/v1").'
    )


# --------------------------------------------------------------------------------- sessions


def effective_session_dir(args: CliArgs, settings: Any) -> str | None:
    """``--session-dir`` > ``PI_CODING_AGENT_SESSION_DIR`` > settings ``sessionDir``."""
    value = args.session_dir or os.environ.get("PI_CODING_AGENT_SESSION_DIR") or settings.settings.sessionDir
    return os.path.abspath(os.path.expanduser(value)) if value else None


def _looks_like_path(arg: str) -> bool:
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def resolve_session_arg(arg: str, cwd: str, session_dir: str | None) -> tuple[str, str | None]:
    """(path, cwd of its project when it belongs to another project). ``arg`` is a path or an id prefix."""
    from pi_app.session.store import list_all_sessions, list_sessions

    if _looks_like_path(arg):
        return os.path.abspath(os.path.expanduser(arg)), None
    local = [s for s in list_sessions(cwd, session_dir) if s.id.startswith(arg)]
    if local:
        return local[0].path, None
    other = [s for s in list_all_sessions() if s.id.startswith(arg)]
    if other:
        return other[0].path, other[0].cwd
    raise StartupError(f"No session found matching '{arg}'")


def ask_fork_on_terminal(other_cwd: str) -> bool:
    """Ask on a terminal (as pi does); without one, fork (the caller says so on stderr)."""
    print(f"Session found in different project: {other_cwd}", file=sys.stderr)
    if not sys.stdin.isatty():
        print("Forking it into the current directory.", file=sys.stderr)
        return True
    answer = input("Fork this session into current directory? [y/N] ").strip().lower()
    return answer in ("y", "yes")


def create_session_manager(
    args: CliArgs, cfg: Config, confirm_fork: Callable[[str], bool] = ask_fork_on_terminal
) -> SessionManager | None:
    """The SessionManager the flags ask for, or None for a new session in the default place.
    ``confirm_fork`` asks whether another project's session may be forked here (the interactive app
    hands the terminal over for it)."""
    from pi_app.session.store import SessionFileError, SessionManager

    session_dir = effective_session_dir(args, cfg.settings)
    try:
        if args.session_id is not None:
            return _manager_for_session_id(args, cfg, session_dir)
        if args.no_session:
            return SessionManager.in_memory(cfg.cwd)
        if args.fork:
            path, _ = resolve_session_arg(args.fork, cfg.cwd, session_dir)
            if not os.path.exists(path):
                raise StartupError(f"Session file not found: {path}")
            return SessionManager.fork_from(path, cfg.cwd, session_dir)
        if args.session:
            path, other_cwd = resolve_session_arg(args.session, cfg.cwd, session_dir)
            if other_cwd is not None and os.path.realpath(other_cwd) != os.path.realpath(cfg.cwd):
                if not confirm_fork(other_cwd):
                    raise StartupError("Aborted.")
                return SessionManager.fork_from(path, cfg.cwd, session_dir)
            return SessionManager.open(path, session_dir)
        if args.continue_session:
            return SessionManager.continue_recent(cfg.cwd, session_dir)
        if session_dir:
            return SessionManager.create(cfg.cwd, session_dir)
    except SessionFileError as exc:
        raise StartupError(str(exc)) from exc
    except OSError as exc:
        raise StartupError(f"Cannot open session: {exc}") from exc
    return None


def _manager_for_session_id(args: CliArgs, cfg: Config, session_dir: str | None) -> SessionManager:
    """``--session-id ID``: this directory's session with that id, or a new one that gets it (pi 1.6)."""
    from pi_app.session.store import SessionManager, list_sessions

    sid = args.session_id or ""
    if args.fork:  # the store cannot give a fork a chosen id yet: say so rather than ignore the id
        raise StartupError("--session-id with --fork is not supported yet")
    if args.no_session:
        manager = SessionManager.in_memory(cfg.cwd)
    else:
        existing = [s for s in list_sessions(cfg.cwd, session_dir) if s.id == sid]
        if existing:
            return SessionManager.open(existing[0].path, session_dir)
        manager = SessionManager.create(cfg.cwd, session_dir)
    manager.new_session(id=sid)
    return manager


def format_session_list(cwd: str, session_dir: str | None) -> str:
    """Non-interactive ``--resume``: the sessions of this directory, newest first."""
    from pi_app.session.store import list_sessions

    sessions = list_sessions(cwd, session_dir)
    if not sessions:
        return "No sessions found for this directory.\n"
    lines = []
    for s in sessions:
        first = " ".join((s.name or s.first_message or "").split())
        first = first[:70] + "…" if len(first) > 71 else first
        when = s.modified.astimezone().strftime("%Y-%m-%d %H:%M")
        lines.append(f"{s.id}  {when}  {s.message_count:>4} msgs  {first}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------- session


async def create_session(
    args: CliArgs, cfg: Config, manager: SessionManager | None, *, lazy_history: bool = False
) -> AgentSession:
    """``lazy_history``: the app types a resumed history after drawing its tail (``session.type_history()``)."""
    from pi_app.session.assembly import create_agent_session

    scoped = args.models if args.models is not None else (cfg.settings.settings.enabledModels or [])
    if args.provider and not args.model:
        # --provider alone: its default (first available) model
        models = [m for m in cfg.registry.get_available() if m.provider == args.provider]
        if not models:
            known = cfg.registry.providers() if hasattr(cfg.registry, "providers") else []
            if args.provider not in known:
                raise StartupError(f'Unknown provider "{args.provider}"')
            raise StartupError(f'No API key found for "{args.provider}"')
        model: Any = models[0]
    else:
        model = args.model
    try:
        session = await create_agent_session(
            cfg.cwd,
            cfg.agent_dir,
            model=model,
            provider=args.provider,
            thinking_level=args.thinking,
            tools=args.tools,
            no_tools=args.no_tools and not args.tools,
            system_prompt=args.system_prompt,
            append_system_prompt=args.append_system_prompt or None,  # each text or a file
            no_context_files=args.no_context_files,
            skills_paths=args.skills,
            no_skills=args.no_skills,
            template_paths=args.prompt_templates,
            no_templates=args.no_prompt_templates,
            session=manager,
            api_key=args.api_key,
            scoped_models=scoped,
            settings=cfg.settings,
            auth=cfg.auth,
            model_registry=cfg.registry,
            lazy_history=lazy_history,
        )
    except ValueError as exc:
        raise StartupError(str(exc)) from exc
    except OSError as exc:
        if manager is not None:
            raise StartupError(f"Cannot open session: {exc}") from exc
        # the default sessions dir cannot be created (read-only, or a file in the way): run unsaved
        from pi_app.session.store import SessionManager

        print(
            f"Warning: cannot save sessions ({exc.strerror or exc}: {exc.filename}); this session will not be saved",
            file=sys.stderr,
        )
        return await create_session(args, cfg, SessionManager.in_memory(cfg.cwd), lazy_history=lazy_history)
    if args.name and args.name.strip():
        session.set_session_name(args.name.strip())
    return session


def initial_prompt(args: CliArgs, cwd: str) -> tuple[str | None, list[Any] | None, list[str]]:
    """(first message with @file text, its images, the remaining messages)."""
    messages = list(args.messages)
    if not args.file_args:
        first = messages.pop(0) if messages else None
        return first, None, messages
    text, images = process_file_args(args.file_args, cwd)
    first = text + messages.pop(0) if messages else text
    return first, images or None, messages


@dataclass
class Launch:
    """What a mode needs once the session exists: the session, the command line's messages, warnings."""

    args: CliArgs
    cfg: Config
    session: AgentSession
    first: str | None
    images: list[ImageContent] | None
    rest: list[str]
    warnings: list[str]
    extensions: ExtensionRunner | None = None  # None: no extension was found (the session has no hooks)

    @property
    def mode(self) -> str:
        return self.args.mode or "text"


async def prepare(
    args: CliArgs, *, interactive: bool, confirm_fork: Callable[[str], bool] = ask_fork_on_terminal
) -> Launch | int:
    """Everything after argument parsing up to a built session (config, session file, AgentSession).

    Returns the exit code when the command is answered without a session (``--list-models``,
    non-interactive ``--resume``); otherwise the :class:`Launch` the chosen mode runs with.
    """
    cwd = os.getcwd()
    cfg = load_config(cwd, args.project_trust_override, decide_trust=not args.list_models)
    warn = [*args.warnings, *cfg.warnings]

    if args.list_models:
        from pi_app.modes.list_models import format_model_table

        await _load_extensions(args, cfg, warn)  # models of extension providers are listed too, as pi's
        _flush_warnings([*warn, *([cfg.registry.error] if cfg.registry.error else [])])
        sys.stdout.write(format_model_table(cfg.registry.get_available(), args.list_models_search))
        return 0

    headless_oneshot = not interactive and (args.mode or "text") in ("text", "json")
    runner = (
        None if headless_oneshot and _only_idle_mcp(args, cfg) else await _load_extensions(args, cfg, warn)
    )
    if runner is not None and runner.flags():
        args = _reparse_with_extension_flags(args, runner)
    elif args.unknown_options:  # no extension declared them
        raise StartupError(f"Unknown option: {args.unknown_options[0]}")

    mode = args.mode or "text"
    if mode == "rpc" and args.file_args:
        raise StartupError("@file arguments are not supported in RPC mode")
    try:
        first, images, rest = initial_prompt(args, cwd)
    except CliError as exc:
        raise StartupError(str(exc)) from exc

    if args.resume and not interactive:
        _flush_warnings(warn)
        sys.stdout.write(format_session_list(cwd, effective_session_dir(args, cfg.settings)))
        print("Resume one with: pi --session <id> (or -c for the most recent)", file=sys.stderr)
        return 0

    manager = create_session_manager(args, cfg, confirm_fork)
    try:
        # Lazily typed history: the TUI draws the tail first; a one-shot run without extensions types each
        # stored message as its request encodes it, never holding them all typed (a 50k-entry resume).
        lazy = interactive or (headless_oneshot and runner is None)
        session = await create_session(args, cfg, manager, lazy_history=lazy)
    except StartupError:
        # a broken models.json is often why the model is not found: say so before the error
        _flush_warnings([*warn, *([cfg.registry.error] if cfg.registry.error else [])])
        raise
    warn += session.resource_warnings
    if runner is not None:
        runner.tool_selection = args.tool_selection
        runner.bind(session, mode="rpc" if mode == "rpc" else "json" if mode == "json" else "print")
        _apply_tool_selection(args, runner, session, warn)
    if cfg.trust is not None and cfg.trust.skipped and not (interactive and cfg.trust.trusted is None):
        from pi_app.session.trust import skipped_notice

        warn.append(skipped_notice(cfg.trust))  # said once; the TUI asks instead when undecided
    if mode == "rpc" and not interactive:
        from pi_app.modes import startup_gc

        startup_gc.resume()  # a long-lived mode collects as usual from here on (the app settles its own)
    return Launch(args, cfg, session, first, images, rest, warn, runner)


# The built-in extensions (pi_app.extensions.builtin.BUILTINS) :func:`_only_idle_mcp` knows to be idle.
IDLE_CHECKED_BUILTINS = ("mcp",)


def _only_idle_mcp(args: CliArgs, cfg: Config) -> bool:
    """True when the one extension a run would load is the built-in ``mcp`` with no ``mcp.json`` in reach.

    Its handlers then do nothing (it reads its config at ``session_start`` and stops there), so a one-shot
    print or json run builds no extension runtime: ~50 ms of imports. (The interactive and rpc modes still
    load it: ``/mcp`` is one of their commands.) Conservative: any ``-e``, any ``extensions`` setting, any
    entry in an extension directory (trusted or not) or any ``mcp.json`` takes the full path."""
    if args.extensions or args.unknown_options:
        return False
    if cfg.settings.global_settings().get("extensions") or cfg.settings.project_settings().get("extensions"):
        return False
    project = os.path.join(cfg.cwd, ".pi")
    for directory in (os.path.join(cfg.agent_dir, "extensions"), os.path.join(project, "extensions")):
        try:
            if any(not name.startswith(("_", ".")) for name in os.listdir(directory)):
                return False
        except OSError:
            pass  # no such directory (or unreadable: discovery finds nothing there either)
    return not any(os.path.exists(os.path.join(d, "mcp.json")) for d in (cfg.agent_dir, project))


async def _load_extensions(args: CliArgs, cfg: Config, warn: list[str]) -> ExtensionRunner | None:
    """The extension runtime, or None when there is nothing to load (the package is not even imported).

    User and ``-e`` extensions load first; while the folder's trust is undecided they may decide it
    (``project_trust``); project extensions are imported only once the folder is trusted."""
    from pi_app.extensions.loader import ExtensionSource, discover
    from pi_app.extensions.setup import builtin_names, setting_paths

    disabled = ["mcp"] if args.no_mcp else []

    def sources(trusted: bool) -> tuple[list[ExtensionSource], list[str]]:
        paths = setting_paths(cfg.settings, cfg.agent_dir, cfg.cwd)
        return discover(
            agent_dir=cfg.agent_dir,
            cwd=cfg.cwd,
            project_trusted=trusted,
            setting_paths=[(p, b) for p, b in paths if trusted or b == cfg.agent_dir],
            cli_paths=[p for p in args.extensions if p.removeprefix("builtin:") not in disabled],
            no_extensions=args.no_extensions,
            builtins=builtin_names(cfg.settings, disabled),
        )

    # undecided or not asked (--list-models) is untrusted: project extensions are not imported
    trusted = cfg.trust is not None and cfg.trust.allowed
    first, warnings = sources(False)
    warn += warnings
    if not first and not sources(True)[0]:  # (project extensions may load later, once trusted)
        return None
    from pi_app.extensions.runner import ExtensionRunner

    runner = ExtensionRunner(
        cwd=cfg.cwd, settings=cfg.settings, model_registry=cfg.registry, project_trusted=False
    )
    runner.discover_sources = lambda t: sources(t)[0]

    def to_stderr(error: ExtensionError) -> None:  # until a mode takes over
        print(str(error), file=sys.stderr)

    runner.on_error = to_stderr
    await runner.load(first)
    decision = cfg.trust
    if decision is not None and decision.trusted is None and runner.has_handlers("project_trust"):
        answer = await runner.decide_trust(cfg.cwd)
        if answer is not None:
            trusted, keep = answer
            if keep:
                from pi_app.session.trust import TrustFileError, remember

                try:
                    remember(decision, trusted, cfg.agent_dir)
                except (TrustFileError, OSError) as exc:
                    warn.append(f"Trust decision not saved: {exc}")
            decision.trusted, decision.source = trusted, "cli"
            cfg.settings.set_project_trusted(trusted)
    runner.project_trusted = trusted
    if trusted:
        loaded = {s.path for s in first}
        await runner.load([s for s in sources(True)[0] if s.path not in loaded])
    return runner


async def extension_flags_help(args: CliArgs) -> str:
    """``--help``'s section for flags that loaded extensions register (empty without any)."""
    cfg = load_config(os.getcwd(), args.project_trust_override)
    runner = await _load_extensions(args, cfg, [])
    flags = runner.flags() if runner is not None else []
    if not flags:
        return ""
    rows = [(f"--{f.name}" + (" <value>" if f.type == "string" else ""), f.description) for f in flags]
    width = max(len(r[0]) for r in rows)
    return "\nExtension options:\n" + "".join(f"  {name:<{width}}  {text}\n" for name, text in rows)


def _apply_tool_selection(
    args: CliArgs, runner: ExtensionRunner, session: AgentSession, warn: list[str]
) -> None:
    """``--tools``/``-t``/``-xt``/``-nt`` over built-in and extension tools alike (extension tools are
    active by default; an allowlist or ``-nt`` decides for them too)."""
    from pi_app.tool_selection import BUILTIN_TOOLS, resolve_tools

    sel = args.tool_selection
    extra = runner.tool_names()
    if sel is None or not extra:
        return
    available = [*BUILTIN_TOOLS, *extra]
    base = [*(args.tools or []), *(n for n in session.tool_names if n in extra)]
    names, warnings = resolve_tools(sel, base=base, available=available)
    if sel.no_builtin_tools and not sel.no_tools:
        names = [*names, *(n for n in session.tool_names if n in extra and n not in names)]
    # the first parse could not know extension tools: its "Unknown tool" warnings are replaced
    warn[:] = [w for w in warn if not w.startswith('Warning: Unknown tool "')] + warnings
    session.set_active_tools(names)


def _reparse_with_extension_flags(args: CliArgs, runner: ExtensionRunner) -> CliArgs:
    """Parse the command line again now that extensions have declared their flags."""
    from pi_app.cli_args import parse_args

    kinds = {f.name: f.type for f in runner.flags()}
    try:
        again = parse_args(args.argv, kinds)
    except CliError as exc:
        raise StartupError(str(exc)) from exc
    runner.flag_values = dict(again.extension_flags)
    again.warnings = []  # already reported from the first parse
    return again


async def run_headless(launch: Launch) -> int:
    """The print, json and rpc modes: warnings to stderr, then the mode until it ends."""
    args, session = launch.args, launch.session
    _flush_warnings(launch.warnings)
    if session.model is None:
        fallback = session.model_fallback_message
        if args.model and fallback:
            raise StartupError(fallback.splitlines()[0])
        raise StartupError(no_model_message(launch.cfg.agent_dir))

    runner = launch.extensions
    if launch.mode == "rpc":
        from pi_app.modes.jsonl import JsonlWriter
        from pi_app.modes.rpc_mode import run_rpc_mode

        writer = JsonlWriter()
        ui = None
        if runner is not None:
            from pi_app.modes.rpc_extension_ui import RpcExtensionUI

            ui = RpcExtensionUI(writer.write)
            runner.set_ui("rpc", ui)

            def report(error: ExtensionError) -> None:
                writer.write(error.to_json())

            runner.on_error = report
            await runner.start()
        try:
            return await run_rpc_mode(session, writer, ui)
        finally:
            if runner is not None:
                await runner.shutdown("quit")
    from pi_app.modes.print_mode import run_print_mode

    if runner is not None:
        await runner.start()
    try:
        return await run_print_mode(
            session,
            mode="json" if launch.mode == "json" else "text",
            messages=launch.rest,
            initial_message=launch.first,
            initial_images=launch.images,
        )
    finally:
        _flush_warnings(session.take_new_warnings())  # unusable stored messages, found as they were sent
        if runner is not None:
            await runner.shutdown("quit")


def _flush_warnings(warnings: list[str]) -> None:
    for w in warnings:
        print(w if w.lower().startswith("warning") else f"Warning: {w}", file=sys.stderr)
    warnings.clear()
