"""A deterministic, scriptable in-process provider for tests, benchmarks and demos.

Script responses with :data:`FAUX` (``FAUX.enqueue(faux_text("hi"))``) or a ``responder`` callable that
sees each request's context. Subprocesses read a JSON script from ``PI_FAUX_SCRIPT`` (a list of
responses in the JSON form of :class:`FauxResponse`). Every request is recorded in ``FAUX.requests``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.abort import AbortError, race_abort
from pi_app.ai.builder import MessageBuilder
from pi_app.ai.deferred import Deferred, materialize
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import Context, Model, ModelCost, dump


@dataclass
class FauxStep:
    """One content block of a scripted reply: text, thinking, or a tool call."""

    kind: str  # "text" | "thinking" | "tool"
    text: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    signature: str | None = None


@dataclass
class FauxResponse:
    """One scripted assistant reply: its blocks, how it ends, its usage and how fast it streams."""

    steps: list[FauxStep] = field(default_factory=list)
    stop_reason: str | None = None  # default: toolUse when the response has tool calls, else stop
    error: str | None = None  # after the steps, end with an error event carrying this message
    usage: dict[str, int] | None = None  # input/output/cacheRead/cacheWrite; default estimated
    chunk_size: int = 8  # characters per delta
    delay_s: float = 0.0  # pause before each delta (pacing for demos and abort tests)
    # Once the first delta is out, wait for this (or an abort) before the next: a stream that lasts exactly
    # until the caller releases it, whatever the machine's load.
    hold: asyncio.Event | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FauxResponse:
        steps = [FauxStep(**s) for s in data.get("steps", [])]
        return cls(
            steps=steps,
            stop_reason=data.get("stopReason"),
            error=data.get("error"),
            usage=data.get("usage"),
            chunk_size=data.get("chunkSize", 8),
            delay_s=data.get("delay", 0.0),
        )


def faux_text(text: str, **kw: Any) -> FauxResponse:
    return FauxResponse(steps=[FauxStep("text", text=text)], **kw)


def faux_tool(
    name: str, arguments: dict[str, Any], text: str = "", call_id: str | None = None, **kw: Any
) -> FauxResponse:
    steps = [FauxStep("text", text=text)] if text else []
    steps.append(FauxStep("tool", name=name, arguments=arguments, id=call_id))
    return FauxResponse(steps=steps, **kw)


def faux_tools(*calls: tuple[str, dict[str, Any]], text: str = "", **kw: Any) -> FauxResponse:
    steps = [FauxStep("text", text=text)] if text else []
    steps += [FauxStep("tool", name=n, arguments=a) for n, a in calls]
    return FauxResponse(steps=steps, **kw)


def faux_error(message: str, **kw: Any) -> FauxResponse:
    return FauxResponse(error=message, **kw)


class FauxController:
    def __init__(self) -> None:
        self.responses: deque[FauxResponse] = deque()
        self.responder: Callable[[Context], FauxResponse] | None = None
        self.requests: list[Context] = []
        self.options: list[StreamOptions] = []
        self._counter = 0
        self._env_loaded = False

    def reset(self) -> None:
        self.responses.clear()
        self.responder = None
        self.requests.clear()
        self.options.clear()
        self._counter = 0
        self._env_loaded = False

    def enqueue(self, *responses: FauxResponse) -> None:
        self.responses.extend(responses)

    def _load_env_script(self) -> None:
        if self._env_loaded:
            return
        self._env_loaded = True
        path = os.environ.get("PI_FAUX_SCRIPT")
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            self.responses.extend(FauxResponse.from_json(d) for d in data)

    def next_response(self, context: Context) -> FauxResponse | None:
        self._load_env_script()
        if self.responses:
            return self.responses.popleft()
        if self.responder is not None:
            return self.responder(context)
        return None

    def next_id(self) -> str:
        self._counter += 1
        return f"faux_call_{self._counter}"


FAUX = FauxController()


def faux_model(
    id: str = "faux-1",
    provider: str = "faux",
    reasoning: bool = True,
    context_window: int = 200_000,
    max_tokens: int = 32_000,
    cost: tuple[float, float, float, float] = (1.0, 2.0, 0.1, 1.25),
) -> Model:
    return Model(
        id=id,
        name=f"Faux {id}",
        api="faux",
        provider=provider,
        baseUrl="",
        reasoning=reasoning,
        input=["text", "image"],
        cost=ModelCost(input=cost[0], output=cost[1], cacheRead=cost[2], cacheWrite=cost[3]),
        contextWindow=context_window,
        maxTokens=max_tokens,
    )


def _estimate_tokens(obj: Any) -> int:
    try:
        text = json.dumps(obj, default=lambda o: dump(o) if hasattr(o, "model_dump") else str(o))
    except Exception:
        text = str(obj)
    return max(1, len(text.encode("utf-8")) // 4)


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def stream_faux(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    if any(isinstance(m, Deferred) for m in context.messages):  # a resumed history's untyped messages
        context = context.model_copy(update={"messages": list(materialize(context.messages))})
    FAUX.requests.append(context)
    FAUX.options.append(options)
    b = MessageBuilder(model)
    signal = options.signal
    yield b.start()
    resp = FAUX.next_response(context)
    if resp is None:
        yield b.error("Faux provider has no scripted response")
        return

    first_delta = True

    async def pace() -> None:
        nonlocal first_delta
        if resp.hold is not None and not first_delta:
            await race_abort(resp.hold.wait(), signal)
        first_delta = False
        if resp.delay_s > 0:
            await race_abort(asyncio.sleep(resp.delay_s), signal)
        elif signal is not None and signal.aborted:
            raise AbortError()

    ev: AssistantMessageEvent
    try:
        for step in resp.steps:
            if step.kind == "text":
                idx, ev = b.begin_text()
                yield ev
                for piece in _chunks(step.text, resp.chunk_size):
                    await pace()
                    yield b.text_delta(idx, piece)
                yield b.end_text(idx)
            elif step.kind == "thinking":
                idx, ev = b.begin_thinking(signature=step.signature)
                yield ev
                for piece in _chunks(step.text, resp.chunk_size):
                    await pace()
                    yield b.thinking_delta(idx, piece)
                yield b.end_thinking(idx)
            elif step.kind == "tool":
                idx, ev = b.begin_tool_call(step.id or FAUX.next_id(), step.name)
                yield ev
                for piece in _chunks(json.dumps(step.arguments), resp.chunk_size * 4):
                    await pace()
                    yield b.tool_delta(idx, piece)
                yield b.end_tool_call(idx)
            else:
                raise ValueError(f"unknown faux step kind: {step.kind}")
    except AbortError:
        for ev in b.close_open_blocks():
            yield ev
        yield b.error("Request was aborted", aborted=True)
        return

    u = b.usage
    if resp.usage is not None:
        u.input = resp.usage.get("input", 0)
        u.output = resp.usage.get("output", 0)
        u.cacheRead = resp.usage.get("cacheRead", 0)
        u.cacheWrite = resp.usage.get("cacheWrite", 0)
    else:
        u.input = _estimate_tokens([context.systemPrompt, context.messages])
        u.output = _estimate_tokens(b.msg.content)
    if resp.error is not None:
        yield b.error(resp.error)
        return
    has_tools = any(s.kind == "tool" for s in resp.steps)
    yield b.done(resp.stop_reason or ("toolUse" if has_tools else "stop"))
