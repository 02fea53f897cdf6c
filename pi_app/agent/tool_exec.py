"""Executing one assistant message's tool calls (spec §3.4 with the newer §3.5 behaviour).

Parallel (default): a preflight pass in source order emits ``tool_execution_start`` and prepares each call
(lookup, argument shim, validation, before_tool_call); immediate outcomes end right away. Runnable calls
then run concurrently and each ``tool_execution_end`` is emitted as that call finishes. The toolResult
messages follow in source order once all are done. Sequential mode runs start→end→message per call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pi_app.agent.events import (
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_app.agent.tool import AgentTool, AgentToolResult
from pi_app.agent.types import (
    AfterToolCallContext,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCallContext,
    call_hook,
    hook_field,
)
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage

Emit = Callable[[Any], Awaitable[None]]

BLOCKED_TEXT = "Tool execution was blocked"
ABORTED_TEXT = "Operation aborted"
LENGTH_TEXT = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments may be '
    "truncated. Re-issue the tool call with complete arguments."
)


def error_result(text: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details={})


def error_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


@dataclass(slots=True)
class Outcome:
    """How one tool call ended: its result, whether that is an error, and whether it asks to end the run."""

    result: AgentToolResult
    is_error: bool
    terminate: bool = False


@dataclass(slots=True)
class Prepared:
    """A tool call that passed lookup, argument validation and before_tool_call, ready to execute."""

    tool_call: ToolCall
    tool: AgentTool
    args: Any


@dataclass(slots=True)
class BatchResult:
    """What one assistant message's tool calls produced: toolResult messages in source order, and whether to stop."""

    tool_results: list[ToolResultMessage]
    terminate: bool  # every result asked to end the run


class ToolBatch:
    """One assistant message's tool calls."""

    def __init__(
        self,
        context: AgentContext,
        message: AssistantMessage,
        calls: list[ToolCall],
        config: AgentLoopConfig,
        signal: AbortSignal | None,
        emit: Emit,
    ) -> None:
        self.context = context
        self.message = message
        self.calls = calls
        self.config = config
        self.signal = signal
        self._emit = emit
        self._lock: asyncio.Lock | None = None
        self.tools = {t.name: t for t in context.tools or ()}

    async def emit(self, event: AgentEvent) -> None:
        # Concurrent tools share one listener chain: deliver each event whole, one at a time.
        if self._lock is None:
            await self._emit(event)
        else:
            async with self._lock:
                await self._emit(event)

    async def run(self) -> BatchResult:
        sequential = self.message.stopReason != "length" and (
            self.config.tool_execution == "sequential"
            or any(
                getattr(self.tools.get(c.name), "execution_mode", None) == "sequential" for c in self.calls
            )
        )
        if sequential:
            outcomes, results = await self._run_sequential()
        else:
            outcomes = await self._run_parallel()
            results = [self._result_message(c, o) for c, o in zip(self.calls, outcomes, strict=True)]
            for msg in results:
                await self.emit(MessageStartEvent(msg))
                await self.emit(MessageEndEvent(msg))
        terminate = bool(outcomes) and all(o.terminate for o in outcomes)
        return BatchResult(results, terminate)

    # ------------------------------------------------------------------ modes
    async def _run_sequential(self) -> tuple[list[Outcome], list[ToolResultMessage]]:
        outcomes: list[Outcome] = []
        results: list[ToolResultMessage] = []
        for call in self.calls:
            await self.emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
            prep = await self._prepare(call)
            outcome = await self._execute(prep) if isinstance(prep, Prepared) else prep
            await self.emit(ToolExecutionEndEvent(call.id, call.name, outcome.result, outcome.is_error))
            outcomes.append(outcome)
            msg = self._result_message(call, outcome)
            results.append(msg)
            await self.emit(MessageStartEvent(msg))
            await self.emit(MessageEndEvent(msg))
        return outcomes, results

    async def _run_parallel(self) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(self.calls)
        runnable: list[tuple[int, Prepared]] = []
        truncated = self.message.stopReason == "length"
        for i, call in enumerate(self.calls):
            await self.emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
            prep: Prepared | Outcome = (
                Outcome(error_result(LENGTH_TEXT.format(name=call.name)), True)
                if truncated
                else await self._prepare(call)
            )
            if isinstance(prep, Prepared):
                runnable.append((i, prep))
            else:
                outcomes[i] = prep
                await self.emit(ToolExecutionEndEvent(call.id, call.name, prep.result, prep.is_error))

        async def run_one(i: int, prep: Prepared) -> None:
            outcome = await self._execute(prep)
            outcomes[i] = outcome
            call = prep.tool_call
            await self.emit(ToolExecutionEndEvent(call.id, call.name, outcome.result, outcome.is_error))

        if len(runnable) == 1:
            await run_one(*runnable[0])
        elif runnable:
            self._lock = asyncio.Lock()
            tasks = [asyncio.ensure_future(run_one(i, p)) for i, p in runnable]
            try:
                await asyncio.gather(*tasks)
            except BaseException:
                for t in tasks:
                    t.cancel()
                raise
            finally:
                self._lock = None
        return [o for o in outcomes if o is not None]

    # ------------------------------------------------------------------ steps
    async def _prepare(self, call: ToolCall) -> Prepared | Outcome:
        if self.signal is not None and self.signal.aborted:
            return Outcome(error_result(ABORTED_TEXT), True)
        tool = self.tools.get(call.name)
        if tool is None:
            return Outcome(error_result(f"Tool {call.name} not found"), True)
        try:
            raw = tool.prepare_arguments(call.arguments)
            if inspect.isawaitable(raw):
                raw = await raw
            args = tool.validate_arguments(raw)
            hook = self.config.before_tool_call
            if hook is not None:
                ctx = BeforeToolCallContext(self.message, call, args, self.context)
                decision = await call_hook(hook, ctx, self.signal)
                if hook_field(decision, "block"):
                    reason = hook_field(decision, "reason") or BLOCKED_TEXT
                    return Outcome(error_result(reason), True, bool(hook_field(decision, "terminate")))
        except Exception as exc:  # shim, validation and hook failures become error results
            return Outcome(error_result(error_text(exc)), True)
        return Prepared(call, tool, args)

    async def _execute(self, prep: Prepared) -> Outcome:
        call = prep.tool_call
        settled = False
        last_update: asyncio.Future[None] | None = None

        def on_update(partial: Any) -> None:
            nonlocal last_update
            if settled:
                return  # updates after the tool finished are dropped
            previous = last_update

            async def deliver() -> None:
                if previous is not None:
                    await previous
                await self.emit(ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial))

            last_update = asyncio.ensure_future(deliver())

        try:
            result = await prep.tool.execute(call.id, prep.args, self.signal, on_update)
            if result is None:
                result = AgentToolResult()
            elif not isinstance(result, AgentToolResult):
                raise TypeError(
                    f"Tool {call.name} returned {type(result).__name__}, expected AgentToolResult"
                )
            outcome = Outcome(result, False, bool(result.terminate))
        except Exception as exc:
            outcome = Outcome(error_result(error_text(exc)), True)
        finally:
            settled = True
        if last_update is not None:
            await last_update
        return await self._finalize(prep, outcome)

    async def _finalize(self, prep: Prepared, outcome: Outcome) -> Outcome:
        hook = self.config.after_tool_call
        if hook is None:
            return outcome
        ctx = AfterToolCallContext(
            self.message, prep.tool_call, prep.args, outcome.result, outcome.is_error, self.context
        )
        try:
            override = await call_hook(hook, ctx, self.signal)
        except Exception as exc:
            return Outcome(error_result(error_text(exc)), True)
        if override is None:
            return outcome
        content = hook_field(override, "content")
        details = hook_field(override, "details")
        is_error = hook_field(override, "is_error", "isError")
        terminate = hook_field(override, "terminate")
        result = AgentToolResult(
            content=outcome.result.content if content is None else content,
            details=outcome.result.details if details is None else details,
            terminate=outcome.terminate if terminate is None else bool(terminate),
        )
        return Outcome(result, outcome.is_error if is_error is None else bool(is_error), result.terminate)

    def _result_message(self, call: ToolCall, outcome: Outcome) -> ToolResultMessage:
        return ToolResultMessage(
            toolCallId=call.id,
            toolName=call.name,
            content=outcome.result.content,
            details=outcome.result.details,
            isError=outcome.is_error,
        )


async def execute_tool_calls(
    context: AgentContext,
    message: AssistantMessage,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> BatchResult:
    calls = [c for c in message.content if c.type == "toolCall"]
    return await ToolBatch(context, message, calls, config, signal, emit).run()
