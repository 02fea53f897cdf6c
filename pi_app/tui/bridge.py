"""Session events → chat widgets.

The session's listener only queues events (it never awaits the UI, so a slow frame cannot stall the
agent); one consumer task applies them in order, merging consecutive text/thinking deltas and pausing a
frame (~30 fps) after streaming batches so bursts of tiny chunks cost one widget update each.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_app.ai.events import AssistantMessageEvent, ToolCallDeltaEvent, ToolCallEndEvent, ToolCallStartEvent
from pi_app.ai.types import ToolCall
from pi_app.tui.history_view import role_of, user_text
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import CompactionSummaryView, ErrorNotice, InfoNotice
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel

if TYPE_CHECKING:
    from pi_app.session.session_events import SessionEvent
    from pi_app.tui.context import AppContext as PiApp  # the app as its collaborators see it

FRAME_S = 1 / 30
URGENT_EVENTS = frozenset({"message_end", "agent_end"})
MAX_PAUSE_S = 0.1  # streaming updates never wait longer than this between batches


def result_data(result: Any, is_error: bool = False) -> ToolResultData:
    """A tool result (AgentToolResult, ToolResultMessage or its JSON) as the panel's data."""
    if result is None:
        return ToolResultData("", is_error)
    if isinstance(result, dict):
        return ToolResultData.from_content(result.get("content", []), result.get("details"), is_error)
    return ToolResultData.from_content(
        getattr(result, "content", []), getattr(result, "details", None), is_error
    )


def _last_assistant_end(batch: list[Any]) -> int:
    """Index of the last assistant ``message_end`` in ``batch`` (-1 when there is none)."""
    for index in range(len(batch) - 1, -1, -1):
        event = batch[index]
        if getattr(event, "type", None) == "message_end" and role_of(event.message) == "assistant":
            return index
    return -1


class EventBridge:
    def __init__(self, app: PiApp, frame_s: float = FRAME_S) -> None:
        self.app = app
        self.frame_s = frame_s
        self._pending: list[Any] = []
        self._wake = asyncio.Event()
        self._urgent = asyncio.Event()  # an end of message/run is waiting: skip the frame pause
        self._idle = asyncio.Event()
        self._idle.set()
        self.current: AssistantMessageView | None = None
        self.panels: dict[str, ToolPanel] = {}
        self.events_seen = 0
        self.on_after_batch: Callable[[], None] | None = None

    # ------------------------------------------------------------------ intake (any caller)
    async def __call__(self, event: SessionEvent) -> None:
        self._pending.append(event)
        self._idle.clear()
        self._wake.set()
        if event.type in URGENT_EVENTS:
            self._urgent.set()

    async def drained(self) -> None:
        """Wait until every queued event has been applied."""
        await self._idle.wait()

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
                self.events_seen += len(batch)
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

    async def _apply(self, batch: list[Any]) -> bool:
        streamed = False
        buf_kind: str | None = None
        buf: list[str] = []

        async def flush() -> None:
            nonlocal buf_kind, buf
            if buf_kind is not None and self.current is not None:
                text = "".join(buf)
                if buf_kind == "text":
                    await self.current.append_text(text)
                else:
                    await self.current.append_thinking(text)
            buf_kind, buf = None, []

        # Text that a later message_end in this batch will carry in full is never streamed: a burst that
        # already holds the whole answer goes straight to the frozen form.
        superseded = _last_assistant_end(batch)
        for index, event in enumerate(batch):
            kind = getattr(event, "type", None)
            if kind == "message_update":
                ae = event.assistant_message_event
                if ae.type in ("text_delta", "thinking_delta"):
                    if index < superseded:
                        streamed = True
                        continue
                    delta_kind = "text" if ae.type == "text_delta" else "thinking"
                    if buf_kind != delta_kind:
                        await flush()
                        buf_kind = delta_kind
                    buf.append(ae.delta or "")
                    streamed = True
                    continue
                await flush()
                await self._tool_call_update(ae)
                streamed = True
                continue
            await flush()
            await self._handle(kind, event)
        await flush()
        if self.on_after_batch is not None:
            self.on_after_batch()
        return streamed

    # ------------------------------------------------------------------ handlers
    async def _tool_call_update(self, ae: AssistantMessageEvent) -> None:
        match ae:
            case ToolCallEndEvent():
                call: object = ae.toolCall
            case ToolCallStartEvent() | ToolCallDeltaEvent() if ae.contentIndex < len(ae.partial.content):
                call = ae.partial.content[ae.contentIndex]
            case _:
                return
        if not isinstance(call, ToolCall):
            return
        panel = self.panels.get(call.id)
        if panel is None:
            await self._new_panel(call.id, call.name, call.arguments or {})
        else:
            panel.update_args(call.arguments or {})

    async def _new_panel(self, call_id: str, name: str, args: dict[str, Any]) -> ToolPanel:
        panel = ToolPanel(call_id, name, args, home=self.app.home)
        self.panels[call_id] = panel
        await self.app.chat.add(panel)
        return panel

    async def _handle(self, kind: str | None, event: Any) -> None:
        app = self.app
        if kind == "agent_start":
            app.status.show_working()
        elif kind == "agent_end":
            if self.current is not None and not self.current.finalized:
                await self.current.finalize()
            self.current = None
            self.panels.clear()
            app.status.clear()
            app.refresh_footer()
        elif kind == "message_start":
            await self._message_start(event.message)
        elif kind == "message_end":
            msg = event.message
            if role_of(msg) == "assistant" and self.current is not None:
                view, self.current = self.current, None
                await view.finalize(msg)
                if not view.frozen_markup():
                    view.display = False
        elif kind == "turn_end":
            app.refresh_footer()
        elif kind == "tool_execution_start":
            panel = self.panels.get(event.tool_call_id) or await self._new_panel(
                event.tool_call_id, event.tool_name, event.args if isinstance(event.args, dict) else {}
            )
            if isinstance(event.args, dict):
                panel.update_args(event.args)
            panel.set_running()
        elif kind == "tool_execution_update":
            panel = self.panels.get(event.tool_call_id)
            if panel is not None:
                panel.update_partial(result_data(event.partial_result))
        elif kind == "tool_execution_end":
            panel = self.panels.get(event.tool_call_id) or await self._new_panel(
                event.tool_call_id, event.tool_name, {}
            )
            panel.set_result(result_data(event.result, bool(event.is_error)))
        elif kind == "queue_update":
            app.queue_area.set_queues(list(event.steering), list(event.follow_up))
        elif kind == "compaction_start":
            app.status.show_compacting(automatic=getattr(event, "reason", "manual") != "manual")
        elif kind == "compaction_end":
            await self._compaction_end(event)
        elif kind == "auto_retry_start":
            app.status.show_retry(event.attempt, event.max_attempts, event.delay_ms / 1000)
        elif kind == "auto_retry_end":
            if not event.success:
                msg = event.final_error or "Unknown error"
                await app.chat.add(ErrorNotice(f"Retry failed after {event.attempt} attempts: {msg}"))
            self._restore_status()
        elif kind in ("session_info_changed", "model_select"):
            app.refresh_footer()
            if kind == "model_select":
                app.on_model_changed()
        elif kind == "thinking_level_changed":
            app.editor.thinking_level = event.level
            app.refresh_footer()

    def _restore_status(self) -> None:
        if self.app.session.is_streaming:
            self.app.status.show_working()
        else:
            self.app.status.clear()

    async def _message_start(self, msg: Any) -> None:
        role = role_of(msg)
        if role == "user":
            text = user_text(msg)
            if text.strip():
                await self.app.chat.add(UserMessageView(text))
        elif role == "assistant":
            self.current = AssistantMessageView(hide_thinking=self.app.chat.hide_thinking)
            await self.app.chat.add(self.current)

    async def _compaction_end(self, event: Any) -> None:
        app = self.app
        self._restore_status()
        if event.aborted:
            await app.chat.add(
                InfoNotice(
                    "Compaction cancelled" if event.reason == "manual" else "Auto-compaction cancelled"
                )
            )
        elif event.result is not None:
            await app.chat.add(
                CompactionSummaryView(event.result.summary, int(event.result.tokens_before or 0))
            )
            app.refresh_footer()
        elif event.error_message:
            text = event.error_message
            if event.reason == "manual" and not text.startswith("Compaction"):
                text = f"Compaction failed: {text}"
            await app.chat.add(ErrorNotice(text))
