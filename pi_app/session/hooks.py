"""The decision points AgentSession offers the outside world (pi's extension runner calls).

AgentSession asks its :class:`SessionHooks` before it acts (a prompt, a compaction, a tree move, a fork, a
switch, the user's ``!cmd``) and tells it afterwards. The base class decides nothing and costs one awaited
no-op per call, so a session without extensions behaves exactly as before. ``pi_app.extensions`` supplies
the implementation that runs extension handlers; the session never imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pi_app.ai.types import ImageContent

if TYPE_CHECKING:
    from pi_app.ai.abort import AbortSignal
    from pi_app.session.messages import AgentMessage
    from pi_app.session.user_bash import BashResult

InputSource = Literal["interactive", "rpc", "extension"]
SwitchReason = Literal["new", "resume"]
ForkPosition = Literal["before", "at"]
StartReason = Literal["startup", "reload", "new", "resume", "fork"]
ShutdownReason = Literal["quit", "reload", "new", "resume", "fork"]


@dataclass(slots=True)
class InputDecision:
    """What became of typed input: ``handled`` (nothing more to do) or the text/images to go on with."""

    text: str
    images: list[ImageContent] | None = None
    handled: bool = False


@dataclass(slots=True)
class AgentStartPatch:
    """``before_agent_start`` results: the system prompt for this run and messages to add before it."""

    system_prompt: str | None = None
    messages: list[AgentMessage] = field(default_factory=list)


@dataclass(slots=True)
class CompactionOverride:
    """A summary an extension supplied instead of the model's (``session_before_compact``)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None


@dataclass(slots=True)
class CompactDecision:
    """What ``session_before_compact`` handlers decided: cancel the compaction, or a summary to use instead."""

    cancel: bool = False
    compaction: CompactionOverride | None = None


@dataclass(slots=True)
class TreePreparation:
    """What a /tree move is about to do (pi's ``session_before_tree`` preparation)."""

    target_id: str
    old_leaf_id: str | None
    entries_to_summarize: list[dict[str, Any]]
    user_wants_summary: bool
    custom_instructions: str | None = None
    replace_instructions: bool = False
    label: str | None = None


@dataclass(slots=True)
class TreeDecision:
    """What ``session_before_tree`` handlers decided: cancel the move, supply the summary, or change options."""

    cancel: bool = False
    summary: str | None = None  # used only when the user asked for a summary
    details: Any = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


class SessionHooks:
    """No-op hooks: every decision is "go on unchanged". Subclassed by the extension runner."""

    async def handle_command(self, text: str) -> bool:
        """``/name args`` of a registered command: run it and return True; anything else False."""
        return False

    def may_handle(self, text: str) -> bool:
        """Could a command or ``input`` hook consume ``text``? (Front ends that answer at once ask first.)"""
        return False

    def command_infos(self) -> Sequence[dict[str, Any]]:
        """Registered commands in RPC ``get_commands`` shape (name, description, source, location, path)."""
        return ()

    async def input(
        self,
        text: str,
        images: list[ImageContent] | None,
        source: InputSource,
        streaming_behavior: str | None,
    ) -> InputDecision:
        return InputDecision(text, images)

    async def before_agent_start(
        self, prompt: str | None, images: list[ImageContent] | None, system_prompt: str
    ) -> AgentStartPatch:
        return AgentStartPatch()

    async def before_switch(self, reason: SwitchReason, target_session_file: str | None) -> bool:
        """True cancels /new or /resume."""
        return False

    async def before_fork(self, entry_id: str, position: ForkPosition) -> bool:
        """True cancels /fork (``before``) or /clone (``at``)."""
        return False

    async def before_compact(
        self,
        *,
        preparation: Any,
        branch_entries: list[dict[str, Any]],
        custom_instructions: str | None,
        reason: str,
        will_retry: bool,
        signal: AbortSignal | None,
    ) -> CompactDecision:
        return CompactDecision()

    async def after_compact(
        self, compaction_entry: dict[str, Any] | None, from_extension: bool, reason: str, will_retry: bool
    ) -> None:
        return None

    async def before_tree(self, preparation: TreePreparation, signal: AbortSignal | None) -> TreeDecision:
        return TreeDecision()

    async def after_tree(
        self,
        new_leaf_id: str | None,
        old_leaf_id: str | None,
        summary_entry: dict[str, Any] | None,
        from_extension: bool,
    ) -> None:
        return None

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> BashResult | None:
        """A result stands in for running the command locally; None runs it."""
        return None

    async def session_ending(
        self, reason: Literal["new", "resume", "fork"], target_session_file: str | None
    ) -> None:
        """Before /new, /resume, /fork or /clone replaces the session file (after the gates said yes)."""
        return None

    async def session_replaced(
        self, reason: Literal["new", "resume", "fork"], previous_session_file: str | None
    ) -> None:
        """After /new, /resume, /fork or /clone: the session file changed under the same runtime."""
        return None

    async def reload(self) -> None:
        """``/reload``: unload and load again whatever the hooks carry (extensions)."""
        return None


NO_HOOKS = SessionHooks()
