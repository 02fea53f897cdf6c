"""The stateless agent loop (pi's ``runAgentLoop`` / ``runAgentLoopContinue``).

One run: ``agent_start``, then turns (``turn_start`` → injected messages → streamed assistant message →
tool batch → ``turn_end``) until the model stops calling tools and no steering or follow-up message is
queued, then ``agent_end``. Every event is awaited through ``emit`` before the loop moves on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from pi_app.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_app.agent.history import as_history, stored_items
from pi_app.agent.tool_exec import execute_tool_calls
from pi_app.agent.toolset import ToolSetLedger
from pi_app.agent.types import (
    AgentContext,
    AgentLoopConfig,
    TurnContext,
    call_hook,
    default_convert_to_llm,
    hook_field,
)
from pi_app.ai.abort import AbortSignal
from pi_app.ai.events import DoneEvent, ErrorEvent, StartEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import LLM_ROLES, AssistantMessage, Context

Emit = Callable[[AgentEvent], Awaitable[None]]
StreamFnT = Callable[..., Any]


def _as_async(emit: Callable[[AgentEvent], Any]) -> Emit:
    if inspect.iscoroutinefunction(emit):
        return emit

    async def wrapper(event: AgentEvent) -> None:
        result = emit(event)
        if inspect.isawaitable(result):
            await result

    return wrapper


def _default_stream_fn() -> StreamFnT:
    from pi_app.ai.stream import stream

    return stream


class _Run:
    __slots__ = ("ctx", "config", "emit", "signal", "stream_fn", "ledger", "new_messages", "_conv")

    def __init__(
        self,
        context: AgentContext,
        config: AgentLoopConfig,
        emit: Callable[[Any], Any],
        signal: AbortSignal | None,
        stream_fn: StreamFnT | None,
    ) -> None:
        # Own copies: the caller's context list and config are never mutated.
        self.ctx = AgentContext(context.system_prompt, as_history(context.messages), context.tools)
        self.config = dataclasses.replace(config)
        self.emit = _as_async(emit)
        self.signal = signal
        self.stream_fn = stream_fn or _default_stream_fn()
        self.ledger = ToolSetLedger()
        self.new_messages: list[Any] = []
        self._conv: tuple[Sequence[Any], int, Any, list[Any]] | None = None

    def default_convert(self, messages: Sequence[Any]) -> list[Any]:
        """default_convert_to_llm, incrementally: the loop only appends, so filter just the new tail."""
        items = stored_items(messages)  # by role only: a resumed history's messages stay untyped here
        conv = self._conv
        if conv is None or conv[0] is not messages or len(items) < conv[1]:
            conv = (messages, 0, None, [])
        elif conv[1] and items[conv[1] - 1] is not conv[2]:
            conv = (messages, 0, None, [])
        out = conv[3]
        seen = conv[1]
        if len(items) > seen:
            out.extend(m for m in items[seen:] if getattr(m, "role", None) in LLM_ROLES)
        self._conv = (messages, len(items), items[-1] if items else None, out)
        return list(out)

    async def inject(self, messages: list[Any]) -> None:
        emit = self.emit
        for msg in messages:
            await emit(MessageStartEvent(msg))
            await emit(MessageEndEvent(msg))
            self.ctx.messages.append(msg)
            self.new_messages.append(msg)

    async def poll(self, hook: Callable[[], Any] | None) -> list[Any]:
        if hook is None:
            return []
        return list(await call_hook(hook) or [])

    async def loop(self) -> None:
        config = self.config
        emit = self.emit
        pending = await self.poll(config.get_steering_messages)
        first_turn = True
        while True:
            if not first_turn:
                await emit(TurnStartEvent())
            first_turn = False
            if config.get_tools is not None:  # tools changed during the run apply from this request on
                self.ctx.tools = config.get_tools()
            # Reconcile the tool-set log with the batch about to be sent (may add a system message).
            pending = self.ledger.declare_tool_changes(self.ctx.messages, self.ctx.tools, pending)
            await self.inject(pending)

            message = await self.stream_assistant()
            self.new_messages.append(message)
            if message.stopReason in ("error", "aborted"):
                await emit(TurnEndEvent(message, []))
                await emit(AgentEndEvent(self.new_messages))
                return

            has_more = any(c.type == "toolCall" for c in message.content)
            results: list[Any] = []
            if has_more:
                batch = await execute_tool_calls(self.ctx, message, config, self.signal, emit)
                results = batch.tool_results
                self.ctx.messages.extend(results)
                self.new_messages.extend(results)
                if batch.terminate:
                    has_more = False
            await emit(TurnEndEvent(message, results))

            turn = None
            if config.should_stop_after_turn is not None:
                turn = self.turn_context(message, results)
                if await call_hook(config.should_stop_after_turn, turn):
                    break
            pending = await self.poll(config.get_steering_messages)
            if not has_more and not pending:
                pending = await self.poll(config.get_follow_up_messages)
                if not pending:
                    break
            if config.prepare_next_turn is not None:
                await self.prepare_next_turn(turn or self.turn_context(message, results))
                if not pending:  # one-at-a-time must never deliver two in one drain point
                    pending = await self.poll(config.get_steering_messages)
        await emit(AgentEndEvent(self.new_messages))

    def turn_context(self, message: AssistantMessage, results: list[Any]) -> TurnContext:
        c = self.config
        return TurnContext(message, results, self.ctx, self.new_messages, c.model, c.thinking_level)

    async def prepare_next_turn(self, turn: TurnContext) -> None:
        nxt = await call_hook(self.config.prepare_next_turn, turn)  # type: ignore[arg-type]
        if not nxt:
            return
        context = hook_field(nxt, "context")
        if context is not None:
            self.ctx = AgentContext(context.system_prompt, list(context.messages), context.tools)
        model = hook_field(nxt, "model")
        if model is not None:
            self.config.model = model
        level = hook_field(nxt, "thinking_level", "thinkingLevel")
        if level is not None:
            self.config.thinking_level = level

    async def stream_assistant(self) -> AssistantMessage:
        config = self.config
        ctx = self.ctx
        signal = self.signal
        messages = ctx.messages
        if config.transform_context is not None:
            messages = await call_hook(config.transform_context, messages, signal)
        if config.convert_to_llm is default_convert_to_llm:
            llm_messages = self.default_convert(messages)
        else:
            llm_messages = await call_hook(config.convert_to_llm, messages)
        tools = [decl for decl, _ in self.ledger.declarations(ctx.tools)] if ctx.tools else None
        if llm_messages is ctx.messages or not isinstance(llm_messages, list):
            llm_messages = list(llm_messages)  # the request must not see later appends
        llm_context = Context.model_construct(
            systemPrompt=ctx.system_prompt or None, messages=llm_messages, tools=tools
        )
        api_key = None
        if config.get_api_key is not None:
            api_key = await call_hook(config.get_api_key, config.model.provider)
        options = StreamOptions(
            signal=signal,
            api_key=api_key or config.api_key,
            session_id=config.session_id,
            on_payload=config.on_payload,
            reasoning=None if config.thinking_level in (None, "off") else config.thinking_level,
            thinking_budgets=dict(config.thinking_budgets or {}),
            max_tokens=config.max_tokens,
            temperature=config.temperature,
        )
        if config.max_retry_delay_ms is not None:
            options.max_retry_delay_ms = config.max_retry_delay_ms
        if config.idle_timeout_s is not None:
            options.idle_timeout_s = config.idle_timeout_s
        response = self.stream_fn(config.model, llm_context, options)
        if inspect.isawaitable(response):
            response = await response

        emit = self.emit
        partial: AssistantMessage | None = None
        async for ev in response:
            match ev:
                case StartEvent():
                    partial = ev.partial
                    ctx.messages.append(partial)
                    await emit(MessageStartEvent(partial))
                case DoneEvent() | ErrorEvent():
                    pass  # the stream ends itself after its final event
                case _ if partial is not None:
                    if ev.partial is not partial:
                        partial = ev.partial
                        ctx.messages[-1] = partial
                    await emit(MessageUpdateEvent(partial, ev))
        final: AssistantMessage = await response.result()
        if partial is not None:
            ctx.messages[-1] = final
        else:
            ctx.messages.append(final)
            await emit(MessageStartEvent(final))
        await emit(MessageEndEvent(final))
        return final


async def run_agent_loop(
    prompts: list[Any],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Callable[[Any], Any],
    signal: AbortSignal | None = None,
    stream_fn: StreamFnT | None = None,
) -> list[Any]:
    """Run a loop that starts with ``prompts``. Returns the messages this run added."""
    run = _Run(context, config, emit, signal, stream_fn)
    prompts = run.ledger.declare_tool_changes(run.ctx.messages, run.ctx.tools, list(prompts))
    await run.emit(AgentStartEvent())
    await run.emit(TurnStartEvent())
    await run.inject(prompts)
    await run.loop()
    return run.new_messages


def check_can_continue(messages: Sequence[Any]) -> None:
    if not messages:
        raise ValueError("Cannot continue: no messages in context")
    role = getattr(messages[-1], "role", None)
    if role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Callable[[Any], Any],
    signal: AbortSignal | None = None,
    stream_fn: StreamFnT | None = None,
) -> list[Any]:
    """Continue from the context as it is (retries, resuming after tool results)."""
    check_can_continue(context.messages)
    run = _Run(context, config, emit, signal, stream_fn)
    await run.emit(AgentStartEvent())
    await run.emit(TurnStartEvent())
    await run.loop()
    return run.new_messages


class AgentEventStream:
    """Async iterator over one run's events; ``await stream.result()`` gives the run's new messages.

    pi's ``agentLoop``/``agentLoopContinue`` shape, for callers that prefer pulling events to a callback.
    """

    def __init__(self, start: Callable[[Emit], Awaitable[list[Any]]]) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._done = object()
        self._task = asyncio.ensure_future(self._drive(start))

    async def _drive(self, start: Callable[[Emit], Awaitable[list[Any]]]) -> list[Any]:
        async def emit(event: AgentEvent) -> None:
            self._queue.put_nowait(event)

        try:
            return await start(emit)
        finally:
            self._queue.put_nowait(self._done)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Any]:
        while True:
            event = await self._queue.get()
            if event is self._done:
                return
            yield event

    async def result(self) -> list[Any]:
        return await self._task


def agent_loop(
    prompts: list[Any],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFnT | None = None,
) -> AgentEventStream:
    return AgentEventStream(lambda emit: run_agent_loop(prompts, context, config, emit, signal, stream_fn))


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFnT | None = None,
) -> AgentEventStream:
    check_can_continue(context.messages)  # raise at the call, before any event
    return AgentEventStream(lambda emit: run_agent_loop_continue(context, config, emit, signal, stream_fn))
