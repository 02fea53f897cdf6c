"""The event pump: session events → the :class:`~widgets.conversation.Conversation` and the app.

The session's listener only queues events (it never awaits the UI, so a slow frame cannot stall the
agent); one consumer task applies them in order, merging consecutive text/thinking deltas and pausing a
frame (~30 fps) after streaming batches so bursts of tiny chunks cost one widget update each.

What the conversation shows is the Conversation's business (:meth:`Conversation.apply`); what the rest of
the screen shows (status line, queue, footer, model) reaches the app as the ``Message`` s below.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

from pi_app.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageUpdateEvent,
    TurnEndEvent,
)
from pi_app.ai.events import TextDeltaEvent, ThinkingDeltaEvent
from pi_app.session.session_events import (
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    ModelSelectEvent,
    QueueUpdateEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
)
from widgets.conversation import role_of

if TYPE_CHECKING:
    from textual.app import App

    from pi_app.session.session_events import SessionEvent
    from widgets.conversation import Conversation

FRAME_S = 1 / 30
URGENT_EVENTS = frozenset({"message_end", "agent_end"})
MAX_PAUSE_S = 0.1  # streaming updates never wait longer than this between batches

StatusState = Literal["working", "idle", "compacting", "retrying", "restore"]


def _last_assistant_end(batch: list[SessionEvent]) -> int:
    """Index of the last assistant ``message_end`` in ``batch`` (-1 when there is none)."""
    for index in range(len(batch) - 1, -1, -1):
        event = batch[index]
        if isinstance(event, MessageEndEvent) and role_of(event.message) == "assistant":
            return index
    return -1


class EventBridge:
    class StatusChanged(Message):
        """The status line's state: ``restore`` means working while the agent streams, else clear."""

        def __init__(
            self,
            state: StatusState,
            *,
            automatic: bool = False,
            attempt: int = 0,
            max_attempts: int = 0,
            delay_s: float = 0.0,
        ) -> None:
            super().__init__()
            self.state = state
            self.automatic = automatic  # compacting: started by the session, not by /compact
            self.attempt = attempt
            self.max_attempts = max_attempts
            self.delay_s = delay_s

    class QueueChanged(Message):
        """The steering and follow-up queues changed."""

        def __init__(self, steering: list[str], follow_up: list[str]) -> None:
            super().__init__()
            self.steering = steering
            self.follow_up = follow_up

    class FooterChanged(Message):
        """Usage, session name, model or thinking level changed: the footer is out of date."""

    class ModelChanged(Message):
        """The session's model changed."""

    class CompactionEnded(Message):
        """A compaction (manual or automatic) ended, however it ended."""

    class ThinkingLevelChanged(Message):
        def __init__(self, level: str) -> None:
            super().__init__()
            self.level = level

    def __init__(self, conversation: Conversation, app: App[Any], frame_s: float = FRAME_S) -> None:
        self.conversation = conversation
        self.app = app  # receives the Messages above
        self.frame_s = frame_s
        self._pending: list[SessionEvent] = []
        self._wake = asyncio.Event()
        self._urgent = asyncio.Event()  # an end of message/run is waiting: skip the frame pause
        self._idle = asyncio.Event()
        self._idle.set()

    # ------------------------------------------------------------------ intake (any caller)
    async def __call__(self, event: SessionEvent) -> None:
        self._pending.append(event)
        self._idle.clear()
        self._wake.set()
        if event.type in URGENT_EVENTS:
            self._urgent.set()

    async def drained(self) -> None:
        """Wait until every queued event has been applied and the app has handled the Messages they
        posted (a callback queued behind them runs after them). Not for the app's own message handlers,
        which would wait for themselves: call it from a worker or a test."""
        await self._idle.wait()
        handled = asyncio.Event()
        if self.app.call_later(handled.set):
            await handled.wait()

    @property
    def busy(self) -> bool:
        return not self._idle.is_set()

    # ------------------------------------------------------------------ consumer
    async def run(self) -> None:
        lateness = 0.0
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                started = time.perf_counter()
                try:
                    streamed = await self._apply(batch)
                except asyncio.CancelledError as exc:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise
                    # a widget's inner task was cancelled, not the pump: log it and keep going
                    self.app.log.error(f"event bridge: {exc!r}")
                    streamed = False
                except Exception as exc:  # a rendering bug must not kill the event pump
                    self.app.log.error(f"event bridge: {exc!r}")
                    streamed = False
                if streamed and self.frame_s > 0:
                    # Back off while applying and painting cost more than a frame (lateness: how long the
                    # loop was busy past the last pause), so keys and the stream itself keep getting turns.
                    busy = time.perf_counter() - started + lateness
                    pause = min(MAX_PAUSE_S, max(self.frame_s, busy))
                    woke = time.perf_counter()
                    if not self._urgent.is_set():
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._urgent.wait(), pause)
                    lateness = max(0.0, time.perf_counter() - woke - pause)
                self._urgent.clear()
            lateness = 0.0
            self._idle.set()

    async def _apply(self, batch: list[SessionEvent]) -> bool:
        conversation = self.conversation
        streamed = False
        buf_kind: str | None = None
        buf: list[str] = []

        async def flush() -> None:
            nonlocal buf_kind, buf
            if buf_kind is not None:
                text = "".join(buf)
                if buf_kind == "text":
                    await conversation.append_text(text)
                else:
                    await conversation.append_thinking(text)
            buf_kind, buf = None, []

        # Text that a later message_end in this batch will carry in full is never streamed: a burst that
        # already holds the whole answer goes straight to the frozen form.
        superseded = _last_assistant_end(batch)
        for index, event in enumerate(batch):
            if isinstance(event, MessageUpdateEvent):
                streamed = True
                ae = event.assistant_message_event
                if isinstance(ae, TextDeltaEvent | ThinkingDeltaEvent):
                    if index < superseded:
                        continue
                    delta_kind = "text" if isinstance(ae, TextDeltaEvent) else "thinking"
                    if buf_kind != delta_kind:
                        await flush()
                        buf_kind = delta_kind
                    buf.append(ae.delta or "")
                    continue
                await flush()
                await conversation.update_tool_call(ae)
                continue
            await flush()
            await conversation.apply(event)
            self._notify_app(event)
        await flush()
        return streamed

    def _notify_app(self, event: SessionEvent) -> None:
        """Post what the rest of the screen needs to know about ``event`` to the app."""
        post = self.app.post_message
        match event:
            case AgentStartEvent():
                post(self.StatusChanged("working"))
            case AgentEndEvent():
                post(self.StatusChanged("idle"))
                post(self.FooterChanged())
            case TurnEndEvent() | SessionInfoChangedEvent():
                post(self.FooterChanged())
            case QueueUpdateEvent():
                post(self.QueueChanged(list(event.steering), list(event.follow_up)))
            case CompactionStartEvent():
                post(self.StatusChanged("compacting", automatic=event.reason != "manual"))
            case CompactionEndEvent():
                post(self.StatusChanged("restore"))
                post(self.CompactionEnded())
                if not event.aborted and event.result is not None:
                    post(self.FooterChanged())
            case AutoRetryStartEvent():
                post(
                    self.StatusChanged(
                        "retrying",
                        attempt=event.attempt,
                        max_attempts=event.max_attempts,
                        delay_s=event.delay_ms / 1000,
                    )
                )
            case AutoRetryEndEvent():
                post(self.StatusChanged("restore"))
            case ModelSelectEvent():
                post(self.FooterChanged())
                post(self.ModelChanged())
            case ThinkingLevelChangedEvent():
                post(self.ThinkingLevelChanged(event.level))
            case _:
                pass
