"""Shared helpers for agent tests: event traces and small tools."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_app.agent import AgentContext, AgentLoopConfig, AgentToolResult, FunctionTool
from pi_app.ai.abort import race_abort
from pi_app.ai.providers.faux import faux_model
from pi_app.ai.types import UserMessage

OBJ = {"type": "object", "properties": {}}


def describe(event: Any) -> str:
    """Compact one-line form of an event for exact sequence assertions."""
    kind = event.type
    if kind in ("message_start", "message_end"):
        return f"{kind}:{event.message.role}"
    if kind == "message_update":
        return f"update:{event.assistant_message_event.type}"
    if kind.startswith("tool_execution"):
        return f"{kind}:{event.tool_name}:{event.tool_call_id}"
    if kind == "turn_end":
        return f"turn_end:{event.message.stopReason}:{len(event.tool_results)}"
    return kind


def trace(events: list[Any], updates: bool = False) -> list[str]:
    return [describe(e) for e in events if updates or e.type != "message_update"]


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    async def __call__(self, event: Any) -> None:
        self.events.append(event)

    def trace(self, updates: bool = False) -> list[str]:
        return trace(self.events, updates)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]


def user(text: str) -> UserMessage:
    return UserMessage(content=text)


def config(**kw: Any) -> AgentLoopConfig:
    return AgentLoopConfig(model=kw.pop("model", None) or faux_model(), **kw)


def context(*tools: Any, messages: list[Any] | None = None) -> AgentContext:
    return AgentContext("You are a test.", list(messages or []), list(tools))


def sleeper(name: str, seconds: float, log: list[str] | None = None, **kw: Any) -> FunctionTool:
    """A tool that waits ``seconds`` (honouring abort) and reports its name."""

    async def run(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        if log is not None:
            log.append(f"start:{name}")
        await race_abort(asyncio.sleep(seconds), signal)
        if log is not None:
            log.append(f"end:{name}")
        return AgentToolResult.text(f"{name} done", details={"name": name})

    return FunctionTool(name, f"waits {seconds}s", OBJ, run, **kw)


def echo_tool(name: str = "echo", parameters: dict[str, Any] | None = None) -> FunctionTool:
    async def run(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult.text(f"{name}:{params}", details=params)

    return FunctionTool(name, "echoes its arguments", parameters or OBJ, run)
