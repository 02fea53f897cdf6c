"""The agent core (pi's "pi-agent-core"): the stateless loop and the stateful Agent."""

from pi_app.agent.agent import Agent, AgentState
from pi_app.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_app.agent.loop import run_agent_loop, run_agent_loop_continue
from pi_app.agent.tool import AgentTool, AgentToolResult, FunctionTool, ToolError
from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCallContext,
    BeforeToolCallResult,
    NextTurn,
    TurnContext,
    default_convert_to_llm,
)

__all__ = [
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentContext",
    "AgentEndEvent",
    "AgentEvent",
    "AgentLoopConfig",
    "AgentStartEvent",
    "AgentState",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "FunctionTool",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "NextTurn",
    "ToolError",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnContext",
    "TurnEndEvent",
    "TurnStartEvent",
    "default_convert_to_llm",
    "run_agent_loop",
    "run_agent_loop_continue",
]
