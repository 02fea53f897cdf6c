"""What becomes of a submitted prompt: a slash command, a ``!`` shell command, a prompt for the agent (steering
or a follow-up while it runs), or a message held until a running compaction ends.

A collaborator of :class:`pi_app.tui.app.PiApp`: it talks to the app only through :class:`RunnerHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.tui.bridge import EventBridge
    from pi_app.tui.context import AppContext

    class RunnerHost(AppContext, Protocol):
        bridge: EventBridge

        def submit(
            self, text: str, follow_up: bool = False, images: list[ImageContent] | None = None
        ) -> None: ...


class PromptRunner:
    """Runs what the editor submits once the session is ready (the app holds earlier submissions)."""

    def __init__(self, app: RunnerHost) -> None:
        self.app = app
        self.compaction_queue: list[str] = []  # prompts submitted while a compaction runs

    async def submit(self, text: str, follow_up: bool, images: list[ImageContent] | None = None) -> None:
        from pi_app.tui.commands import find_command, run_command, split_command
        from widgets.notices import ErrorNotice

        app = self.app
        session = app.session
        stripped = text.strip()
        if stripped.startswith("/"):
            name, arg = split_command(stripped)
            command = find_command(name)
            if command is not None:
                await run_command(app, command, arg)
                return
            known = {c["name"] for c in session.get_commands()}
            if name not in known:
                await app.chat.add(ErrorNotice(f"Unknown command: /{name}"))
                return
        if stripped.startswith("!") and not session.is_streaming:
            excluded = stripped.startswith("!!")
            command_text = stripped[2:].strip() if excluded else stripped[1:].strip()
            if command_text:
                await self.run_bash(command_text, excluded, text)
                return
        if session.is_compacting:
            self.compaction_queue.append(text)
            await app.show_status("Queued message for after compaction")
            return
        if session.is_streaming:
            await session.prompt(text, images, streaming_behavior="followUp" if follow_up else "steer")
            return
        await self.run_prompt(text, images)

    async def run_prompt(self, text: str, images: list[Any] | None = None) -> None:
        from widgets.notices import ErrorNotice

        app = self.app
        try:
            await app.session.prompt(text, images) if images else await app.session.prompt(text)
        except Exception as exc:
            await app.bridge.drained()
            await app.chat.add(ErrorNotice(str(exc)))
        finally:
            await app.bridge.drained()
            app.status.clear()
            app.refresh_footer()

    async def run_bash(self, command: str, exclude: bool, original: str) -> None:
        from widgets.notices import ErrorNotice

        app = self.app
        session = app.session
        if session.is_bash_running:
            await app.show_status(
                "A bash command is already running. Press Esc to cancel it first.", "warning"
            )
            app.editor.load_text(original)
            return
        view = await app.chat.start_bash(
            command, exclude_from_context=exclude, clock=app.options.clock, tick=not app.options.test_mode
        )
        try:
            result = await session.execute_bash(command, exclude, view.append_output)
        except Exception as exc:
            view.finish(None)
            await app.chat.add(ErrorNotice(f"Bash command failed: {exc}"))
            return
        view.finish(result.exit_code, result.cancelled, result.full_output_path)

    async def run_compaction(self, instructions: str | None) -> None:
        from pi_app.session.results import Cancelled
        from widgets.notices import ErrorNotice

        app = self.app
        session = app.session
        if not [m for m in session.messages if getattr(m, "role", None) in ("user", "assistant")]:
            await app.show_status("Nothing to compact (no messages yet)", "warning")
            return
        try:
            await session.compact(instructions)
        except Cancelled:
            await app.bridge.drained()  # compaction_end already said "Compaction cancelled"
        except Exception as exc:
            await app.bridge.drained()
            text = str(exc)
            if not any(isinstance(w, ErrorNotice) and text in w.text for w in app.chat.items[-2:]):
                await app.chat.add(ErrorNotice(f"Compaction failed: {text}"))
        finally:
            self.flush_compaction_queue()

    def flush_compaction_queue(self) -> None:
        """Send what was submitted while the compaction ran, in order."""
        queued, self.compaction_queue = self.compaction_queue, []
        for text in queued:
            self.app.submit(text)
