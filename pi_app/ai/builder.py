"""Assembles an AssistantMessage from provider deltas and produces the matching stream events.

Every provider adapter drives one of these, so the event protocol (indices, partials, incremental
tool-call JSON, cost, error/abort endings) is implemented once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pi_app.ai.abort import AbortError
from pi_app.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_app.ai.json_parse import parse_streaming_json
from pi_app.ai.types import (
    AssistantMessage,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    calculate_cost,
)


class MessageBuilder:
    __slots__ = ("model", "msg", "_tool_json", "_open")

    def __init__(self, model: Model) -> None:
        self.model = model
        self.msg = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self._tool_json: dict[int, str] = {}
        self._open: set[int] = set()

    # -- lifecycle
    def start(self) -> StartEvent:
        return StartEvent(self.msg)

    @property
    def usage(self) -> Usage:
        return self.msg.usage

    # -- text
    def begin_text(self, text: str = "", signature: str | None = None) -> tuple[int, TextStartEvent]:
        self.msg.content.append(TextContent(text=text, textSignature=signature))
        idx = len(self.msg.content) - 1
        self._open.add(idx)
        return idx, TextStartEvent(self.msg, idx)

    def text_delta(self, idx: int, delta: str) -> TextDeltaEvent:
        block = self.msg.content[idx]
        block.text += delta  # type: ignore[union-attr]
        return TextDeltaEvent(self.msg, idx, delta)

    def end_text(self, idx: int, signature: str | None = None) -> TextEndEvent:
        block = self.msg.content[idx]
        if signature is not None:
            block.textSignature = signature  # type: ignore[union-attr]
        self._open.discard(idx)
        return TextEndEvent(self.msg, idx, block.text)  # type: ignore[union-attr]

    # -- thinking
    def begin_thinking(
        self, signature: str | None = None, redacted: bool | None = None
    ) -> tuple[int, ThinkingStartEvent]:
        self.msg.content.append(ThinkingContent(thinking="", thinkingSignature=signature, redacted=redacted))
        idx = len(self.msg.content) - 1
        self._open.add(idx)
        return idx, ThinkingStartEvent(self.msg, idx)

    def thinking_delta(self, idx: int, delta: str) -> ThinkingDeltaEvent:
        block = self.msg.content[idx]
        block.thinking += delta  # type: ignore[union-attr]
        return ThinkingDeltaEvent(self.msg, idx, delta)

    def add_thinking_signature(self, idx: int, signature: str) -> None:
        block = self.msg.content[idx]
        block.thinkingSignature = (block.thinkingSignature or "") + signature  # type: ignore[union-attr]

    def end_thinking(self, idx: int, signature: str | None = None) -> ThinkingEndEvent:
        block = self.msg.content[idx]
        if signature is not None:
            block.thinkingSignature = signature  # type: ignore[union-attr]
        self._open.discard(idx)
        return ThinkingEndEvent(self.msg, idx, block.thinking)  # type: ignore[union-attr]

    # -- tool calls
    def begin_tool_call(
        self, call_id: str, name: str, initial_json: str = ""
    ) -> tuple[int, ToolCallStartEvent]:
        self.msg.content.append(ToolCall(id=call_id, name=name, arguments={}))
        idx = len(self.msg.content) - 1
        self._tool_json[idx] = initial_json
        self._open.add(idx)
        if initial_json:
            self.msg.content[idx].arguments = parse_streaming_json(initial_json)  # type: ignore[union-attr]
        return idx, ToolCallStartEvent(self.msg, idx)

    def tool_delta(self, idx: int, delta: str) -> ToolCallDeltaEvent:
        buf = self._tool_json.get(idx, "") + delta
        self._tool_json[idx] = buf
        self.msg.content[idx].arguments = parse_streaming_json(buf)  # type: ignore[union-attr]
        return ToolCallDeltaEvent(self.msg, idx, delta)

    def tool_json(self, idx: int) -> str:
        return self._tool_json.get(idx, "")

    def end_tool_call(self, idx: int, arguments: dict[str, Any] | None = None) -> ToolCallEndEvent:
        block = self.msg.content[idx]
        if arguments is not None:
            block.arguments = arguments  # type: ignore[union-attr]
        else:
            raw = self._tool_json.get(idx, "")
            try:
                parsed = json.loads(raw) if raw.strip() else {}
                block.arguments = parsed if isinstance(parsed, dict) else {}  # type: ignore[union-attr]
            except ValueError:
                block.arguments = parse_streaming_json(raw)  # type: ignore[union-attr]
        self._open.discard(idx)
        return ToolCallEndEvent(self.msg, idx, block)  # type: ignore[arg-type]

    def close_open_blocks(self) -> list[AssistantMessageEvent]:
        """End events for blocks a provider left open (e.g. a stream that stopped early)."""
        out: list[AssistantMessageEvent] = []
        for idx in sorted(self._open):
            block = self.msg.content[idx]
            if block.type == "text":
                out.append(self.end_text(idx))
            elif block.type == "thinking":
                out.append(self.end_thinking(idx))
            else:
                out.append(self.end_tool_call(idx))
        return out

    # -- endings
    def finish_usage(self) -> None:
        u = self.msg.usage
        u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite
        calculate_cost(self.model, u)

    def done(self, reason: str) -> DoneEvent:
        self.finish_usage()
        self.msg.stopReason = reason  # type: ignore[assignment]
        return DoneEvent(reason, self.msg)

    def error(self, message: str, aborted: bool = False) -> ErrorEvent:
        self.finish_usage()
        reason = "aborted" if aborted else "error"
        self.msg.stopReason = reason  # type: ignore[assignment]
        self.msg.errorMessage = message
        return ErrorEvent(reason, self.msg)

    def fail(self, exc: BaseException, signal: Any, describe: Callable[[BaseException], str]) -> ErrorEvent:
        """The terminal event of a provider that caught ``exc``: aborted when the signal fired (or the
        exception is an abort), else an error described by ``describe``. Half-open blocks are closed
        silently: their end events are moot once the request failed."""
        self.close_open_blocks()
        if isinstance(exc, AbortError) or bool(signal is not None and signal.aborted):
            return self.error("Request was aborted", aborted=True)
        return self.error(describe(exc))

    def from_exception(self, exc: BaseException, aborted: bool = False) -> ErrorEvent:
        import asyncio

        if isinstance(exc, (AbortError, asyncio.CancelledError)) or aborted:
            return self.error("Request was aborted", aborted=True)
        text = str(exc) or type(exc).__name__
        return self.error(text)
