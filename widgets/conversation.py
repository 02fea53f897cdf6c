"""The conversation: every session message and session event that shows content becomes a widget here.

One builder (:meth:`Conversation.widgets_for`) turns a finished message into widgets, for a resumed history
and for a live user prompt alike; live streaming (the assistant's deltas, tool calls and their execution) goes
through :meth:`Conversation.apply` and the ``append_*`` methods, and uses the same tool-panel and tool-result
steps as the history. How a tool looks is its presenter's business (:mod:`pi_app.tools.presenters`).

Keyboard selection is a cursor on the conversation: ``start_selection`` puts it on the newest copyable
entry and focuses the conversation, whose own bindings move it (up/down) and ask the app to copy (c/enter).
Scrolling, pruning, the ``↓ N new`` badge and the bounded first paint of a resume are :class:`ChatLog`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from pi_app.agent.events import (
    AgentEndEvent,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_app.ai.events import AssistantMessageEvent, ToolCallDeltaEvent, ToolCallEndEvent, ToolCallStartEvent
from pi_app.ai.text import text_of
from pi_app.ai.types import ToolCall
from pi_app.modes import startup_gc
from pi_app.session.session_events import AutoRetryEndEvent, CompactionEndEvent, SessionEvent
from pi_app.tools.presenters import ToolResultData
from widgets.bash_view import BashExecutionView
from widgets.chat_log import ChatLog
from widgets.custom_render import CustomRenderers, render_message
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import BranchSummaryView, CompactionSummaryView, ErrorNotice, InfoNotice, Notice
from widgets.tool_panel import ToolPanel
from widgets.transcript_search import TranscriptSearch

__all__ = ["SELECTED", "Conversation", "code_blocks", "copy_source", "role_of", "tool_results_by_id"]

SELECTED = "-pi-selected"
GC_HOLD_S = 10.0  # full collections wait at most this long into a run, then between two of its answers


def _field(msg: Any, name: str, default: Any = None) -> Any:
    """A field of a message object or of its JSON form (stored history may hold either)."""
    if isinstance(msg, dict):
        return msg.get(name, default)
    return getattr(msg, name, default)


def role_of(msg: Any) -> str | None:
    return _field(msg, "role")


def tool_results_by_id(messages: Iterable[Any]) -> dict[str, Any]:
    """Tool result messages keyed by the id of the call they answer."""
    return {
        _field(m, "toolCallId"): m for m in messages if role_of(m) == "toolResult" and _field(m, "toolCallId")
    }


def copy_source(widget: Widget) -> str | None:
    """What copying a selected entry copies: a message's Markdown, a tool's output, a bash command with its
    output (None: the entry is not selectable)."""
    if isinstance(widget, UserMessageView):
        return widget.text
    if isinstance(widget, AssistantMessageView):
        return widget.text.strip() or None
    if isinstance(widget, ToolPanel):
        return widget.result.output if widget.result is not None else None
    if isinstance(widget, BashExecutionView):
        return f"$ {widget.command}\n{widget.output}".rstrip("\n")
    return None


def code_blocks(markdown: str) -> list[str]:
    """The code blocks (fenced or indented) of a Markdown text, as their source without the fences."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content.rstrip("\n") for t in tokens if t.type in ("fence", "code_block")]


def _hide_if_silent(view: AssistantMessageView) -> AssistantMessageView:
    if not view.frozen_markup():
        view.display = False  # a tool-call-only turn: its panels speak for it
    return view


class Conversation(ChatLog):
    """The chat log that knows the session's messages and events."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "selection_move(-1)", "Previous message", show=False),
        Binding("down", "selection_move(1)", "Next message", show=False),
        Binding("c,enter", "selection_copy", "Copy selected message", show=False),
        Binding(
            "b",
            "selection_copy_code",
            "Copy a code block of the selected message (again: the next)",
            show=False,
        ),
    ]

    cursor: var[int | None] = var(None)  # index among the selectable entries; None: no selection

    class CopyRequested(Message):
        """c/enter on the selected entry: the app copies :meth:`Conversation.selected_text`. b: the app copies
        ``code_block`` (its text, number and the message's count of blocks; None: the message has none)."""

        def __init__(
            self,
            conversation: Conversation,
            code: bool = False,
            code_block: tuple[str, int, int] | None = None,
        ) -> None:
            super().__init__()
            self.conversation = conversation
            self.code = code
            self.code_block = code_block

        @property
        def control(self) -> Conversation:
            return self.conversation

    def __init__(
        self, *, home: str | None = None, clock: Callable[[], float] = time.monotonic, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.home = home
        self.clock = clock  # times the tool panels ("Took 1.2s"); tests inject theirs
        self.custom = CustomRenderers()  # what extensions render themselves (the app fills it)
        self.current: AssistantMessageView | None = None  # the assistant message being streamed
        self.panels: dict[str, ToolPanel] = {}  # this run's tool panels by tool-call id
        self.search_bar = TranscriptSearch(self)
        self._code_index = -1  # the code block of the selected entry that "b" copied last
        self._holding_gc = False  # full collections held while a run streams answers (see _streaming)
        self._held_since = 0.0

    def on_mount(self) -> None:  # (Textual calls ChatLog's on_mount too)
        if isinstance(self.parent, Widget):
            self.parent.mount(self.search_bar, after=self)  # a row of its own under the transcript

    def on_unmount(self) -> None:
        self._streaming(False)
        if self.search_bar.is_attached:
            self.search_bar.remove()

    def _answer_drawn(self, run_over: bool) -> None:
        """The finished answer is on screen: a full collection held back meanwhile may run now, unless the
        run goes on (its next answer, or its tools, will follow: held for up to ``GC_HOLD_S``)."""
        if self.current is None and (run_over or time.monotonic() - self._held_since >= GC_HOLD_S):
            self._streaming(False)

    def _streaming(self, streaming: bool) -> None:
        """A run starts or stops streaming answers: the garbage collector's full collections wait
        meanwhile (each one stalls the loop for tens of milliseconds while keys wait; they run once it
        ends)."""
        if streaming != self._holding_gc:
            self._holding_gc = streaming
            if streaming:
                self._held_since = time.monotonic()
                startup_gc.hold_full_collections()
            else:
                startup_gc.release_full_collections()

    # ================================================================== transcript search
    def open_search(self) -> None:
        self.search_bar.open()

    @property
    def searching(self) -> bool:
        """The search field has the keys (Esc, Enter, Ctrl+G are its own)."""
        return self.search_bar.is_open and self.search_bar.has_focus_within

    # ================================================================== message -> widgets (the one builder)
    def widgets_for(self, message: Any, results: Mapping[str, Any] | None = None) -> list[Widget]:
        """Widgets for one finished message; an assistant's tool calls get their results from ``results``."""
        role = role_of(message)
        if role == "user":
            text = text_of(_field(message, "content", ""))
            if not text.strip():
                return []
            prompt = UserMessageView(text)
            prompt.markdown_transform = self.custom.markdown
            return [prompt]
        if role == "assistant":
            view = AssistantMessageView.from_message(message, hide_thinking=self.hide_thinking)
            view.markdown_transform = self.custom.markdown
            out: list[Widget] = [_hide_if_silent(view)]
            for block in message.content:
                if block.type == "toolCall":
                    panel = self._tool_panel(block.id, block.name, block.arguments)
                    result = (results or {}).get(block.id)
                    if result is not None:
                        self._tool_result(panel, result)
                    out.append(panel)
            return out
        if role == "bashExecution":
            return [self._finished_bash(message)]
        if role == "compactionSummary":
            return [
                CompactionSummaryView(
                    _field(message, "summary", ""), int(_field(message, "tokensBefore", 0) or 0)
                )
            ]
        if role == "branchSummary":
            return [BranchSummaryView(_field(message, "summary", ""))]
        if role == "custom" and _field(message, "display", True):
            label = _field(message, "customType", "custom")
            renderer = self.custom.message(label)
            widget = render_message(*renderer, message) if renderer is not None else None
            if widget is not None:
                return [widget]
            return [Notice(f"[{label}] {text_of(_field(message, 'content', ''))}")]
        return []  # a tool result shows in its call's panel

    def _tool_panel(self, call_id: str, name: str, args: dict[str, Any] | None) -> ToolPanel:
        return ToolPanel(
            call_id, name, args or {}, home=self.home, clock=self.clock, custom=self.custom.tool(name)
        )

    @staticmethod
    def _tool_result(panel: ToolPanel, result: Any, is_error: bool | None = None) -> None:
        panel.set_result(ToolResultData.of(result, is_error))

    @staticmethod
    def _finished_bash(message: Any) -> BashExecutionView:
        view = BashExecutionView(
            _field(message, "command", ""),
            clock=lambda: 0.0,
            tick=False,
            exclude_from_context=bool(_field(message, "excludeFromContext")),
        )
        view.append_output(_field(message, "output", "") or "")
        view.finish(
            _field(message, "exitCode"), bool(_field(message, "cancelled")), _field(message, "fullOutputPath")
        )
        return view

    def _history_widgets(
        self, messages: Sequence[Any], start: int, results: Mapping[str, Any]
    ) -> list[Widget]:
        """:meth:`widgets_for` over a slice of the session; each widget remembers its message's index
        (``pi_index``) so earlier ones can be loaded above it."""
        out: list[Widget] = []
        entries = self.custom.entries_by_message()  # custom entries an extension draws, by message index
        if start == 0:
            out += self._entry_widgets(entries.get(-1, ()))
        for offset, message in enumerate(messages):
            for widget in self.widgets_for(message, results):
                widget.pi_index = start + offset  # type: ignore[attr-defined]
                out.append(widget)
            out += self._entry_widgets(entries.get(start + offset, ()))
        return out

    def _entry_widgets(self, entries: Iterable[Any]) -> list[Widget]:
        out: list[Widget] = []
        for entry in entries:
            renderer = self.custom.entry(_field(entry, "customType", ""))
            widget = render_message(*renderer, entry) if renderer is not None else None
            if widget is not None:
                out.append(widget)
        return out

    async def add_entry(self, entry: Any) -> None:
        """A custom entry appended live (shown only when an extension renders its type)."""
        for widget in self._entry_widgets([entry]):
            await self.add(widget)

    # ================================================================== history
    async def clear(self) -> None:
        await super().clear()
        self._streaming(False)
        self.current = None
        self.panels.clear()

    async def show_history(
        self,
        messages: Sequence[Any],
        start: int,
        *,
        before: Sequence[Widget] = (),
        after: Sequence[Widget] = (),
    ) -> None:
        """Append ``messages[start:]`` (their tool results looked up in all of ``messages``) between
        ``before`` and ``after``, as one batch: a long tail paints its last entries first."""
        # a tool result comes after its call: the tail holds every result it shows (the rest is not read)
        tail = messages[start:]
        widgets = self._history_widgets(tail, start, tool_results_by_id(tail))
        await self.add_many([*before, *widgets, *after])
        self.has_earlier = start > 0

    def first_index(self) -> int | None:
        """Session index of the earliest message on screen (None when none is)."""
        first = next((w for w in self.items if hasattr(w, "pi_index")), None)
        return getattr(first, "pi_index", None)

    async def show_earlier(self, messages: Sequence[Any], start: int, end: int) -> None:
        """Mount ``messages[start:end]`` above what is on screen."""
        widgets = self._history_widgets(messages[start:end], start, tool_results_by_id(messages[start:]))
        await self.prepend_history(widgets, has_more=start > 0)

    # ================================================================== live events
    async def add_message(self, message: Any) -> list[Widget]:
        """Append one finished message (a live user prompt, or any message shown as it arrives)."""
        widgets = self.widgets_for(message)
        for widget in widgets:
            await self.add(widget)
        return widgets

    async def start_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        clock: Callable[[], float] = time.monotonic,
        tick: bool = True,
    ) -> BashExecutionView:
        """The user's ``!cmd`` while it runs (the caller feeds its output and finishes it); once stored,
        the ``bashExecution`` message shows through :meth:`widgets_for` in the same view."""
        view = BashExecutionView(command, clock=clock, tick=tick, exclude_from_context=exclude_from_context)
        self.scroll_to_latest()
        await self.add(view)
        return view

    async def apply(self, event: SessionEvent) -> None:
        """A session event that changes what the conversation shows (others are ignored here). Text and
        thinking deltas come through :meth:`append_text` / :meth:`append_thinking`, already merged."""
        match event:
            case MessageStartEvent() if role_of(event.message) in ("user", "custom"):
                if role_of(event.message) == "user":
                    self.scroll_to_latest()  # a new prompt follows its answer, wherever the view was
                await self.add_message(event.message)
            case MessageStartEvent() if role_of(event.message) == "assistant":
                self._streaming(True)
                self.current = AssistantMessageView(hide_thinking=self.hide_thinking)
                self.current.markdown_transform = self.custom.markdown
                await self.add(self.current)
            case MessageEndEvent() if role_of(event.message) == "assistant" and self.current is not None:
                view, self.current = self.current, None
                await view.finalize(event.message)
                _hide_if_silent(view)
                self.call_after_refresh(self._answer_drawn, False)
            case ToolExecutionStartEvent():
                args = event.args if isinstance(event.args, dict) else None
                panel = self.panels.get(event.tool_call_id) or await self._add_panel(
                    event.tool_call_id, event.tool_name, args
                )
                if args is not None:
                    panel.update_args(args)
                panel.set_running()
            case ToolExecutionUpdateEvent():
                running = self.panels.get(event.tool_call_id)
                if running is not None:
                    running.update_partial(ToolResultData.of(event.partial_result, is_error=False))
            case ToolExecutionEndEvent():
                panel = self.panels.get(event.tool_call_id) or await self._add_panel(
                    event.tool_call_id, event.tool_name, None
                )
                self._tool_result(panel, event.result, bool(event.is_error))
            case AgentEndEvent():
                if self.current is not None and not self.current.finalized:
                    await self.current.finalize()
                self.current = None
                self.panels.clear()
                if self._holding_gc:
                    self.call_after_refresh(self._answer_drawn, True)
            case CompactionEndEvent():
                await self._compaction_end(event)
            case AutoRetryEndEvent() if not event.success:
                msg = event.final_error or "Unknown error"
                await self.add(ErrorNotice(f"Retry failed after {event.attempt} attempts: {msg}"))
            case _:
                pass

    async def append_text(self, text: str) -> None:
        if self.current is not None:
            await self._after_pending_frame()
            await self.current.append_text(text)

    async def append_thinking(self, text: str) -> None:
        if self.current is not None:
            await self._after_pending_frame()
            await self.current.append_thinking(text)

    async def _after_pending_frame(self) -> None:
        """Wait until the answer's previous update, and whatever else is waiting to be painted (a typed
        key's echo), is on screen, so a streamed update never joins them: the answer grows by at most one
        update per frame (the event pump, the caller, merges what arrives meanwhile) and a key's frame
        is not made to carry one. Immediate when nothing is pending."""
        view = self.current
        if self.is_attached and view is not None and view.is_attached:
            await view.redrawn()
            await self.wait_for_refresh()  # (from the event pump's task: never this widget's own)

    async def update_tool_call(self, ae: AssistantMessageEvent) -> None:
        """A tool call streaming in the assistant message: its panel shows the arguments as they arrive."""
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
            await self._add_panel(call.id, call.name, call.arguments)
        else:
            panel.update_args(call.arguments or {})

    async def _add_panel(self, call_id: str, name: str, args: dict[str, Any] | None) -> ToolPanel:
        panel = self._tool_panel(call_id, name, args)
        self.panels[call_id] = panel
        await self.add(panel)
        return panel

    async def _compaction_end(self, event: CompactionEndEvent) -> None:
        if event.aborted:
            text = "Compaction cancelled" if event.reason == "manual" else "Auto-compaction cancelled"
            await self.add(InfoNotice(text))
        elif event.result is not None:
            await self.add(CompactionSummaryView(event.result.summary, int(event.result.tokens_before or 0)))
        elif event.error_message:
            text = event.error_message
            if event.reason == "manual" and not text.startswith("Compaction"):
                text = f"Compaction failed: {text}"
            await self.add(ErrorNotice(text))

    # ============================================================ prompt jumps (pi's previous/nextPrompt)
    def prompt_tops(self) -> list[int]:
        """Where each shown user message starts, in the log's scroll coordinates."""
        return [w.virtual_region.y for w in self.items if isinstance(w, UserMessageView) and w.display]

    def jump_to_prompt(self, direction: int) -> None:
        """Put the previous (-1) or next (+1) user message at the top of the view. Past the last one the
        view goes to the bottom and follows; before the first, to the top (which loads earlier entries)."""
        here = round(self.scroll_y)
        tops = self.prompt_tops()
        if direction < 0:
            earlier = [y for y in tops if y < here]
            if earlier:
                self.scroll_to(y=earlier[-1], animate=False, immediate=True)
            else:
                self.scroll_to_top()
            return
        later = [y for y in tops if y > here]
        if later and later[0] < self.max_scroll_y:
            self.scroll_to(y=later[0], animate=False, immediate=True)
        else:
            self.scroll_to_latest()

    # ================================================================== keyboard selection (a cursor)
    @property
    def selecting(self) -> bool:
        return self.cursor is not None

    def selectable(self) -> list[Widget]:
        return [w for w in self.items if w.display and copy_source(w) is not None]

    def start_selection(self) -> None:
        """ctrl+up: select the newest selectable entry and take the keys (the editor would swallow "c")."""
        items = self.selectable()
        if not items:
            return
        self.cursor = len(items) - 1
        self.focus()

    def stop_selection(self) -> None:
        self.cursor = None

    def selected(self) -> Widget | None:
        items = self.selectable()
        if self.cursor is None or not items:
            return None
        return items[min(self.cursor, len(items) - 1)]

    def selected_text(self) -> str | None:
        widget = self.selected()
        return copy_source(widget) if widget is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("selection_copy", "selection_copy_code"):
            return self.selecting
        return True

    def action_selection_move(self, delta: int) -> None:
        if self.cursor is None:  # these bindings replace the scroll view's up/down: scroll as it would
            if delta < 0:
                self.action_scroll_up()
            else:
                self.action_scroll_down()
            return
        items = self.selectable()
        if items:
            self.cursor = max(0, min(len(items) - 1, self.cursor + delta))

    def action_selection_copy(self) -> None:
        self.post_message(self.CopyRequested(self))

    def action_selection_copy_code(self) -> None:
        """b: the selected entry's first code block; pressed again, the next one (wrapping)."""
        text = self.selected_text()
        blocks = code_blocks(text) if text else []
        if not blocks:
            self.post_message(self.CopyRequested(self, code=True))
            return
        self._code_index = (self._code_index + 1) % len(blocks)
        block = (blocks[self._code_index], self._code_index + 1, len(blocks))
        self.post_message(self.CopyRequested(self, code=True, code_block=block))

    def watch_cursor(self, cursor: int | None) -> None:
        self._code_index = -1
        items = self.selectable()
        for widget in self.items:
            widget.set_class(False, SELECTED)
        if cursor is not None and items:
            widget = items[min(cursor, len(items) - 1)]
            widget.set_class(True, SELECTED)
            self.scroll_to_widget(widget, animate=False)
