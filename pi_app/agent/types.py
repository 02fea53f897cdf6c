"""Loop configuration, context and hook contracts (pi's AgentLoopConfig / AgentContext)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, MutableSequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from pi_app.agent.tool import AgentTool, AgentToolResult, ToolContent
from pi_app.ai.types import LLM_ROLES, AssistantMessage, Model, ToolCall, ToolResultMessage

T = TypeVar("T")
ToolExecutionMode = Literal["parallel", "sequential"]
QueueMode = Literal["all", "one-at-a-time"]
MaybeAwaitable: TypeAlias = "T | Awaitable[T]"


async def call_hook(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a hook that may be sync or async."""
    result = fn(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def default_convert_to_llm(messages: list[Any]) -> list[Any]:
    """Keep the roles every provider understands (system, user, assistant, toolResult)."""
    return [m for m in messages if getattr(m, "role", None) in LLM_ROLES]


@dataclass
class AgentContext:
    """What the loop works on: the transcript so far and the tools executable right now."""

    system_prompt: str = ""
    # a list, or a copy of a resumed session's MessageHistory (its stored messages typed when read)
    messages: MutableSequence[Any] = field(default_factory=list)
    tools: list[AgentTool] | None = None


@dataclass
class BeforeToolCallContext:
    """Passed to before_tool_call: the assistant message, the call, its validated arguments and the context."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any  # validated (coerced) arguments
    context: AgentContext


@dataclass
class BeforeToolCallResult:
    """What before_tool_call may return: ``block`` the call (``reason``: its error; ``terminate``: end the run)."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False


@dataclass
class AfterToolCallContext:
    """Passed to after_tool_call: the call, its arguments, the result it produced and whether that is an error."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass
class AfterToolCallResult:
    """Field-by-field override of the executed result; None keeps the original value (no deep merge)."""

    content: list[ToolContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


@dataclass
class TurnContext:
    """Passed to should_stop_after_turn / prepare_next_turn after a turn_end."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    new_messages: list[Any]
    model: Model
    thinking_level: str


@dataclass
class NextTurn:
    """What prepare_next_turn may replace for the following request (e.g. compaction, model switch)."""

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: str | None = None


Hook = Callable[..., Any]


@dataclass
class AgentLoopConfig:
    """What one run of the agent loop uses: the model, the options passed to the provider, and the hooks."""

    model: Model
    thinking_level: str = "off"  # "off" sends no reasoning option
    # stream options passed through to the provider
    session_id: str | None = None
    api_key: str | None = None
    thinking_budgets: dict[str, int] | None = None
    max_retry_delay_ms: int | None = None
    idle_timeout_s: float | None = None  # a stream silent this long fails (None: provider default)
    on_payload: Callable[..., Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    tool_execution: ToolExecutionMode = "parallel"
    # hooks (sync or async)
    convert_to_llm: Hook = default_convert_to_llm  # (messages) -> messages
    transform_context: Hook | None = None  # (messages, signal) -> messages
    get_api_key: Hook | None = None  # (provider) -> str | None
    get_steering_messages: Hook | None = None  # () -> messages
    get_follow_up_messages: Hook | None = None  # () -> messages
    before_tool_call: Hook | None = None  # (BeforeToolCallContext, signal) -> BeforeToolCallResult | None
    after_tool_call: Hook | None = None  # (AfterToolCallContext, signal) -> AfterToolCallResult | None
    should_stop_after_turn: Hook | None = None  # (TurnContext) -> bool
    prepare_next_turn: Hook | None = None  # (TurnContext) -> NextTurn | None
    # () -> the tools for the next request: a tool set changed during a run (an extension registers or
    # activates tools) applies from the next turn; None keeps the tools the run started with
    get_tools: Callable[[], list[AgentTool]] | None = None


def hook_field(obj: Any, name: str, camel: str | None = None) -> Any:
    """Read a hook result field from a dataclass or a dict (pi-style camelCase accepted)."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        return obj.get(camel) if camel else None
    return getattr(obj, name, None)
