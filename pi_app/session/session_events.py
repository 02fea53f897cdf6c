"""Events AgentSession adds on top of the agent's events; with them, pi 0.73's ``AgentSessionEvent``
(:data:`SessionEvent`, the one type a session listener receives).

``to_json()`` gives the wire shape json/rpc modes print. ``ModelSelectEvent`` mirrors pi's extension event
``model_select``; pi's json stream has no model event, so it is not in ``WIRE_EVENT_TYPES`` and the json
mode should not print it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pi_app.agent.events import AgentEvent
from pi_app.ai.types import Model, dump

if TYPE_CHECKING:
    from pi_app.session.compaction.summarize import CompactionResult

CompactionReason = Literal["manual", "threshold", "overflow"]
ModelSelectSource = Literal["set", "cycle", "restore"]


def compaction_result_json(result: CompactionResult | None) -> dict[str, Any] | None:
    """pi's CompactionResult: {summary, firstKeptEntryId, tokensBefore, details}."""
    if result is None:
        return None
    return {
        "summary": result.summary,
        "firstKeptEntryId": result.first_kept_entry_id,
        "tokensBefore": result.tokens_before,
        "details": result.details,
    }


@dataclass(slots=True)
class CompactionStartEvent:
    """A compaction began (``reason``: manual, threshold or overflow)."""

    type: ClassVar[str] = "compaction_start"
    reason: CompactionReason

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}


@dataclass(slots=True)
class CompactionEndEvent:
    """A compaction ended (a result, aborted, or an error); ``will_retry``: the overflowed request is sent again."""

    type: ClassVar[str] = "compaction_end"
    reason: CompactionReason
    result: CompactionResult | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "reason": self.reason,
            "result": compaction_result_json(self.result),
            "aborted": self.aborted,
            "willRetry": self.will_retry,
        }
        if self.error_message is not None:
            out["errorMessage"] = self.error_message
        return out


@dataclass(slots=True)
class AutoRetryStartEvent:
    """A transient error will be retried: which attempt, the wait before it, and the error."""

    type: ClassVar[str] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }


@dataclass(slots=True)
class AutoRetryEndEvent:
    """Retrying ended: it succeeded, or gave up or was cancelled (``final_error`` says why)."""

    type: ClassVar[str] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "success": self.success, "attempt": self.attempt}
        if self.final_error is not None:
            out["finalError"] = self.final_error
        return out


@dataclass(slots=True)
class QueueUpdateEvent:
    """The full pending queues (message texts) whenever either changes."""

    type: ClassVar[str] = "queue_update"
    steering: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "steering": list(self.steering), "followUp": list(self.follow_up)}


@dataclass(slots=True)
class SessionInfoChangedEvent:
    """The session's display name changed to ``name``."""

    type: ClassVar[str] = "session_info_changed"
    name: str | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass(slots=True)
class ThinkingLevelChangedEvent:
    """The thinking level in effect changed; ``level`` is the new one (clamped to the model)."""

    type: ClassVar[str] = "thinking_level_changed"
    level: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "level": self.level}


@dataclass(slots=True)
class ModelSelectEvent:
    """The active model changed (``source``: set, cycle or restore)."""

    type: ClassVar[str] = "model_select"
    model: Model
    previous_model: Model | None
    source: ModelSelectSource

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "model": dump(self.model),
            "previousModel": dump(self.previous_model) if self.previous_model is not None else None,
            "source": self.source,
        }


@dataclass(slots=True)
class AgentSettledEvent:
    """pi 1.6: a prompt's run is over — retries, compaction recovery and queued messages included; nothing
    continues on its own. ``aborted`` when it ended by an abort."""

    type: ClassVar[str] = "agent_settled"
    aborted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "aborted": self.aborted}


# The events AgentSession adds (pi's AgentSessionEvent minus the agent's own).
SessionOnlyEvent = (
    CompactionStartEvent
    | CompactionEndEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | QueueUpdateEvent
    | SessionInfoChangedEvent
    | ThinkingLevelChangedEvent
    | ModelSelectEvent
    | AgentSettledEvent
)

# Everything a session listener receives: the agent's events and the session's own.
SessionEvent = AgentEvent | SessionOnlyEvent

# Event types pi 0.73 prints in --mode json / rpc (agent events plus the session events above).
WIRE_EVENT_TYPES = frozenset(
    {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "compaction_start",
        "compaction_end",
        "auto_retry_start",
        "auto_retry_end",
        "queue_update",
        "session_info_changed",
        "thinking_level_changed",
        "agent_settled",  # pi 1.6
    }
)
