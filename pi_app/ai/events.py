"""The streaming protocol (pi's ``AssistantMessageEvent``) and the stream object providers return."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

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

# One class per kind, as pi's discriminated union. ``partial`` is the accumulated message (the same object
# throughout one stream); ``final`` is the finished message on done/error, else None. ``to_json`` keeps pi's
# key order: type, contentIndex, delta/content/toolCall, partial (done/error: type, reason, message/error).


def _block_json(type_: str, index: int, partial: AssistantMessage, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "contentIndex": index}
    out.update(extra)
    out["partial"] = dump(partial)
    return out


@dataclass(slots=True)
class StartEvent:
    """The assistant's streamed reply began; ``partial`` is the message being built (still empty)."""

    partial: AssistantMessage
    type: ClassVar[Literal["start"]] = "start"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "partial": dump(self.partial)}


@dataclass(slots=True)
class TextStartEvent:
    """A text block began in the assistant's streamed reply, at ``contentIndex``."""

    partial: AssistantMessage
    contentIndex: int
    type: ClassVar[Literal["text_start"]] = "text_start"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial)


@dataclass(slots=True)
class TextDeltaEvent:
    """More text arrived for the text block at ``contentIndex``; ``delta`` is the new piece."""

    partial: AssistantMessage
    contentIndex: int
    delta: str
    type: ClassVar[Literal["text_delta"]] = "text_delta"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, delta=self.delta)


@dataclass(slots=True)
class TextEndEvent:
    """The text block at ``contentIndex`` is complete; ``content`` is its full text."""

    partial: AssistantMessage
    contentIndex: int
    content: str
    type: ClassVar[Literal["text_end"]] = "text_end"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, content=self.content)


@dataclass(slots=True)
class ThinkingStartEvent:
    """A thinking (reasoning) block began in the assistant's streamed reply, at ``contentIndex``."""

    partial: AssistantMessage
    contentIndex: int
    type: ClassVar[Literal["thinking_start"]] = "thinking_start"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial)


@dataclass(slots=True)
class ThinkingDeltaEvent:
    """More reasoning arrived for the thinking block at ``contentIndex``; ``delta`` is the new piece."""

    partial: AssistantMessage
    contentIndex: int
    delta: str
    type: ClassVar[Literal["thinking_delta"]] = "thinking_delta"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, delta=self.delta)


@dataclass(slots=True)
class ThinkingEndEvent:
    """The thinking block at ``contentIndex`` is complete; ``content`` is its full text."""

    partial: AssistantMessage
    contentIndex: int
    content: str
    type: ClassVar[Literal["thinking_end"]] = "thinking_end"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, content=self.content)


@dataclass(slots=True)
class ToolCallStartEvent:
    """A tool call began in the assistant's streamed reply, at ``contentIndex``."""

    partial: AssistantMessage
    contentIndex: int
    type: ClassVar[Literal["toolcall_start"]] = "toolcall_start"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial)


@dataclass(slots=True)
class ToolCallDeltaEvent:
    """More of a tool call's JSON arguments arrived; ``delta`` is the raw text piece."""

    partial: AssistantMessage
    contentIndex: int
    delta: str
    type: ClassVar[Literal["toolcall_delta"]] = "toolcall_delta"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, delta=self.delta)


@dataclass(slots=True)
class ToolCallEndEvent:
    """The tool call at ``contentIndex`` is complete; ``toolCall`` holds its parsed arguments."""

    partial: AssistantMessage
    contentIndex: int
    toolCall: ToolCall
    type: ClassVar[Literal["toolcall_end"]] = "toolcall_end"
    final: ClassVar[None] = None

    def to_json(self) -> dict[str, Any]:
        return _block_json(self.type, self.contentIndex, self.partial, toolCall=dump(self.toolCall))


@dataclass(slots=True)
class DoneEvent:
    """The stream finished; ``message`` is the final message (``reason`` is its stopReason)."""

    reason: str
    message: AssistantMessage
    type: ClassVar[Literal["done"]] = "done"

    @property
    def final(self) -> AssistantMessage:
        return self.message

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason, "message": dump(self.message)}


@dataclass(slots=True)
class ErrorEvent:
    """The stream failed or was aborted; ``error`` is the final message, with ``errorMessage``."""

    reason: str
    error: AssistantMessage
    type: ClassVar[Literal["error"]] = "error"

    @property
    def final(self) -> AssistantMessage:
        return self.error

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason, "error": dump(self.error)}


AssistantMessageEvent = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)
"""pi's ``AssistantMessageEvent``: dispatch on the class (``match``) or on ``type``."""

# The events that carry a partial message (all but done/error).
PartialEvent = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
)


class AssistantMessageEventStream:
    """Async-iterable over events, plus ``await stream.result()`` for the final message.

    Wraps a provider's async generator. The provider contract (never raise after start) is enforced here:
    any exception escaping the generator becomes an ``error`` event built by ``on_exception``.
    """

    __slots__ = ("_gen", "_result", "_on_exception", "_iterating", "_done")

    def __init__(
        self, gen: AsyncIterator[AssistantMessageEvent], on_exception: Callable[[BaseException], ErrorEvent]
    ) -> None:
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
                aclose = getattr(self._gen, "aclose", None)
                if aclose is not None:
                    await aclose()
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
