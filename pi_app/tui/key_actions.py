"""What pi's keys do (spec §7.2): interrupt, clear, exit, model/thinking cycling, queue restore, message
selection, the external editor.

A collaborator of :class:`pi_app.tui.app.PiApp`: the app's ``action_*`` methods (the names its bindings and
keybindings.json use) delegate here; this class talks to the app only through :class:`KeyHost`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Literal, Protocol

from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.screen import ModalScreen

from pi_app.tui.external_editor import edit_text
from pi_app.tui.options import DOUBLE_PRESS_S

if TYPE_CHECKING:
    from textual.screen import Screen

    from pi_app.tui.context import AppContext
    from pi_app.tui.header import StartupHeader
    from pi_app.tui.options import TuiOptions
    from pi_app.tui.selection import MessageSelection
    from widgets.completion import CompletionMenu

    class KeyHost(AppContext, Protocol):
        selection: MessageSelection
        menu: CompletionMenu
        options: TuiOptions

        @property
        def header(self) -> StartupHeader | None: ...

        @property
        def session_ready(self) -> bool: ...

        @property
        def screen(self) -> Screen[object]: ...

        @property
        def screen_stack(self) -> list[Screen[object]]: ...

        def suspend(self) -> AbstractContextManager[None]: ...

        def action_suspend_process(self) -> None: ...


SELECTION_ACTIONS = frozenset({"selection_move", "selection_copy", "selection_copy_code"})

UNBOUND = "pi_unbound"  # a key no terminal sends: the key of an action that has none (see keybindings.py)

# pi 1.6's fullscreen transcript keys (docs/keybindings.md "Fullscreen"), with its ids. They take precedence
# over the editor's keys while no list or dialog has the focus (see KeyActions.enabled). Ctrl+Up/Down stand
# in where the terminal cannot send Ctrl+Shift; Ctrl+F where Ctrl+Shift+F arrives as Ctrl+F.


def _transcript(keys: str, move: str, description: str, pi_id: str) -> Binding:
    return Binding(keys, f"transcript('{move}')", description, show=False, priority=True, id=pi_id)


TRANSCRIPT_BINDINGS: list[Binding] = [
    _transcript("pageup", "page_up", "Scroll the transcript up a page", "tui.altScreen.pageUp"),
    _transcript("pagedown", "page_down", "Scroll the transcript down a page", "tui.altScreen.pageDown"),
    _transcript(UNBOUND, "half_page_up", "Scroll the transcript up half a page", "tui.altScreen.halfPageUp"),
    _transcript(
        UNBOUND, "half_page_down", "Scroll the transcript down half a page", "tui.altScreen.halfPageDown"
    ),
    _transcript(UNBOUND, "line_up", "Scroll the transcript up a line", "tui.altScreen.lineUp"),
    _transcript(UNBOUND, "line_down", "Scroll the transcript down a line", "tui.altScreen.lineDown"),
    _transcript(
        "ctrl+shift+up,ctrl+up",
        "previous_prompt",
        "Jump to the previous user message",
        "tui.altScreen.previousPrompt",
    ),
    _transcript(
        "ctrl+shift+down,ctrl+down",
        "next_prompt",
        "Jump to the next user message",
        "tui.altScreen.nextPrompt",
    ),
    _transcript("ctrl+home", "top", "Go to the top of the transcript", "tui.altScreen.top"),
    _transcript(
        "ctrl+end", "bottom", "Go to the end of the transcript and follow it", "tui.altScreen.bottom"
    ),
    _transcript("ctrl+shift+f,ctrl+f", "search", "Search the transcript", "tui.altScreen.search"),
]


class KeyActions:
    def __init__(self, app: KeyHost) -> None:
        self.app = app
        self._last_escape = -10.0
        self._last_ctrl_c = -10.0

    def enabled(self, action: str, parameters: tuple[object, ...] = ()) -> bool:
        """Textual's ``check_action`` for the app's own bindings."""
        app = self.app
        if isinstance(app.screen, ModalScreen) or len(app.screen_stack) > 1:
            return False  # dialogs and full-screen pickers own their keys
        if action in SELECTION_ACTIONS:
            return app.selection.active
        if action == "interrupt" and app.menu.is_open and not app.selection.active:
            return False  # the editor closes its completion menu
        if action == "exit_empty":
            return not app.editor.text
        if action == "dequeue" and app.selection.active:
            return False
        if action in ("interrupt", "external_editor") and app.chat.searching:
            return False  # Esc closes the search, Ctrl+G goes to the next match
        if action == "transcript" and app.menu.is_open:
            return parameters == ("search",)  # the completion list keeps its keys; search still opens
        if action == "select_messages" and app.editor.selected_text:
            return False  # ctrl+x cuts the editor's selected text
        return True

    def enabled_while_starting(self, action: str) -> bool:
        """``check_action`` before the session exists (only the actions in ``STARTING_ACTIONS`` get here)."""
        if isinstance(self.app.screen, ModalScreen) or len(self.app.screen_stack) > 1:
            return False
        return not self.app.editor.text if action == "exit_empty" else True

    def transcript(self, move: str) -> None:
        """pi's fullscreen transcript keys: scroll by pages, half pages or lines, jump between user messages,
        go to the top, or to the bottom (which follows new output again)."""
        chat = self.app.chat
        match move:
            case "page_up" | "page_down":
                chat.scroll_pages(-1 if move == "page_up" else 1)
            case "half_page_up" | "half_page_down":
                chat.scroll_pages(-0.5 if move == "half_page_up" else 0.5)
            case "line_up" | "line_down":
                chat.scroll_lines(-1 if move == "line_up" else 1)
            case "previous_prompt" | "next_prompt":
                chat.jump_to_prompt(-1 if move == "previous_prompt" else 1)
            case "top":
                chat.scroll_to_top()
            case "bottom":
                chat.scroll_to_latest()
            case "search":
                chat.open_search()

    async def slash_command(self, name: str) -> None:
        """A session action bound in keybindings.json (newSession, tree, fork, resume) runs its command."""
        from pi_app.tui.commands import find_command, run_command

        command = find_command(name)
        if command is not None:
            await run_command(self.app, command, "")

    async def interrupt(self) -> None:
        app = self.app
        session = app.session
        if app.selection.active:
            app.selection.stop()
            return
        if app.branch_summarizing:
            session.abort_branch_summary()
            return
        if session.is_bash_running:
            session.abort_bash()
            return
        if session.is_compacting:
            # pi: Esc during a compaction cancels just the compaction; a prompt waiting on it still goes out
            session.abort_compaction()
            return
        if session.is_retrying:
            session.abort_retry()
        if session.is_streaming:
            self.restore_queue_to_editor()
            await session.abort()
            return
        if app.editor.bash_mode:
            app.editor.clear()
            return
        if not app.editor.text:
            now = app.options.clock()
            if now - self._last_escape <= DOUBLE_PRESS_S:
                self._last_escape = -10.0
                await self.double_escape()
            else:
                self._last_escape = now

    async def double_escape(self) -> None:
        """pi's doubleEscapeAction: open the tree browser, the fork picker, or nothing."""
        from pi_app.tui.session_commands import open_fork_picker, open_tree

        action = self.app.session.settings.settings.doubleEscapeAction
        if action == "tree":
            await open_tree(self.app)
        elif action == "fork":
            await open_fork_picker(self.app)

    def restore_queue_to_editor(self) -> int:
        app = self.app
        steering, follow_up = app.session.clear_queue()
        texts = [*steering, *follow_up]
        app.queue_area.set_queues([], [])
        if texts:
            current = app.editor.text
            combined = "\n\n".join([*texts, current] if current.strip() else texts)
            app.editor.load_text(combined)
            app.editor.move_cursor(app.editor.document.end)
        return len(texts)

    async def dequeue(self) -> None:
        restored = self.restore_queue_to_editor()
        if not restored:
            await self.app.show_status("No queued messages to restore")
        else:
            await self.app.show_status(
                f"Restored {restored} queued message{'s' if restored > 1 else ''} to editor"
            )

    async def clear(self) -> None:
        app = self.app
        if app.session_ready and app.selection.active:
            app.selection.stop()
            return
        # Text selected with the mouse: Ctrl+C copies it (the usual key) instead of clearing the editor.
        selected = app.screen.get_selected_text()
        if selected:
            app.screen.clear_selection()
            await app.copy_text(selected, "Copied selection to clipboard")
            return
        now = app.options.clock()
        if now - self._last_ctrl_c <= DOUBLE_PRESS_S:
            app.exit()
            return
        self._last_ctrl_c = now
        app.editor.clear()
        app.editor.pastes.clear()
        app.menu.hide()

    async def external_editor(self) -> None:
        """Ctrl+G: the prompt goes through the user's editor; the app steps aside while it runs."""
        app = self.app
        text = app.editor.pastes.expand(app.editor.text)
        try:
            with app.suspend():
                new = edit_text(text)
        except SuspendNotSupported:  # headless (tests) or a driver that cannot hand over the terminal
            new = edit_text(text)
        if new is None:
            await app.show_status("External editor failed; prompt unchanged", "warning")
            return
        app.editor.load_text(new)
        app.editor.move_cursor(app.editor.document.end)

    def suspend(self) -> None:
        try:
            self.app.action_suspend_process()
        except Exception:  # not supported here (tests, Windows): ignore
            pass

    async def cycle_thinking(self) -> None:
        app = self.app
        level = app.session.cycle_thinking_level()
        if level is None:
            await app.show_status("Current model does not support thinking")
            return
        app.editor.thinking_level = level
        app.refresh_footer()
        await app.show_status(f"Thinking level: {level}")

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> None:
        app = self.app
        try:
            model = await app.session.cycle_model(direction)
        except Exception as exc:
            from widgets.notices import ErrorNotice  # (rendering: not needed for the first frame)

            await app.chat.add(ErrorNotice(str(exc)))
            return
        if model is None:
            await app.show_status("Only one model available")
            return
        level = app.session.thinking_level
        thinking = f" (thinking: {level})" if model.reasoning and level != "off" else ""
        app.refresh_footer()
        await app.show_status(f"Switched to {model.name or model.id}{thinking}")

    def toggle_tools(self) -> None:
        app = self.app
        expanded = not app.chat.tools_expanded
        app.chat.set_tools_expanded(expanded)
        if app.header is not None:
            app.header.set_expanded(expanded)

    async def toggle_thinking(self) -> None:
        app = self.app
        hide = not app.chat.hide_thinking
        app.chat.set_hide_thinking(hide)
        app.session.settings.set_hide_thinking_block(hide)
        await app.show_status(f"Thinking blocks: {'hidden' if hide else 'visible'}")

    async def selection_copy_code(self, block: tuple[str, int, int] | None) -> None:
        """b on a selected message: copy one of its code blocks; the selection stays, so b again copies the
        next one."""
        app = self.app
        if block is None:
            await app.show_status("The selected message has no code block")
            return
        text, number, total = block
        await app.copy_text(text, f"Copied code block {number} of {total} to clipboard")

    async def selection_copy(self) -> None:
        app = self.app
        text = app.selection.selected_text()
        app.selection.stop()
        if text:
            await app.copy_text(text, "Copied message to clipboard")
