"""The session-tree commands of the app: /tree (and double Esc), /fork, /clone and /resume.

Each one pushes a screen from ``widgets`` (tree browser, fork picker, session picker), and the screen's
result is carried out here against the AgentSession in a worker of group ``session`` (so key handling stays
live, and Esc can cancel a branch summary). After any move the chat is rebuilt from the new leaf.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pi_app.session.results import Cancelled, NavigateResult
from widgets.notices import ErrorNotice

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.store.listing import SessionInfo
    from pi_app.tui.context import AppContext as PiApp  # the app as its collaborators see it
    from widgets.tree.screen import BranchSummaryChoice, TreeAction

SUMMARIZING = "Summarizing branch... (esc to cancel)"
SESSION_GROUP = "session"


def _run(app: PiApp, coro: Coroutine[Any, Any, None]) -> None:
    app.run_worker(coro, group=SESSION_GROUP, exit_on_error=False)


def _busy_reason(app: PiApp) -> str | None:
    session = app.session
    if session.is_compacting:
        return "Wait for compaction to finish first."
    if app.branch_summarizing:
        return "Wait for the branch summary to finish first."
    return None


async def _refuse_if_busy(app: PiApp) -> bool:
    reason = _busy_reason(app)
    if reason:
        await app.show_status(reason, "warning")
        return True
    return False


async def _after_move(app: PiApp, editor_text: str | None, status: str, *, only_if_empty: bool) -> None:
    """The session now has another leaf or file: rebuild the chat, footer and (maybe) the editor."""
    await app.rebuild_chat(header=True)
    app.on_session_replaced()
    if editor_text and (not only_if_empty or not app.editor.text.strip()):
        app.editor.load_text(editor_text)
        app.editor.move_cursor(app.editor.document.end)
    await app.show_status(status)


# ---------------------------------------------------------------------------------------------- /tree
PREBUILD_TREE_ENTRIES = 5_000  # sessions this big get their /tree model built in the background


def prebuild_tree(app: PiApp) -> None:
    """Build (and cache) a big session's tree model so the first /tree opens at once. Called from a
    worker thread after the first frame; the store reads lines with ``pread``, so it is safe there."""
    from widgets.tree import TreeModel

    sm = app.session.session_manager
    if len(sm.raw_entries()) >= PREBUILD_TREE_ENTRIES:
        TreeModel.for_session(sm, home=app.home)


async def open_tree(app: PiApp, selected_id: str | None = None) -> None:
    from widgets.tree import TreeModel
    from widgets.tree.screen import TreeBrowserScreen

    if await _refuse_if_busy(app):
        return
    sm = app.session.session_manager
    if not sm.raw_entries():
        await app.show_status("No entries in session")
        return
    filter_mode = app.session.settings.settings.treeFilterMode or "default"
    model = TreeModel.for_session(sm, home=app.home, filter_mode=filter_mode, selected_id=selected_id)

    def on_label(entry_id: str, label: str | None) -> None:
        app.session.set_label(entry_id, label)

    screen = TreeBrowserScreen(model, title="Session Tree", on_label=on_label)
    app.push_screen(screen, lambda action: _tree_chosen(app, action))


def _tree_chosen(app: PiApp, action: TreeAction | None) -> None:
    if action is not None:
        _run(app, handle_tree_action(app, action))


async def handle_tree_action(app: PiApp, action: TreeAction) -> None:
    kind = action.kind
    if kind == "continue":
        await continue_from(app, action.entry_id)
    elif kind == "fork":
        await fork_at(app, action.entry_id)
    elif kind == "clone":
        await clone_at(app, action.entry_id)
    elif kind == "copy":
        text = action.text or ""
        if not text.strip():
            await app.show_status("Nothing to copy in this entry", "warning")
        else:
            await app.copy_text(text, "Copied entry to clipboard")
    elif kind == "label":  # only when the browser runs without on_label
        app.session.set_label(action.entry_id, action.label)
        await app.show_status("Label removed" if action.label is None else f"Label set: {action.label}")


async def continue_from(app: PiApp, entry_id: str) -> None:
    """pi's tree selection: ask whether to summarize the abandoned branch (unless skipped), then navigate."""
    if entry_id == app.session.session_manager.leaf_id:
        await app.show_status("Already at this point")
        return
    if app.session.settings.settings.branchSummary.skipPrompt:
        await navigate(app, entry_id, None)
        return
    from widgets.tree.screen import BranchSummaryChoiceScreen

    def chosen(choice: BranchSummaryChoice | None) -> None:
        if choice is None:  # Esc: back to the tree, same selection (as pi)
            _run(app, open_tree(app, entry_id))
        else:
            _run(app, navigate(app, entry_id, choice))

    app.push_screen(BranchSummaryChoiceScreen(), chosen)


async def navigate(app: PiApp, entry_id: str, choice: BranchSummaryChoice | None) -> None:
    session = app.session
    summarize = choice is not None and choice != "none"
    custom = choice[1] or None if isinstance(choice, tuple) else None
    if summarize:
        app.branch_summarizing = True
        app.status.show_working(SUMMARIZING)
    try:
        result: NavigateResult | Cancelled = await session.navigate_tree(
            entry_id, summarize=summarize, custom_instructions=custom
        )
    except Cancelled as cancelled:
        result = cancelled
    except Exception as exc:
        await app.chat.add(ErrorNotice(str(exc)))
        return
    finally:
        if summarize:
            app.branch_summarizing = False
            app.status.clear()
    if isinstance(result, Cancelled):
        await app.show_status("Branch summarization cancelled")
        await open_tree(app, entry_id)
        return
    await _after_move(app, result.editor_text, "Navigated to selected point", only_if_empty=True)


async def fork_at(app: PiApp, entry_id: str) -> None:
    """A new session file up to ``entry_id``: before a user message (its text goes to the editor, as /fork),
    or including any other entry."""
    try:
        result = await app.session.fork_at(entry_id)
    except Exception as exc:
        await app.chat.add(ErrorNotice(f"Fork failed: {exc}"))
        return
    if result.text is not None:
        await _after_move(
            app, result.text, _where("Branched to new session", app.session), only_if_empty=False
        )
    else:
        await _after_move(app, None, _where("Forked to new session", app.session), only_if_empty=True)


async def clone_at(app: PiApp, entry_id: str | None = None) -> None:
    """Duplicate the path root→``entry_id`` (default: the current leaf) into a new file and switch to it."""
    try:
        await app.session.clone(entry_id)
    except Exception as exc:
        await app.chat.add(ErrorNotice(f"Clone failed: {exc}"))
        return
    await _after_move(app, None, _where("Cloned to new session", app.session), only_if_empty=True)


def _where(text: str, session: AgentSession) -> str:
    path = session.session_file
    return f"{text}: {path}" if path else f"{text} (in memory)"


# ---------------------------------------------------------------------------------------------- /fork
async def open_fork_picker(app: PiApp) -> None:
    from widgets.fork_picker import ForkPickerScreen, fork_messages

    if await _refuse_if_busy(app):
        return
    messages = fork_messages(app.session.session_manager.raw_entries())
    if not messages:
        await app.show_status("No messages to fork from")
        return

    def chosen(entry_id: str | None) -> None:
        if entry_id is not None:
            _run(app, fork_at(app, entry_id))

    app.push_screen(ForkPickerScreen(messages), chosen)


async def clone_current(app: PiApp) -> None:
    if await _refuse_if_busy(app):
        return
    await clone_at(app, None)


# ---------------------------------------------------------------------------------------------- /resume
def rename_session_file(path: str, name: str) -> None:
    """Give another session file a name: a session_info entry appended to it (pi's rename)."""
    from pi_app.session.store import SessionManager

    SessionManager.open(path).append_session_info(name)


def delete_session_file(path: str) -> None:
    os.unlink(path)


async def open_resume(
    app: PiApp, *, on_cancel: Callable[[], None] | None = None, then: Callable[[], None] | None = None
) -> None:
    """The session picker; ``then`` runs after a chosen session opened, ``on_cancel`` when none was."""
    from pi_app.session.store import list_all_sessions, list_sessions
    from widgets.session_picker import SessionPickerScreen

    if await _refuse_if_busy(app):
        return
    session = app.session
    sm = session.session_manager
    session_dir = str(sm.session_dir) if sm.session_dir is not None else None
    current_path = session.session_file

    def this_folder() -> list[SessionInfo]:
        return list_sessions(session.cwd, session_dir)

    def rename(path: str, name: str) -> None:
        if current_path and os.path.abspath(path) == os.path.abspath(current_path):
            session.set_session_name(name)  # the open file: through its own manager, or it would fork
            app.refresh_footer()
        else:
            rename_session_file(path, name)

    screen = SessionPickerScreen(
        this_folder,
        list_all_sessions,
        current_path=current_path,
        on_rename=rename,
        on_delete=delete_session_file,
        home=app.home,
        load_in_background=not app.options.test_mode,
    )

    def chosen(path: str | None) -> None:
        if path is None:
            if on_cancel is not None:
                on_cancel()
            return
        _run(app, _resume_then(app, path, then))

    app.push_screen(screen, chosen)


async def _resume_then(app: PiApp, path: str, then: Callable[[], None] | None) -> None:
    await resume_session(app, path)
    if then is not None:
        then()


async def resume_session(app: PiApp, path: str) -> None:
    session = app.session
    if session.session_file and os.path.abspath(path) == os.path.abspath(session.session_file):
        await app.show_status("Already in this session")
        return
    try:
        await session.switch_session(path)
    except Exception as exc:
        await app.chat.add(ErrorNotice(f"Could not open session: {exc}"))
        return
    app.queue_area.set_queues([], [])
    await _after_move(app, None, "Resumed session", only_if_empty=True)


# ---------------------------------------------------------------------------------------------- /import
def import_target(source: str, session_dir: str) -> str:
    """Where an imported file goes: its own name in ``session_dir``; ``name-1.jsonl``… when taken by another
    file (the same file, already there, is opened in place)."""
    base = os.path.basename(source)
    stem, ext = os.path.splitext(base)
    target = os.path.join(session_dir, base)
    n = 0
    while os.path.exists(target) and not os.path.samefile(target, source):
        n += 1
        target = os.path.join(session_dir, f"{stem}-{n}{ext or '.jsonl'}")
    return target


def _unquote(arg: str) -> str:
    raw = arg.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        raw = raw[1:-1]
    return raw


def check_session_file(path: str) -> str | None:
    """Why ``path`` cannot be imported (None: a session file with an id and a working directory)."""
    from pi_app.session.store import SessionFileError, load_session_file

    if not os.path.exists(path):
        return f"File not found: {path}"
    if not os.path.isfile(path):
        return f"Not a file: {path}"
    try:
        loaded = load_session_file(path, rewrite_migrated=False)
    except SessionFileError as exc:
        return f"Not a session file: {path} ({exc.reason})"
    except (OSError, UnicodeDecodeError) as exc:
        return f"Cannot read {path}: {exc}"
    header = loaded.header
    if header is None:
        return f"Not a session file: {path} (it is empty)"
    if not header.get("id"):
        return f"Not a session file: {path} (its header has no id)"
    if not header.get("cwd"):
        return f"Not a session file: {path} (its header has no working directory)"
    return None


async def import_session(app: PiApp, arg: str) -> None:
    """``/import <path>``: copy a session file into the current session directory, unchanged (so its id and
    working directory stay), then open the copy."""
    import shutil

    raw = _unquote(arg)
    if not raw:
        await app.chat.add(ErrorNotice("Usage: /import <path to a .jsonl session file>"))
        return
    if await _refuse_if_busy(app):
        return
    if app.session.is_streaming:
        await app.show_status("Wait for the current response to finish before importing.", "warning")
        return
    source = os.path.expanduser(raw)
    source = source if os.path.isabs(source) else os.path.join(app.session.cwd, source)
    problem = check_session_file(source)
    if problem is not None:
        await app.chat.add(ErrorNotice(f"Import failed: {problem}"))
        return
    sm = app.session.session_manager
    if sm.session_dir is not None:
        session_dir = str(sm.session_dir)
    else:
        from pi_app.session.store.paths import default_session_dir

        session_dir = str(default_session_dir(app.session.cwd))
    os.makedirs(session_dir, exist_ok=True)
    target = import_target(source, session_dir)
    copied = not os.path.exists(target)
    if copied:
        shutil.copyfile(source, target)
    current = app.session.session_file
    if current and os.path.abspath(current) == os.path.abspath(target):
        await app.show_status("Already in this session")
        return
    try:
        await app.session.switch_session(target)
    except Exception as exc:
        if copied:
            os.unlink(target)  # a copy that cannot be opened is not left behind
        await app.chat.add(ErrorNotice(f"Import failed: {exc}"))
        return
    app.queue_area.set_queues([], [])
    await _after_move(app, None, f"Imported session: {target}", only_if_empty=True)
