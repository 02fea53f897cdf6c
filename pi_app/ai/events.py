"""The streaming protocol (pi's ``AssistantMessageEvent``) and the stream object providers return."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from pi_app.ai.types import AssistantMessage, ToolCall, dump

AssistantEventType = Literal[
    "start",
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
    "error",
]


@dataclass(slots=True)
class AssistantMessageEvent:
    """One streaming event. ``partial`` is the accumulated message (all but done/error).

    done carries ``reason`` + ``message``; error carries ``reason`` + ``error`` (the final message with
    ``errorMessage``)."""

    type: AssistantEventType
    partial: AssistantMessage | None = None
    contentIndex: int | None = None
    delta: str | None = None
    content: str | None = None
    toolCall: ToolCall | None = None
    reason: str | None = None
    message: AssistantMessage | None = None
    error: AssistantMessage | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.contentIndex is not None:
            out["contentIndex"] = self.contentIndex
        if self.delta is not None:
            out["delta"] = self.delta
        if self.content is not None:
            out["content"] = self.content
        if self.toolCall is not None:
            out["toolCall"] = dump(self.toolCall)
        if self.reason is not None:
            out["reason"] = self.reason
        if self.message is not None:
            out["message"] = dump(self.message)
        if self.error is not None:
            out["error"] = dump(self.error)
        if self.partial is not None:
            out["partial"] = dump(self.partial)
        return out

    @property
    def final(self) -> AssistantMessage | None:
        return self.message if self.type == "done" else self.error if self.type == "error" else None


class AssistantMessageEventStream:
    """Async-iterable over events, plus ``await stream.result()`` for the final message.

    Wraps a provider's async generator. The provider contract (never raise after start) is enforced here:
    any exception escaping the generator becomes an ``error`` event built by ``on_exception``.
    """

    __slots__ = ("_gen", "_result", "_on_exception", "_iterating", "_done")

    def __init__(self, gen: AsyncIterator[AssistantMessageEvent], on_exception: Any) -> None:
        self._gen = gen
        self._on_exception = on_exception
        self._result: AssistantMessage | None = None
        self._iterating = False
        self._done = False

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AssistantMessageEvent]:
        if self._done:
            return
        self._iterating = True
        try:
            while True:
                try:
                    ev = await self._gen.__anext__()
                except StopAsyncIteration:
                    break
                except BaseException as exc:  # noqa: BLE001 - contract: never raise
                    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                        raise
                    ev = self._on_exception(exc)
                    self._result = ev.final
                    yield ev
                    break
                final = ev.final
                if final is not None:
                    self._result = final
                yield ev
                if final is not None:
                    break
        finally:
            self._done = True
            try:
                await self._gen.aclose()
            except BaseException:
                pass
        if self._result is None:
            ev = self._on_exception(RuntimeError("Stream ended without a final message"))
            self._result = ev.final
            yield ev

    async def result(self) -> AssistantMessage:
        if not self._done:
            async for _ in self:
                pass
        assert self._result is not None
        return self._result
