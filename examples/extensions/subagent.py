"""A ``subagent`` tool: hand a self-contained task to a fresh pi with its own context window.

The sub-agent is ``pi -p`` in a subprocess (this Python, ``-m pi_app``), started through ``pi.exec`` so it
has a timeout and stops when the run is aborted (Esc). The model chooses the sub-agent's model (default:
the current one) and tools (default: read-only ``read,grep,find,ls``); the sub-agent saves no session and
cannot start sub-agents of its own. Its final answer comes back as the tool result; the parent's context
only grows by that answer, not by everything the sub-agent read.

    pi -e examples/extensions/subagent.py
    > use a subagent with model anthropic/claude-haiku-4-5 to list every TODO comment in src/
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from pydantic import BaseModel, Field

from pi_app.ai.abort import AbortSignal
from pi_app.extensions import AgentToolResult, ExtensionAPI, ExtensionContext, ToolError

DEFAULT_TOOLS = ["read", "grep", "find", "ls"]
DEFAULT_TIMEOUT_S = 600.0


class SubagentParams(BaseModel):
    task: str = Field(description="The complete task: the sub-agent sees nothing of this conversation")
    model: str | None = Field(default=None, description='Model as "provider/id" (default: the current model)')
    tools: list[str] | None = Field(
        default=None, description="Tools the sub-agent may use (default: read, grep, find, ls)"
    )
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=3600, description="Give up after this")


def register(pi: ExtensionAPI) -> None:
    async def execute(
        tool_call_id: str,
        params: SubagentParams,
        signal: AbortSignal | None,
        on_update: Callable[[AgentToolResult], None] | None,
        ctx: ExtensionContext,
    ) -> AgentToolResult:
        model = params.model or (f"{ctx.model.provider}/{ctx.model.id}" if ctx.model else None)
        if model is None:
            raise ToolError("No model for the sub-agent: pass model as provider/id")
        tools = [t for t in (params.tools or DEFAULT_TOOLS) if t != "subagent"]  # no recursion
        args = ["-m", "pi_app", "-p", "--no-session", "--model", model]
        args += ["--tools", ",".join(tools)] if tools else ["--no-tools"]
        args += ["--", params.task]  # "--": a task may begin with a dash
        details = {"model": model, "tools": tools, "exitCode": None, "durationMs": 0}
        if on_update is not None:
            on_update(AgentToolResult.text(f"Sub-agent running on {model}…", details=dict(details)))
        started = time.monotonic()
        result = await pi.exec(sys.executable, args, timeout=params.timeout_s, signal=signal, cwd=ctx.cwd)
        details.update(exitCode=result.code, durationMs=round((time.monotonic() - started) * 1000))
        if signal is not None and signal.aborted:
            raise ToolError("Sub-agent aborted")
        if result.killed:
            raise ToolError(f"Sub-agent timed out after {params.timeout_s:g} s")
        if result.code != 0:
            tail = result.stderr.strip().splitlines()[-5:]
            raise ToolError(f"Sub-agent failed (exit {result.code}):\n" + "\n".join(tail))
        answer = result.stdout.strip()
        return AgentToolResult.text(answer or "(the sub-agent gave no answer)", details=details)

    pi.register_tool(
        name="subagent",
        label="Sub-agent",
        description=(
            "Run a task in a separate pi with a fresh context window and return its final answer. "
            "Use it for self-contained research or review that would otherwise fill this conversation."
        ),
        parameters=SubagentParams,
        execute=execute,
        prompt_snippet="Delegate a self-contained task to a sub-agent with its own context",
        prompt_guidelines=[
            "Give the subagent tool a complete task description: it sees nothing of this conversation."
        ],
    )
