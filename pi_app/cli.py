"""The ``pi`` command.

Keep module-level imports minimal: ``pi --version`` and ``pi --help`` must answer in well under 150 ms, so
only the pure argument parser is imported before those fast paths; sessions, providers and the UI load
afterwards. Every failure is one line on stderr and exit code 1.

This module is the composition root: it picks the mode (interactive, print, json, rpc) and runs it on the one
event loop that also built the session. ``pi_app.modes`` knows nothing of the full-screen UI.
"""

from __future__ import annotations

from pi_app.code_cache import install as _install_code_cache

# First of all: dataclass methods and string annotations compiled from here on (ours and our dependencies')
# come from its cache (see pi_app/code_cache.py).
_install_code_cache()

import os  # noqa: E402
import sys  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

from pi_app import __version__  # noqa: E402
from pi_app.cli_args import CliArgs, CliError, parse_args  # noqa: E402
from pi_app.cli_help import HELP_TEXT  # noqa: E402

if TYPE_CHECKING:
    from pi_app.modes.startup import Launch
    from pi_app.tui.options import TuiOptions


def _error(message: str) -> int:
    print(message if message.startswith(("Error:", "pi:")) else f"Error: {message}", file=sys.stderr)
    return 1


def read_piped_stdin() -> str | None:
    """All of stdin when it is not a terminal (trimmed; None when empty or a terminal)."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        data = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace").strip()
    return text or None


def _extension_help(args: CliArgs) -> str:
    """Flags registered by extensions, when there are any to load (their files are looked for first)."""
    import asyncio

    from pi_app.modes.startup import StartupError, extension_flags_help

    try:
        return asyncio.run(extension_flags_help(args))
    except StartupError:
        return ""


def _is_truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true", "yes")


def _missing_session_file(arg: str | None) -> str | None:
    """``--session PATH`` naming a file that does not exist: its absolute path (an id prefix is resolved,
    and reported when unknown, by the startup code)."""
    if not arg or not ("/" in arg or "\\" in arg or arg.endswith(".jsonl")):
        return None
    path = os.path.abspath(os.path.expanduser(arg))
    return None if os.path.exists(path) else path


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else list(argv)
    if args_list[:1] == ["mcp"]:  # pi mcp add|remove|list: no session, no extensions
        from pi_app.extensions.builtin.mcp.cli import main as mcp_main

        return mcp_main(args_list[1:])
    try:
        args = parse_args(args_list, defer_unknown=True)
    except CliError as exc:
        return _error(str(exc))
    if args.version:
        print(__version__)
        return 0
    if args.help:
        sys.stdout.write(HELP_TEXT + _extension_help(args))
        return 0
    if args.offline or _is_truthy(os.environ.get("PI_OFFLINE")):
        os.environ["PI_OFFLINE"] = "1"
        os.environ["PI_SKIP_VERSION_CHECK"] = "1"
    if args.export:
        return _export(args.export, args.export_out)
    missing = _missing_session_file(args.session)
    if missing is not None:  # before anything is built: no new session appears anywhere
        return _error(f"Session file not found: {missing}")

    if args.mode != "rpc" and not args.list_models:
        piped = read_piped_stdin()
        if piped is not None:
            args.print = True  # the UI needs the keyboard; piped input means a one-shot run
            args.messages.insert(0, piped)
    interactive = not args.print and args.mode is None and not args.list_models
    if interactive and not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _error('interactive mode needs a terminal; use -p "prompt", --mode json or --mode rpc')

    if argv is not None:  # called as a function (tests, embedding): leave the caller's collector alone
        return _run_session(args, interactive)
    from pi_app.modes import startup_gc

    startup_gc.pause()
    try:
        return _run_session(args, interactive)
    finally:
        startup_gc.before_exit()


def _run_session(args: CliArgs, interactive: bool) -> int:
    import asyncio

    if not interactive:  # (the app does this once its session is built: its first frame comes first)
        _guard_bash_processes()
    try:
        return asyncio.run(run_mode(args, interactive))
    except KeyboardInterrupt:
        return 130
    finally:  # every mode (print, json, rpc, TUI) exits here: end what bash left running, drop its logs
        if "pi_app.tools" in sys.modules:  # else no tool ever ran (the app ended before its session)
            from pi_app.tools import bash_logs, process_registry

            process_registry.terminate_all()
            bash_logs.remove_own_logs()


def _guard_bash_processes() -> None:
    """A fatal signal ends the processes bash started and removes their logs (importing the tools package
    costs ~0.1 s: done once a session is about to exist)."""
    from pi_app.tools import bash_logs, process_registry

    process_registry.end_on_fatal_signals(bash_logs.remove_own_logs)


async def run_mode(args: CliArgs, interactive: bool) -> int:
    """The composition root: build the session, then run the chosen mode on this same event loop."""
    from pi_app.modes.startup import StartupError, prepare, run_headless

    try:
        if interactive:
            return await run_starting_app(args)
        launch = await prepare(args, interactive=interactive)
        if isinstance(launch, int):  # answered without a session (--list-models, --resume listing)
            return launch
        return await run_headless(launch)
    except StartupError as exc:
        return _error(str(exc))


def _app_options(args: CliArgs) -> TuiOptions:
    """What the command line tells the app before any session exists."""
    from pi_app.tui.options import TuiOptions

    return TuiOptions(
        resume=args.resume, themes=list(args.themes), no_themes=args.no_themes, theme=args.use_theme
    )


def _launch_options(launch: Launch, base: TuiOptions) -> TuiOptions:
    """The app's options once the session is built (startup warnings are shown in its chat)."""
    from dataclasses import replace

    if launch.args.verbose:  # --verbose: the full startup header even when quietStartup is set (never saved)
        launch.session.settings.apply_overrides({"quietStartup": False})
    return replace(
        base,
        initial_message=launch.first,
        initial_images=launch.images,
        initial_messages=list(launch.rest),
        warnings=list(launch.warnings),
        trust=launch.cfg.trust,
        extensions=launch.extensions,
    )


async def run_starting_app(args: CliArgs) -> int:
    """The full-screen app, two-phase: its first frame is drawn at once (editor focused, keys accepted),
    then the session is built on the same loop (:func:`prepare`) while the app runs. A :class:`StartupError`
    ends the app and is reported as before it existed: its line on stderr, exit code 1."""
    import contextlib
    import io

    from pi_app.modes.startup import StartupError, ask_fork_on_terminal, prepare
    from pi_app.tui.app import PiApp
    from pi_app.tui.first_frame import read_first_frame
    from pi_app.tui.options import SessionStart

    base = _app_options(args)
    # what startup prints (warnings, extensions) while the app owns the screen: written after it ends
    said, printed = io.StringIO(), io.StringIO()
    launched: list[Launch] = []

    def confirm_fork(other_cwd: str) -> bool:  # the question is asked on the terminal, as before
        from textual.app import SuspendNotSupported

        try:
            with (
                app.suspend(),
                contextlib.redirect_stderr(sys.__stderr__),
                contextlib.redirect_stdout(sys.__stdout__),
            ):
                return ask_fork_on_terminal(other_cwd)
        except SuspendNotSupported:
            return ask_fork_on_terminal(other_cwd)

    async def start() -> SessionStart:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(printed):
            launch = await prepare(args, interactive=True, confirm_fork=confirm_fork)
        if isinstance(launch, int):  # only --list-models and a non-interactive --resume answer without one
            raise StartupError(f"no session to run the app with (exit code {launch})")
        launched.append(launch)
        _guard_bash_processes()
        return SessionStart(launch.session, _launch_options(launch, base))

    app = PiApp.starting(start, base, read_first_frame(args.model, verbose=args.verbose))
    try:
        await app.run_async()
    finally:
        sys.stdout.write(printed.getvalue())
        sys.stderr.write(said.getvalue())
        if launched and launched[0].extensions is not None:
            await launched[0].extensions.shutdown("quit")
    if app.startup_failure is not None:
        raise app.startup_failure
    return app.return_code or 0


async def run_interactive(launch: Launch) -> int:
    """The full-screen app with a session already built (embedding, tests); see :func:`run_starting_app`."""
    from pi_app.tui.app import PiApp

    app = PiApp(launch.session, _launch_options(launch, _app_options(launch.args)))
    try:
        await app.run_async()
    finally:
        if launch.extensions is not None:
            await launch.extensions.shutdown("quit")
    return app.return_code or 0


def _export(session_file: str, out_path: str | None) -> int:
    from pi_app.session.export import export_session

    try:
        path = export_session(session_file, out_path)
    except (OSError, ValueError) as exc:
        return _error(str(exc))
    except Exception as exc:  # a damaged session file: say which, never a traceback
        return _error(f"Failed to export session: {exc}")
    print(f"Exported to: {path}")
    return 0
