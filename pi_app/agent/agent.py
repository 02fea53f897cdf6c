"""The stateful Agent (pi's ``Agent``): transcript, tools, model, queues, one active run at a time.

State is reduced from the loop's events; listeners are awaited in subscription order, and a run is idle
only after every listener has handled ``agent_end``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pi_app.agent.events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pi_app.agent.history import as_history
from pi_app.agent.loop import run_agent_loop, run_agent_loop_continue
from pi_app.agent.tool import AgentTool
from pi_app.agent.types import (
    AgentContext,
    AgentLoopConfig,
    QueueMode,
    ToolExecutionMode,
    TurnContext,
    call_hook,
    default_convert_to_llm,
    hook_field,
)
from pi_app.ai.abort import AbortController, AbortSignal
from pi_app.ai.types import AssistantMessage, ImageContent, Model, TextContent, UserMessage

BUSY_PROMPT = "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing."
BUSY = "Agent is already processing."

# pi's agent listener: ``listener(event)`` or ``listener(event, signal)``, sync or async.
_WithSignal = Callable[[AgentEvent, AbortSignal | None], object]
Listener = Callable[[AgentEvent], object] | _WithSignal


@dataclass
class AgentState:
    """The agent's observable state: prompt, model, tools, transcript, and what the current run is doing."""

    system_prompt: str = ""
    model: Model | None = None
    thinking_level: str = "off"
    tools: list[AgentTool] = field(default_factory=list)
    # a list, or a resumed session's MessageHistory (its stored messages typed when read)
    messages: MutableSequence[Any] = field(default_factory=list)
    is_streaming: bool = False
    streaming_message: Any = None
    pending_tool_calls: frozenset[str] = frozenset()
    error_message: str | None = None


@dataclass
class _ActiveRun:
    """The run in progress: a future resolved when it finishes, and the controller that aborts it."""

    done: asyncio.Future[None]
    controller: AbortController


class _Queue:
    __slots__ = ("items", "mode")

    def __init__(self, mode: QueueMode) -> None:
        self.items: list[Any] = []
        self.mode: QueueMode = mode

    def drain(self) -> list[Any]:
        if not self.items:
            return []
        if self.mode == "one-at-a-time":
            return [self.items.pop(0)]
        out, self.items = self.items, []
        return out


def _user_message(text: str, images: list[ImageContent] | None = None) -> UserMessage:
    return UserMessage(content=[TextContent(text=text), *(images or [])])


class Agent:
    def __init__(
        self,
        *,
        initial_state: AgentState | None = None,
        convert_to_llm: Callable[..., Any] | None = None,
        transform_context: Callable[..., Any] | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        stream_fn: Callable[..., Any] | None = None,
        session_id: str | None = None,
        get_api_key: Callable[..., Any] | None = None,
        on_payload: Callable[..., Any] | None = None,
        thinking_budgets: dict[str, int] | None = None,
        max_retry_delay_ms: int | None = None,
        idle_timeout_s: float | None = None,
        tool_execution: ToolExecutionMode = "parallel",
        before_tool_call: Callable[..., Any] | None = None,
        after_tool_call: Callable[..., Any] | None = None,
        should_stop_after_turn: Callable[..., Any] | None = None,
        prepare_next_turn: Callable[..., Any] | None = None,
    ) -> None:
        self._state = initial_state or AgentState()
        self._state.messages = as_history(self._state.messages)
        self._state.tools = list(self._state.tools)
        self.convert_to_llm = convert_to_llm or default_convert_to_llm
        self.transform_context = transform_context
        self.stream_fn = stream_fn
        self.session_id = session_id
        self.get_api_key = get_api_key
        self.on_payload = on_payload
        self.thinking_budgets = thinking_budgets
        self.max_retry_delay_ms = max_retry_delay_ms
        self.idle_timeout_s = idle_timeout_s
        self.tool_execution: ToolExecutionMode = tool_execution
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.should_stop_after_turn = should_stop_after_turn
        self.prepare_next_turn = prepare_next_turn
        self._steering = _Queue(steering_mode)
        self._follow_up = _Queue(follow_up_mode)
        self._listeners: list[_WithSignal] = []
        self._active: _ActiveRun | None = None

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> AgentState:
        return self._state

    @property
    def signal(self) -> AbortSignal | None:
        """The active run's abort signal (None when idle)."""
        return self._active.controller.signal if self._active else None

    def set_system_prompt(self, value: str) -> None:
        self._state.system_prompt = value

    def set_model(self, model: Model) -> None:
        self._state.model = model

    def set_thinking_level(self, level: str) -> None:
        self._state.thinking_level = level

    def set_tools(self, tools: list[AgentTool]) -> None:
        self._state.tools = list(tools)

    def replace_messages(self, messages: Sequence[Any]) -> None:
        """A copy of ``messages`` becomes the transcript (a MessageHistory stays lazy)."""
        self._state.messages = as_history(messages)

    def append_message(self, message: Any) -> None:
        self._state.messages.append(message)

    def clear_messages(self) -> None:
        self._state.messages = []

    # ------------------------------------------------------------------ listeners
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``listener(event)`` or ``listener(event, signal)``, sync or async. Returns an unsubscriber."""
        if _takes_signal(listener):
            entry = cast(_WithSignal, listener)
        else:
            plain = cast(Callable[[AgentEvent], object], listener)

            def entry(event: AgentEvent, signal: AbortSignal | None) -> object:
                return plain(event)

        self._listeners.append(entry)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(entry)
            except ValueError:
                pass

        return unsubscribe

    # ------------------------------------------------------------------ queues
    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = mode

    def steer(self, message: Any) -> None:
        """Queue a message for delivery after the current tool batch, before the next model request."""
        self._steering.items.append(_user_message(message) if isinstance(message, str) else message)

    def follow_up(self, message: Any) -> None:
        """Queue a message for delivery when the agent would otherwise stop."""
        self._follow_up.items.append(_user_message(message) if isinstance(message, str) else message)

    @property
    def steering_queue(self) -> list[Any]:
        return list(self._steering.items)

    @property
    def follow_up_queue(self) -> list[Any]:
        return list(self._follow_up.items)

    def clear_steering_queue(self) -> None:
        self._steering.items = []

    def clear_follow_up_queue(self) -> None:
        self._follow_up.items = []

    def clear_all_queues(self) -> None:
        self.clear_steering_queue()
        self.clear_follow_up_queue()

    def has_queued_messages(self) -> bool:
        return bool(self._steering.items or self._follow_up.items)

    # ------------------------------------------------------------------ control
    def abort(self) -> None:
        if self._active is not None:
            self._active.controller.abort()

    async def wait_for_idle(self) -> None:
        if self._active is not None:
            await asyncio.shield(self._active.done)

    def reset(self) -> None:
        s = self._state
        s.messages = []
        s.is_streaming = False
        s.streaming_message = None
        s.pending_tool_calls = frozenset()
        s.error_message = None
        self.clear_all_queues()

    async def prompt(self, input: str | Any | list[Any], images: list[ImageContent] | None = None) -> None:
        """Run the agent on a text (plus images), a message, or a list of messages; returns when idle."""
        if self._active is not None or self._state.is_streaming:
            raise RuntimeError(BUSY_PROMPT)
        if self._state.model is None:
            raise RuntimeError("No model configured")
        if isinstance(input, str):
            messages = [_user_message(input, images)]
        elif isinstance(input, list):
            messages = list(input)
        else:
            messages = [input]
        await self._run_with_lifecycle(lambda signal: self._run_loop(messages, signal))

    async def continue_(self) -> None:
        """Continue from the transcript: retry after an error, or deliver queued messages."""
        if self._active is not None or self._state.is_streaming:
            raise RuntimeError(BUSY_CONTINUE)
        messages = self._state.messages
        if not messages:
            raise RuntimeError("No messages to continue from")
        if getattr(messages[-1], "role", None) == "assistant":
            steering = self._steering.drain()
            if steering:
                await self._run_with_lifecycle(
                    lambda s: self._run_loop(steering, s, skip_initial_steering=True)
                )
                return
            follow_up = self._follow_up.drain()
            if follow_up:
                await self._run_with_lifecycle(lambda s: self._run_loop(follow_up, s))
                return
            raise RuntimeError("Cannot continue from message role: assistant")
        await self._run_with_lifecycle(lambda s: self._run_loop(None, s))

    # ------------------------------------------------------------------ run
    async def _run_with_lifecycle(self, executor: Callable[[AbortSignal], Any]) -> None:
        if self._active is not None:
            raise RuntimeError(BUSY)
        controller = AbortController()
        self._active = _ActiveRun(asyncio.get_running_loop().create_future(), controller)
        s = self._state
        s.is_streaming = True
        s.streaming_message = None
        s.error_message = None
        try:
            await executor(controller.signal)
        except Exception as exc:
            await self._handle_run_failure(exc, controller.signal.aborted)
        finally:
            self._finish_run()

    def _finish_run(self) -> None:
        s = self._state
        s.is_streaming = False
        s.streaming_message = None
        s.pending_tool_calls = frozenset()
        active, self._active = self._active, None
        if active is not None and not active.done.done():
            active.done.set_result(None)

    async def _handle_run_failure(self, exc: BaseException, aborted: bool) -> None:
        model = self._state.model
        text = str(exc) or type(exc).__name__
        msg = AssistantMessage(
            content=[],  # pi writes an empty content list for a failed run
            api=model.api if model else "",
            provider=model.provider if model else "",
            model=model.id if model else "",
            stopReason="aborted" if aborted else "error",
            errorMessage=text,
        )
        await self._process_event(MessageStartEvent(msg))
        await self._process_event(MessageEndEvent(msg))
        await self._process_event(TurnEndEvent(msg, []))
        await self._process_event(AgentEndEvent([msg]))

    def _loop_config(self, skip_initial_steering: bool) -> AgentLoopConfig:
        s = self._state
        assert s.model is not None
        skip = [skip_initial_steering]

        def get_steering() -> list[Any]:
            if skip[0]:
                skip[0] = False
                return []
            return self._steering.drain()

        prepare = self._prepare_next_turn if self.prepare_next_turn is not None else None
        return AgentLoopConfig(
            model=s.model,
            thinking_level=s.thinking_level,
            session_id=self.session_id,
            on_payload=self.on_payload,
            thinking_budgets=self.thinking_budgets,
            max_retry_delay_ms=self.max_retry_delay_ms,
            idle_timeout_s=self.idle_timeout_s,
            tool_execution=self.tool_execution,
            convert_to_llm=self.convert_to_llm,
            transform_context=self.transform_context,
            get_api_key=self.get_api_key,
            get_steering_messages=get_steering,
            get_follow_up_messages=self._follow_up.drain,
            get_tools=lambda: list(self._state.tools),
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            should_stop_after_turn=self.should_stop_after_turn,
            prepare_next_turn=prepare,
        )

    async def _prepare_next_turn(self, turn: TurnContext) -> Any:
        """Forward to the user's hook and keep the agent's state in step with what it swapped."""
        result = await call_hook(self.prepare_next_turn, turn)  # type: ignore[arg-type]
        if not result:
            return result
        context = hook_field(result, "context")
        if context is not None:
            self._state.messages = list(context.messages)
            self._state.tools = list(context.tools or [])
            self._state.system_prompt = context.system_prompt
        model = hook_field(result, "model")
        if model is not None:
            self._state.model = model
        level = hook_field(result, "thinking_level", "thinkingLevel")
        if level is not None:
            self._state.thinking_level = level
        return result

    async def _run_loop(
        self, messages: list[Any] | None, signal: AbortSignal, skip_initial_steering: bool = False
    ) -> None:
        s = self._state
        context = AgentContext(s.system_prompt, as_history(s.messages), list(s.tools))
        config = self._loop_config(skip_initial_steering)
        if messages is not None:
            await run_agent_loop(messages, context, config, self._process_event, signal, self.stream_fn)
        else:
            await run_agent_loop_continue(context, config, self._process_event, signal, self.stream_fn)

    async def _process_event(self, event: AgentEvent) -> None:
        s = self._state
        match event:
            case MessageStartEvent() | MessageUpdateEvent():
                s.streaming_message = event.message
            case MessageEndEvent():
                s.streaming_message = None
                s.messages.append(event.message)
            case ToolExecutionStartEvent():
                s.pending_tool_calls = s.pending_tool_calls | {event.tool_call_id}
            case ToolExecutionEndEvent():
                s.pending_tool_calls = s.pending_tool_calls - {event.tool_call_id}
            case TurnEndEvent(message=AssistantMessage(errorMessage=str(error))) if error:
                s.error_message = error
            case AgentEndEvent():
                s.streaming_message = None
        signal = self.signal
        for listener in list(self._listeners):
            result = listener(event, signal)
            if inspect.isawaitable(result):
                await result


def _takes_signal(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)
