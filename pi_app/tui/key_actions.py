"""Key actions of the app (pi's keys, spec §7.2): interrupt, clear, exit, model/thinking cycling,
queue restore, message selection, the external editor. Mixed into :class:`PiApp`."""

from __future__ import annotations

from textual import work
from textual.app import SuspendNotSupported
from textual.screen import ModalScreen

from pi_app.tui.external_editor import edit_text
from pi_app.tui.options import DOUBLE_PRESS_S
from widgets.notices import ErrorNotice


class KeyActionsMixin:
    """Expects PiApp's widgets and session (editor, chat, session, selection, status, options)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if isinstance(self.screen, ModalScreen) or len(self.screen_stack) > 1:
            return False  # dialogs and full-screen pickers own their keys
        if action in self.SELECTION_ACTIONS:
            return self.selection.active
        if action == "interrupt" and self.menu.is_open and not self.selection.active:
            return False  # the editor closes its completion menu
        if action == "exit_empty":
            return not self.editor.text
        if action == "dequeue" and self.selection.active:
            return False
        return True

    def action_slash_command(self, name: str) -> None:
        """A session action bound in keybindings.json (newSession, tree, fork, resume) runs its command."""
        from pi_app.tui.commands import find_command, run_command

        command = find_command(name)
        if command is not None:
            self.run_worker(run_command(self, command, ""), group="submit", exit_on_error=False)

    async def action_interrupt(self) -> None:
        session = self.session
        if self.selection.active:
            self.selection.stop()
            return
        if self.branch_summarizing:
            session.abort_branch_summary()
            return
        if session.is_bash_running:
            session.abort_bash()
            return
        if getattr(session, "is_compacting", False):
            # pi: Esc during a compaction cancels just the compaction; a prompt waiting on it still goes out
            session.abort_compaction()
            return
        if session.is_retrying:
            session.abort_retry()
        if session.is_streaming:
            self._restore_queue_to_editor()
            await session.abort()
            return
        if self.editor.bash_mode:
            self.editor.clear()
            return
        if not self.editor.text:
            now = self.options.clock()
            if now - self._last_escape <= DOUBLE_PRESS_S:
                self._last_escape = -10.0
                await self.double_escape()
            else:
                self._last_escape = now

    async def double_escape(self) -> None:
        """pi's doubleEscapeAction: open the tree browser, the fork picker, or nothing."""
        from pi_app.tui.session_commands import open_fork_picker, open_tree

        action = self.session.settings.settings.doubleEscapeAction
        self.double_escape_requests += 1
        if action == "tree":
            await open_tree(self)
        elif action == "fork":
            await open_fork_picker(self)

    def _restore_queue_to_editor(self) -> int:
        steering, follow_up = self.session.clear_queue()
        texts = [*steering, *follow_up]
        self.queue_area.set_queues([], [])
        if texts:
            current = self.editor.text
            combined = "\n\n".join([*texts, current] if current.strip() else texts)
            self.editor.load_text(combined)
            self.editor.move_cursor(self.editor.document.end)
        return len(texts)

    async def action_dequeue(self) -> None:
        restored = self._restore_queue_to_editor()
        if not restored:
            await self.show_status("No queued messages to restore")
        else:
            await self.show_status(
                f"Restored {restored} queued message{'s' if restored > 1 else ''} to editor"
            )

    async def action_clear(self) -> None:
        if self.selection.active:
            self.selection.stop()
            return
        # Text selected with the mouse: Ctrl+C copies it (the usual key) instead of clearing the editor.
        selected = self.screen.get_selected_text()
        if selected:
            self.screen.clear_selection()
            await self.copy_text(selected, "Copied selection to clipboard")
            return
        now = self.options.clock()
        if now - self._last_ctrl_c <= DOUBLE_PRESS_S:
            self.exit()
            return
        self._last_ctrl_c = now
        self.editor.clear()
        self.editor.pastes.clear()
        self.menu.hide()

    async def action_external_editor(self) -> None:
        """Ctrl+G: the prompt goes through the user's editor; the app steps aside while it runs."""
        text = self.editor.pastes.expand(self.editor.text)
        try:
            with self.suspend():
                new = edit_text(text)
        except SuspendNotSupported:  # headless (tests) or a driver that cannot hand over the terminal
            new = edit_text(text)
        if new is None:
            await self.show_status("External editor failed; prompt unchanged", "warning")
            return
        self.editor.load_text(new)
        self.editor.move_cursor(self.editor.document.end)

    def action_exit_empty(self) -> None:
        self.exit()

    def action_suspend(self) -> None:
        try:
            self.action_suspend_process()
        except Exception:  # not supported here (tests, Windows): ignore
            pass

    async def action_cycle_thinking(self) -> None:
        level = self.session.cycle_thinking_level()
        if level is None:
            await self.show_status("Current model does not support thinking")
            return
        self.editor.thinking_level = level
        self.refresh_footer()
        await self.show_status(f"Thinking level: {level}")

    @work(group="model", exit_on_error=False)
    async def action_cycle_model(self, direction: str = "forward") -> None:
        try:
            model = await self.session.cycle_model(direction)
        except Exception as exc:
            await self.chat.add(ErrorNotice(str(exc)))
            return
        if model is None:
            await self.show_status("Only one model available")
            return
        level = self.session.thinking_level
        thinking = f" (thinking: {level})" if model.reasoning and level != "off" else ""
        self.refresh_footer()
        await self.show_status(f"Switched to {model.name or model.id}{thinking}")

    def action_toggle_tools(self) -> None:
        expanded = not self.chat.tools_expanded
        self.chat.set_tools_expanded(expanded)
        if self._header is not None:
            self._header.set_expanded(expanded)

    async def action_toggle_thinking(self) -> None:
        hide = not self.chat.hide_thinking
        self.chat.set_hide_thinking(hide)
        self.session.settings.set_hide_thinking_block(hide)
        await self.show_status(f"Thinking blocks: {'hidden' if hide else 'visible'}")

    def action_select_messages(self) -> None:
        self.selection.start()

    def action_selection_move(self, delta: int) -> None:
        self.selection.move(delta)

    async def action_selection_copy(self) -> None:
        text = self.selection.selected_text()
        self.selection.stop()
        if text:
            await self.copy_text(text, "Copied message to clipboard")
