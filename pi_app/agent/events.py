"""AgentEvent types (pi's ``AgentEvent`` union). ``to_json()`` gives pi's wire shape for json/rpc modes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.types import AssistantMessage, ToolResultMessage, dump


def message_json(message: Any) -> Any:
    """JSON form of any agent message (pydantic models, custom roles with to_json, plain dicts)."""
    if isinstance(message, BaseModel):
        return dump(message)
    to_json = getattr(message, "to_json", None)
    if callable(to_json):
        return to_json()
    return message


def result_json(result: Any) -> Any:
    """JSON form of a tool result (AgentToolResult or anything already JSON-shaped).

    Like pi (``JSON.stringify`` drops ``undefined``), a result without details has no ``details`` key.
    """
    if result is None:
        return None
    content = getattr(result, "content", None)
    if content is not None and not isinstance(result, dict):
        out: dict[str, Any] = {"content": [message_json(c) for c in content]}
        if result.details is not None:
            out["details"] = _plain(result.details)
        return out
    return _plain(result)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return dump(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(slots=True)
class AgentStartEvent:
    """The first event of a run, before its first ``turn_start``."""

    type: ClassVar[str] = "agent_start"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(slots=True)
class AgentEndEvent:
    """The last event of a run; ``messages`` are the messages this run added."""

    type: ClassVar[str] = "agent_end"
    messages: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "messages": [message_json(m) for m in self.messages]}


@dataclass(slots=True)
class TurnStartEvent:
    """A turn began: one request to the model and the tool calls its reply makes."""

    type: ClassVar[str] = "turn_start"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(slots=True)
class TurnEndEvent:
    """A turn finished; ``message`` is the assistant reply, ``tool_results`` its calls' results."""

    type: ClassVar[str] = "turn_end"
    message: AssistantMessage | Any
    tool_results: list[ToolResultMessage] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": message_json(self.message),
            "toolResults": [message_json(m) for m in self.tool_results],
        }


@dataclass(slots=True)
class MessageStartEvent:
    """A message enters the transcript: a prompt, a tool result, or an assistant reply starting to stream."""

    type: ClassVar[str] = "message_start"
    message: Any

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": message_json(self.message)}


@dataclass(slots=True)
class MessageUpdateEvent:
    """Assistant streaming only. ``message`` is the live partial (it keeps changing; dump to snapshot)."""

    type: ClassVar[str] = "message_update"
    message: Any
    assistant_message_event: AssistantMessageEvent

    def to_json(self) -> dict[str, Any]:
        # pi's key order: the event, then the message
        return {
            "type": self.type,
            "assistantMessageEvent": self.assistant_message_event.to_json(),
            "message": message_json(self.message),
        }


@dataclass(slots=True)
class MessageEndEvent:
    """A message is complete; ``message`` is its final form (the agent appends it to its transcript)."""

    type: ClassVar[str] = "message_end"
    message: Any

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": message_json(self.message)}


@dataclass(slots=True)
class ToolExecutionStartEvent:
    """A tool call is about to be prepared and run; ``args`` are the arguments as the model sent them."""

    type: ClassVar[str] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
        }


@dataclass(slots=True)
class ToolExecutionUpdateEvent:
    """``partial_result`` is the tool's accumulated result so far, not a delta."""

    type: ClassVar[str] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
            "partialResult": result_json(self.partial_result),
        }


@dataclass(slots=True)
class ToolExecutionEndEvent:
    """A tool call finished (or was refused); ``result`` is its final result, ``is_error`` whether it failed."""

    type: ClassVar[str] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: Any
    is_error: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "result": result_json(self.result),
            "isError": self.is_error,
        }


AgentEvent = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
