"""Extension events and the results their handlers may return (pi's names, Python spelling).

Agent and session events (``agent_start``, ``turn_end``, ``message_update``, ``tool_execution_end``,
``model_select``, ``session_info_changed`` …) reach handlers as the very objects the session emits
(``pi_app.agent.events`` / ``pi_app.session.session_events``). The classes here are the events only
extensions see. Handlers may return the result dataclass or a plain dict with the same keys (snake_case or
pi's camelCase), so code ported from pi reads naturally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pi_app.agent.tool import ToolContent
from pi_app.ai.types import ImageContent, Model
from pi_app.session.hooks import (
    CompactDecision,
    CompactionOverride,
    ForkPosition,
    InputSource,
    ShutdownReason,
    StartReason,
    SwitchReason,
    TreeDecision,
    TreePreparation,
)
from pi_app.session.session_events import SessionEvent

if TYPE_CHECKING:
    from pi_app.ai.abort import AbortSignal
    from pi_app.session.compaction.cut_point import CompactionPreparation
    from pi_app.session.messages import AgentMessage
    from pi_app.session.user_bash import BashResult

# The classes are defined without generated __repr__/__eq__: this module is imported at every start (the
# built-in MCP extension loads by default) and each generated method costs an exec; events are never compared.

__all__ = [
    "ExtensionEvent",
    "UiPromptEndEvent",
    "UiPromptStartEvent",
    "BeforeAgentStartEvent",
    "BeforeAgentStartResult",
    "BeforeProviderRequestEvent",
    "CancelResult",
    "CompactionOverride",
    "ContextEvent",
    "ContextResult",
    "CustomMessageSpec",
    "InputEvent",
    "InputResult",
    "ProjectTrustEvent",
    "ProjectTrustResult",
    "ResourcesDiscoverEvent",
    "ResourcesDiscoverResult",
    "SessionBeforeCompactEvent",
    "SessionBeforeCompactResult",
    "SessionBeforeForkEvent",
    "SessionBeforeSwitchEvent",
    "SessionBeforeTreeEvent",
    "SessionBeforeTreeResult",
    "SessionCompactEvent",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionTreeEvent",
    "ThinkingLevelSelectEvent",
    "ToolCallEvent",
    "ToolCallResult",
    "ToolResultEvent",
    "ToolResultPatch",
    "UserBashEvent",
    "UserBashResult",
]


# ------------------------------------------------------------------ session lifecycle
@dataclass(slots=True, repr=False, eq=False)
class SessionStartEvent:
    """A session became current (``reason``); ``previous_session_file`` is the one it replaced, if any."""

    type: ClassVar[str] = "session_start"
    reason: StartReason
    previous_session_file: str | None = None


@dataclass(slots=True, repr=False, eq=False)
class SessionShutdownEvent:
    """The current session is ending (quit, reload, or replaced); handlers can still save what they keep."""

    type: ClassVar[str] = "session_shutdown"
    reason: ShutdownReason
    target_session_file: str | None = None


@dataclass(slots=True, repr=False, eq=False)
class SessionBeforeSwitchEvent:
    """Before /new or /resume replaces the session; a ``CancelResult(cancel=True)`` stops it."""

    type: ClassVar[str] = "session_before_switch"
    reason: SwitchReason
    target_session_file: str | None = None


@dataclass(slots=True, repr=False, eq=False)
class SessionBeforeForkEvent:
    """Before a fork or clone at ``entry_id``. ``before``: RPC ``fork`` and ``ctx.fork`` (the new session ends just
    before it); ``at``: /fork, /tree and /clone (before a user message, with any other entry included). A
    ``CancelResult(cancel=True)`` stops it."""

    type: ClassVar[str] = "session_before_fork"
    entry_id: str
    position: ForkPosition


@dataclass(slots=True, repr=False, eq=False)
class CancelResult:
    """For ``session_before_switch`` / ``session_before_fork``: ``cancel=True`` stops the operation."""

    cancel: bool = False


@dataclass(slots=True, repr=False, eq=False)
class SessionBeforeCompactEvent:
    """Before a compaction summarises the branch; handlers may cancel it or supply their own summary."""

    type: ClassVar[str] = "session_before_compact"
    preparation: CompactionPreparation
    branch_entries: list[dict[str, Any]]
    custom_instructions: str | None
    reason: str  # "manual" | "threshold" | "overflow"
    will_retry: bool
    signal: AbortSignal | None


SessionBeforeCompactResult = CompactDecision  # cancel, or supply your own summary


@dataclass(slots=True, repr=False, eq=False)
class SessionCompactEvent:
    """A compaction was written; ``from_extension`` says whether a handler supplied its summary."""

    type: ClassVar[str] = "session_compact"
    compaction_entry: dict[str, Any] | None
    from_extension: bool
    reason: str
    will_retry: bool


@dataclass(slots=True, repr=False, eq=False)
class SessionBeforeTreeEvent:
    """Before a /tree move; handlers may cancel it, supply the branch summary or change its options."""

    type: ClassVar[str] = "session_before_tree"
    preparation: TreePreparation
    signal: AbortSignal | None = None


SessionBeforeTreeResult = TreeDecision  # cancel, a summary, or other summarisation options


@dataclass(slots=True, repr=False, eq=False)
class SessionTreeEvent:
    """A /tree move finished: the old and new leaf, and the branch summary entry if one was written."""

    type: ClassVar[str] = "session_tree"
    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: dict[str, Any] | None
    from_extension: bool


# ------------------------------------------------------------------ prompting
@dataclass(slots=True, repr=False, eq=False)
class InputEvent:
    """Input was submitted (typed, over RPC, or by an extension); handlers may transform or consume it."""

    type: ClassVar[str] = "input"
    text: str
    images: list[ImageContent] | None
    source: InputSource
    streaming_behavior: str | None = None


@dataclass(slots=True, repr=False, eq=False)
class InputResult:
    """``continue`` (default), ``transform`` (go on with ``text``/``images``) or ``handled`` (stop here)."""

    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[ImageContent] | None = None


@dataclass(slots=True, repr=False, eq=False)
class CustomMessageSpec:
    """A custom message to add to the context (``before_agent_start``, ``pi.send_message``)."""

    custom_type: str
    content: str | list[ToolContent]
    display: bool = True
    details: Any = None


@dataclass(slots=True, repr=False, eq=False)
class BeforeAgentStartEvent:
    """A prompt is about to start an agent run; handlers may change the system prompt or add a message."""

    type: ClassVar[str] = "before_agent_start"
    prompt: str | None
    images: list[ImageContent] | None
    system_prompt: str
    message_type: Literal["user", "custom"] = "user"


@dataclass(slots=True, repr=False, eq=False)
class BeforeAgentStartResult:
    """What a ``before_agent_start`` handler may return: a custom message to add, a new system prompt."""

    message: CustomMessageSpec | None = None
    system_prompt: str | None = None


@dataclass(slots=True, repr=False, eq=False)
class ContextEvent:
    """Before each model request: ``messages`` is a new list of the session's own message objects. Return
    a list to send instead; to change a message, put ``m.model_copy(update={...})`` in its place — never
    assign to ``m``'s fields, which would change the session itself."""

    type: ClassVar[str] = "context"
    messages: list[AgentMessage]


@dataclass(slots=True, repr=False, eq=False)
class ContextResult:
    """What a ``context`` handler may return: the messages to send instead."""

    messages: list[AgentMessage]


@dataclass(slots=True, repr=False, eq=False)
class BeforeProviderRequestEvent:
    """The provider payload just before it is sent; return a dict to replace it."""

    type: ClassVar[str] = "before_provider_request"
    payload: dict[str, Any]
    model: Model


# ------------------------------------------------------------------ tools and the shell
@dataclass(slots=True, repr=False, eq=False)
class ToolCallEvent:
    """Before a tool runs. ``input`` is the validated arguments; change it in place to change the call."""

    type: ClassVar[str] = "tool_call"
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]


@dataclass(slots=True, repr=False, eq=False)
class ToolCallResult:
    """What a ``tool_call`` handler may return: ``block`` the call with ``reason`` (``terminate`` also ends the run)."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass(slots=True, repr=False, eq=False)
class ToolResultEvent:
    """A tool call finished; handlers see its arguments and result and may return a ``ToolResultPatch``."""

    type: ClassVar[str] = "tool_result"
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    content: list[ToolContent]
    details: Any
    is_error: bool


@dataclass(slots=True, repr=False, eq=False)
class ToolResultPatch:
    """Fields to replace in the result; None keeps the current value."""

    content: list[ToolContent] | None = None
    details: Any = None
    is_error: bool | None = None


@dataclass(slots=True, repr=False, eq=False)
class UserBashEvent:
    """The user ran a shell command (``!cmd``); a handler may return a ``UserBashResult`` instead of running it."""

    type: ClassVar[str] = "user_bash"
    command: str
    exclude_from_context: bool
    cwd: str


@dataclass(slots=True, repr=False, eq=False)
class UserBashResult:
    """A finished command to record instead of running it locally."""

    result: BashResult


# ------------------------------------------------------------------ models, resources, trust
@dataclass(slots=True, repr=False, eq=False)
class ThinkingLevelSelectEvent:
    """The thinking level changed to ``level``; ``previous_level`` is the one before."""

    type: ClassVar[str] = "thinking_level_select"
    level: str
    previous_level: str | None


@dataclass(slots=True, repr=False, eq=False)
class ResourcesDiscoverEvent:
    """At startup and on reload: handlers may return more skill and prompt-template paths for ``cwd``."""

    type: ClassVar[str] = "resources_discover"
    cwd: str
    reason: Literal["startup", "reload"]


@dataclass(slots=True, repr=False, eq=False)
class ResourcesDiscoverResult:
    """What a ``resources_discover`` handler may return: skill and prompt paths (themes are accepted, not loaded)."""

    skill_paths: list[str] = field(default_factory=list)
    prompt_paths: list[str] = field(default_factory=list)
    theme_paths: list[str] = field(default_factory=list)


@dataclass(slots=True, repr=False, eq=False)
class ProjectTrustEvent:
    """Asks whether to trust the project at ``cwd``; the first handler that answers yes or no decides."""

    type: ClassVar[str] = "project_trust"
    cwd: str


@dataclass(slots=True, repr=False, eq=False)
class ProjectTrustResult:
    """A ``project_trust`` answer: ``yes``, ``no`` or ``undecided``, and whether to remember it."""

    trusted: Literal["yes", "no", "undecided"] = "undecided"
    remember: bool = False


UiPromptKind = Literal["select", "confirm", "input", "editor", "custom"]


@dataclass(slots=True, repr=False, eq=False)
class UiPromptStartEvent:
    """A dialog or custom screen now waits for the user (nested ones coalesce into one span)."""

    type: ClassVar[str] = "ui_prompt_start"
    kind: UiPromptKind
    title: str | None = None
    reason: Literal["ui_prompt"] = "ui_prompt"


@dataclass(slots=True, repr=False, eq=False)
class UiPromptEndEvent:
    """The dialog or custom screen that waited for the user closed (the end of a ``ui_prompt_start`` span)."""

    type: ClassVar[str] = "ui_prompt_end"
    kind: UiPromptKind
    title: str | None = None
    reason: Literal["ui_prompt"] = "ui_prompt"


# Everything a handler can receive: the session's events (agent and session ones) and the classes above.
ExtensionEvent = (
    SessionEvent
    | SessionStartEvent
    | SessionShutdownEvent
    | SessionBeforeSwitchEvent
    | SessionBeforeForkEvent
    | SessionBeforeCompactEvent
    | SessionCompactEvent
    | SessionBeforeTreeEvent
    | SessionTreeEvent
    | InputEvent
    | BeforeAgentStartEvent
    | ContextEvent
    | BeforeProviderRequestEvent
    | ToolCallEvent
    | ToolResultEvent
    | UserBashEvent
    | ThinkingLevelSelectEvent
    | ResourcesDiscoverEvent
    | ProjectTrustEvent
    | UiPromptStartEvent
    | UiPromptEndEvent
)
