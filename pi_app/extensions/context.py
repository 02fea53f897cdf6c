"""``ctx``: what a handler, tool or command may ask of the running session (pi's ExtensionContext)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import Model
from pi_app.extensions.host import ExtensionHost
from pi_app.extensions.types import ExtensionUI, Mode

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.compaction.summarize import CompactionResult
    from pi_app.session.config import ModelRegistry
    from pi_app.session.results import CloneResult, ForkResult, NavigateResult
    from pi_app.session.store import SessionManager


class ExtensionContext:
    """Live view of the session for one extension. Properties read the current state on each access."""

    def __init__(self, runner: ExtensionHost, extension_name: str) -> None:
        self._runner = runner
        self.extension_name = extension_name

    @property
    def _session(self) -> AgentSession:
        return self._runner.require_session()

    # ---------------------------------------------------------------- state
    @property
    def mode(self) -> Mode:
        return self._runner.mode

    @property
    def has_ui(self) -> bool:
        return self._runner.has_ui

    @property
    def ui(self) -> ExtensionUI:
        return self._runner.ui_for(self.extension_name)

    @property
    def cwd(self) -> str:
        return self._runner.cwd

    @property
    def session_manager(self) -> SessionManager:
        """The session's store. Read from it; write through ``pi`` (append_entry, set_label …)."""
        return self._session.session_manager

    @property
    def model_registry(self) -> ModelRegistry:
        return self._runner.model_registry

    @property
    def model(self) -> Model | None:
        return self._session.model

    @property
    def thinking_level(self) -> str:
        return self._session.thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        """The running agent's abort signal (None while idle): pass it to slow work so Esc stops it."""
        return self._session.agent.signal

    def is_idle(self) -> bool:
        return not self._session.is_streaming

    def has_pending_messages(self) -> bool:
        return self._session.pending_message_count > 0

    def abort(self) -> None:
        """Stop the current run (returns at once; the run ends shortly)."""
        self._runner.spawn(self._session.abort())

    def get_context_usage(self) -> tuple[int | None, int, float | None] | None:
        """(tokens, context window, percent) of the current context, as the footer shows it."""
        return self._session.get_context_usage()

    def compact(self, custom_instructions: str | None = None) -> asyncio.Task[CompactionResult]:
        """Start a compaction. It runs once the current run has stopped, so await the task only from a
        command, never from inside a handler of the run it would stop."""
        return self._runner.spawn(self._session.compact(custom_instructions))

    def get_system_prompt(self) -> str:
        return self._session.system_prompt

    def is_project_trusted(self) -> bool:
        return self._runner.project_trusted

    def shutdown(self) -> None:
        """Ask pi to exit once idle (interactive and rpc; print mode exits by itself)."""
        self._runner.request_shutdown()


class ExtensionCommandContext(ExtensionContext):
    """A command handler's ``ctx``: commands run outside the agent loop, so they may drive the session."""

    async def wait_for_idle(self) -> None:
        await self._session.wait_for_idle()

    async def new_session(self) -> str | None:
        return await self._session.new_session()

    async def fork(self, entry_id: str) -> ForkResult:
        return await self._session.fork(entry_id)

    async def clone(self, entry_id: str | None = None) -> CloneResult:
        return await self._session.clone(entry_id)

    async def navigate_tree(self, target_id: str, *, summarize: bool = False) -> NavigateResult:
        return await self._session.navigate_tree(target_id, summarize)

    async def switch_session(self, session_path: str) -> None:
        await self._session.switch_session(session_path)

    async def reload(self) -> None:
        await self._session.reload()
