"""User and assistant message views.

A streamed block (text or thinking) is two ``Static`` s: one draws its finished top-level blocks, rendered
once with Rich (in a worker thread) as cached pieces joined (:class:`~widgets.rendering.JoinedMarkdown`); the
other the rest after them (the block still being written), rendered again as it grows. An update replaces
the rest's content (the pieces' widget keeps its size, so its drawn lines stay cached): no widgets mounted or
removed per delta, no batch of them holding frames back. What streams is drawn as the finished message
draws it. :meth:`AssistantMessageView.finalize` freezes the message into a single ``Static`` holding one
pre-rendered Rich renderable, made of those pieces when they draw what rendering the whole message would (so
nothing is rendered twice), and long sessions stay cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.console import ConsoleOptions
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from pi_app.ai.text import text_of
from pi_app.ai.types import AssistantMessage, UserMessage
from widgets.markdown_stream import block_split_point, has_references, starts_with_leaf
from widgets.rendering import (
    CachedRender,
    JoinedMarkdown,
    SelectableLines,
    SelectableStatic,
    Stacked,
    ThemedMarkdown,
    ThemedText,
    on_theme_change,
    prerender_detached,
    prerender_off_loop,
)

BlockKind = Literal["text", "thinking"]
SEGMENT_CHARS = 2_000  # a live block longer than this freezes its finished part, however short
FREEZE_CHARS = 300  # finished blocks at least this long leave the live block at once
PRERENDER_CHARS = 2_000  # a frozen message at least this long is rendered off the event loop
TAIL_BACKOFF = 4  # the live rest is redrawn at most once per this many times its last render took
REDRAW_WAIT_S = 0.5  # the longest the event pump waits for a redraw to be painted (see redrawn)


@dataclass
class _Streamed:
    """The frozen segments a block was streamed as: (source, renderable, blank line before it) each (see
    JoinedMarkdown)."""

    kind: BlockKind
    pieces: list[tuple[str, ThemedMarkdown, bool]] = field(default_factory=list)
    tail: ThemedMarkdown | None = None  # the rest after the pieces, as last drawn


def markdown_split_point(text: str) -> int:
    """Offset of the last line that starts a new top-level Markdown block (unindented, after a blank
    line, outside any code fence), so ``text[:offset]`` is made of finished blocks; 0 when none."""
    in_fence = False
    fence = ""
    pos = 0
    best = 0
    prev_blank = False
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if not in_fence and prev_blank and indent == 0 and stripped.strip() and pos > 0:
            best = pos
        if indent <= 3 and stripped[:3] in ("```", "~~~"):
            if not in_fence:
                in_fence, fence = True, stripped[:3]
            elif stripped[:3] == fence:
                in_fence = False
        prev_blank = not in_fence and not line.strip()
        pos += len(line)
    return best


def _variables_of(widget: Static | Vertical) -> Callable[[], Mapping[str, str]]:
    """The app's theme variables while ``widget`` is attached (an empty mapping before)."""

    def variables() -> Mapping[str, str]:
        return widget.app.theme_variables if widget.is_attached else {}

    return variables


class UserMessageView(SelectableLines, Static):
    """A user prompt: markdown on ``userMessageBg``; selectable with the mouse (selecting all of it
    copies the prompt as typed)."""

    DEFAULT_CSS = """
    UserMessageView {
        background: $pi-user-message-bg;
        color: $pi-user-message-text;
        padding: 1 1;
        margin: 1 0 0 0;
    }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        self.text = text
        super().__init__(**kwargs)
        self.markdown_transform: Callable[[str, str, bool], str] | None = None  # as AssistantMessageView's

    @classmethod
    def from_message(cls, message: UserMessage) -> UserMessageView:
        return cls(text_of(message.content))

    def on_mount(self) -> None:
        # One renderable for the widget's life: it caches its lines and re-renders itself only when
        # the theme's colours change, so a theme signal just asks for a repaint.
        text = self.text.strip()
        shown = self.markdown_transform(text, "user", False) if self.markdown_transform else text
        self._markdown = ThemedMarkdown(shown, _variables_of(self))
        self.update(self._markdown)
        on_theme_change(self, self._render_text)

    def _render_text(self) -> None:
        self.update(self._markdown, layout=False)

    def selection_source(self) -> str | None:
        return self.text.strip()


class AssistantMessageView(Vertical):
    """One assistant reply: streams text/thinking deltas live, then freezes to one Static."""

    DEFAULT_CSS = """
    AssistantMessageView {
        height: auto;
        padding: 0 1;
        margin: 1 0 0 0;
    }
    AssistantMessageView > Static.-thinking-label {
        color: $pi-thinking-text;
        text-style: italic;
    }
    /* The blank line the finished message draws between its blocks. */
    AssistantMessageView > Static.-after-block { margin: 1 0 0 0; }
    """

    def __init__(self, hide_thinking: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hide_thinking = hide_thinking
        self.blocks: list[tuple[BlockKind, str]] = []
        self.finalized = False
        self.stop_reason: str | None = None
        self.error_message: str | None = None
        self.has_tool_calls = False
        self._live: Static | None = None  # the rest of the block being streamed (or a hidden one's label)
        self._pieces: Static | None = None  # the finished pieces of the block being streamed
        self._pieces_drawn = 0  # how many of them it draws
        self._streaming = False  # the live block draws its text (not a hidden thinking block)
        self._frozen: Static | None = None
        self._live_text = ""  # the block's text after its last frozen piece
        self._streamed: dict[int, _Streamed] = {}  # block index -> the frozen pieces it was streamed as
        self._next_look = 0  # the live text's length at which to look for finished blocks again
        self._drawn_at = 0.0  # when the live block's content was last replaced
        self._redraw: Timer | None = None  # a deferred redraw of the live block (see _show_live)
        self._after_block = False  # the block being streamed follows another (a blank line between)
        self._painted: asyncio.Event | None = None  # set once the last redraw is on screen
        self._redraw_asked: bool | None = None  # a redraw asked for before it was (now: True)
        # (markdown, "assistant" | "assistant-thinking", streaming) -> what to draw: extensions' display-only
        # hook, applied to the finished form (the stored message and what copying takes are unchanged)
        self.markdown_transform: Callable[[str, str, bool], str] | None = None

    # ------------------------------------------------------------------ streaming
    @property
    def text(self) -> str:
        """All visible answer text so far (thinking excluded)."""
        return "".join(t for k, t in self.blocks if k == "text")

    async def append_text(self, delta: str) -> None:
        await self._append("text", delta)

    async def append_thinking(self, delta: str) -> None:
        await self._append("thinking", delta)

    async def _append(self, kind: BlockKind, delta: str) -> None:
        if self.finalized or not delta:
            return
        if not self.blocks or self.blocks[-1][0] != kind:
            await self._start_block(kind)
            self.blocks.append((kind, ""))
        self.blocks[-1] = (kind, self.blocks[-1][1] + delta)
        if not self._streaming:
            return
        text = self._live_text + delta
        # (the cheap tests first: the line scan runs only for a delta that ends a line)
        if "\n" in delta and len(text) >= self._next_look and self._likely_finished(text):
            # The line scan is cheap and says whether finished blocks are likely; where exactly, and their
            # rendering, are worked out in a thread while the live block keeps showing the text: the
            # interpreter hands the loop its turn every few milliseconds, where doing it on the loop (whole,
            # or in pieces between awaits) held keys and frames at every step of their way.
            self._cancel_redraw()  # drawn below either way, once the thread is done
            streamed = self._streamed.get(len(self.blocks) - 1)
            first = streamed is None or not streamed.pieces
            width = self._segment_width()
            options = self.app.console_options.update_width(width).update(highlight=False) if width else None
            frozen = await asyncio.to_thread(self._finished_part, kind, text, first, options)
            if self.finalized or not self.is_attached:
                return  # (deltas come one at a time, from the event pump: nothing else moved)
            if frozen is not None:
                self._freeze(kind, text, *frozen)
                return
            self._next_look = len(text) + SEGMENT_CHARS // 4  # one long open block (a big code fence)
        self._live_text = text
        self._show_live()

    @property
    def frozen_pieces(self) -> int:
        """How many finished pieces of the streamed blocks are rendered and cached (drawn as they are by the
        live block and by the finished message)."""
        return sum(len(streamed.pieces) for streamed in self._streamed.values())

    @classmethod
    def _likely_finished(cls, text: str) -> bool:
        """Whether the live text likely holds finished blocks worth freezing (a scan of its lines)."""
        return len(text) >= SEGMENT_CHARS or cls._should_freeze(text, markdown_split_point(text))

    @staticmethod
    def _should_freeze(text: str, cut: int) -> bool:
        return cut >= FREEZE_CHARS or (cut > 0 and len(text) >= SEGMENT_CHARS)

    def _finished_part(
        self, kind: BlockKind, text: str, first: bool, options: ConsoleOptions | None
    ) -> tuple[int, bool, ThemedMarkdown] | None:
        """Where the finished blocks of the live ``text`` end, whether the first is a leaf, and their
        Markdown, rendered at the width it will be drawn (``options``; None: not known yet). None: nothing
        worth freezing. Runs in a worker thread."""
        lead = len(text) - len(text.lstrip()) if first else 0
        cut, leaf = block_split_point(text[lead:])
        if not cut or not self._should_freeze(text, lead + cut):
            return None
        head = text[: lead + cut]
        # The block is drawn stripped when frozen whole; a later piece keeps its first line's indent.
        thinking = kind == "thinking"
        renderable = ThemedMarkdown(
            head.strip() if first else head.rstrip(),
            _variables_of(self),
            style="pi-thinking-text" if thinking else "",
            italic=thinking,
        )
        if options is not None:  # rendered before it is mounted: layout finds the lines ready
            prerender_detached(renderable, options)
        return lead + cut, leaf, renderable

    def _freeze(self, kind: BlockKind, text: str, cut: int, leaf: bool, renderable: ThemedMarkdown) -> None:
        """Move the finished top-level blocks of the live text (``text[:cut]``, rendered as ``renderable``;
        ``leaf``: whether the first is a leaf) into the block's cached pieces; only the rest is rendered
        again as it grows."""
        streamed = self._streamed.setdefault(len(self.blocks) - 1, _Streamed(kind))
        gap = leaf and bool(streamed.pieces)
        streamed.pieces.append((text[:cut], renderable, gap))
        self._live_text = text[cut:]
        self._next_look = 0
        self._show_live(now=True)

    def _show_live(self, now: bool = False) -> None:
        """Draw the streamed block as the finished message will: its pieces (redrawn only when one was
        added) and its rest. The rest is rendered again on every redraw, so a long one (a big open code
        fence) is redrawn less often: at most once per ``TAIL_BACKOFF`` times its last render took, the
        latest text then."""
        live, holder = self._live, self._pieces
        if live is None or holder is None or not self._streaming:
            return
        if self._painted is not None and not self._painted.is_set():
            # At most one redraw per frame: this one follows once the last is on screen.
            self._redraw_asked = now or bool(self._redraw_asked)
            return
        index = len(self.blocks) - 1
        streamed = self._streamed.setdefault(index, _Streamed(self.blocks[index][0]))
        if not now and streamed.tail is not None:
            wait = self._drawn_at + TAIL_BACKOFF * streamed.tail.render_seconds - time.monotonic()
            if wait > 0:
                if self._redraw is None:
                    self._redraw = self.set_timer(wait, self._redraw_live)
                return
        self._cancel_redraw()
        pieces = streamed.pieces
        variables = _variables_of(self)
        if len(pieces) != self._pieces_drawn:
            self._pieces_drawn = len(pieces)
            holder.update(JoinedMarkdown([r for _, r, _ in pieces], [g for _, _, g in pieces], variables))
            holder.display = True
        rest = self._live_text.rstrip() if pieces else self._live_text.strip()
        streamed.tail = None
        if rest:
            thinking = streamed.kind == "thinking"
            streamed.tail = ThemedMarkdown(
                rest, variables, style="pi-thinking-text" if thinking else "", italic=thinking
            )
            live.update(streamed.tail)
        live.display = bool(rest)
        # The blank line before the block (after another) goes on whichever of the two is drawn first;
        # between them, the one the finished message draws there (see JoinedMarkdown).
        before = 1 if self._after_block else 0
        holder.styles.margin = (before, 0, 0, 0)
        gap = 1 if pieces and rest and starts_with_leaf(rest) else 0
        live.styles.margin = (gap if pieces else before, 0, 0, 0)
        self._drawn_at = time.monotonic()
        self._painted = asyncio.Event()
        if not live.call_after_refresh(self._on_painted):
            self._painted.set()

    def _on_painted(self) -> None:
        if self._painted is not None:
            self._painted.set()
        asked, self._redraw_asked = self._redraw_asked, None
        if asked is not None:
            self._show_live(now=asked)

    async def redrawn(self) -> None:
        """Wait until the last redraw of the streamed block is on screen (at most ``REDRAW_WAIT_S``: a
        block removed meanwhile is never painted)."""
        painted = self._painted
        if painted is not None and not painted.is_set() and self.is_attached:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(painted.wait(), REDRAW_WAIT_S)

    async def caught_up(self) -> None:
        """Wait until the streamed block draws all the text it was given: redraws put off (one per frame,
        and a long rest's back-off) are done now and painted."""
        for _ in range(8):  # each turn paints the redraw waiting for the one before
            if self._redraw is not None:
                self._redraw_live()
            painted = self._painted
            if not self.is_attached or painted is None or (painted.is_set() and self._redraw_asked is None):
                return
            await self.redrawn()

    def _redraw_live(self) -> None:
        self._redraw = None
        self._show_live(now=True)

    def _cancel_redraw(self) -> None:
        self._redraw_asked = None
        if self._redraw is not None:
            self._redraw.stop()
            self._redraw = None

    async def _start_block(self, kind: BlockKind) -> None:
        self._end_live()
        self._live_text = ""
        self._next_look = 0
        after = "-after-block" if self.children else ""
        if kind == "thinking" and self.hide_thinking:
            # Never stream into a block the user cannot see.
            self._live, self._pieces = Static("Thinking...", classes=f"-thinking-label {after}"), None
            await self.mount(self._live)
            return
        index = len(self.blocks)  # the block about to start
        streamed = self._streamed.setdefault(index, _Streamed(kind))
        holder = SelectableStatic(
            "", classes="-pieces", source=lambda: "".join(h for h, _, _ in streamed.pieces).strip()
        )
        holder.display = False
        live = SelectableStatic(
            "", classes="-live", source=lambda: streamed.tail.markup if streamed.tail else ""
        )
        live.display = False
        self._pieces, self._live, self._pieces_drawn = holder, live, 0
        self._after_block = bool(after)
        self._streaming = True
        await self.mount_all([holder, live])

    def _end_live(self) -> None:
        """The live block is done: it draws no more updates (its widget stays until finalize)."""
        self._cancel_redraw()
        self._streaming = False

    # ------------------------------------------------------------------ finishing
    async def finalize(self, message: AssistantMessage | None = None) -> None:
        """End streaming and replace the live widgets with one frozen Static."""
        self._end_live()
        if message is not None:
            self._take_message(message)
        self.finalized = True
        renderable = self._frozen_renderable()
        width = self._long_message_width()
        if width > 0:
            options = self.app.console_options.update_width(width).update(highlight=False)
            if renderable.pending(width):  # (what was streamed is rendered already)
                # The live blocks stay on screen while the frozen form renders in a thread.
                await prerender_off_loop(renderable, options)
                if not self.is_attached:
                    return
        await self.remove_children()
        self._live = None
        self._frozen = SelectableStatic(renderable, classes="-frozen", source=self.frozen_markup)
        await self.mount(self._frozen)

    def _long_message_width(self) -> int:
        """For a message long enough to overflow the log: the width its frozen Static will be laid out
        at, with the log's scrollbar column reserved (0: short message or unknown width)."""
        if sum(len(t) for _, t in self.blocks) < PRERENDER_CHARS:
            return 0
        return self._entry_content_width()

    def _segment_width(self) -> int:
        """The width this message's segments are drawn at. An answer that overflows the log (2,000+
        characters, or more lines than the log shows below its top) reserves the log's scrollbar column now
        (see _entry_content_width), so what is rendered is not rendered again when the scrollbar appears; a
        short one is drawn as wide as the log lets it now, as before (0: unknown)."""
        chat = self.parent
        if not isinstance(chat, Widget) or not chat.size.width:
            return self._entry_content_width()
        chars = sum(len(t) for _, t in self.blocks)
        lines = sum(t.count("\n") for _, t in self.blocks) + chars // chat.size.width
        if chars >= PRERENDER_CHARS or lines >= chat.size.height - self.virtual_region.y:
            return self._entry_content_width()
        return max(0, chat.scrollable_content_region.width - self.styles.gutter.width)

    def _entry_content_width(self) -> int:
        """The width this message's content is laid out at once the log's scrollbar column is reserved
        (for a long answer, which overflows the log anyway: reserving it now means what is rendered at
        this width is not rendered again when the scrollbar appears). 0: unknown."""
        chat = self.parent
        reserve = getattr(chat, "reserve_gutter", None)
        entry_width = getattr(chat, "entry_width", None)
        if not callable(reserve) or not callable(entry_width):
            return self.content_size.width
        reserve()
        return max(0, entry_width() - self.styles.gutter.width)

    def _take_message(self, message: AssistantMessage) -> None:
        blocks: list[tuple[BlockKind, str]] = []
        for block in message.content:
            if block.type == "text":
                blocks.append(("text", block.text))
            elif block.type == "thinking":
                blocks.append(("thinking", block.thinking))
        self.blocks = blocks
        self.stop_reason = message.stopReason
        self.error_message = message.errorMessage
        self.has_tool_calls = any(b.type == "toolCall" for b in message.content)

    @classmethod
    def from_message(cls, message: AssistantMessage, hide_thinking: bool = False) -> AssistantMessageView:
        """A finished message (history): mounts straight into the frozen form."""
        view = cls(hide_thinking=hide_thinking)
        view._take_message(message)
        view.finalized = True
        return view

    def on_mount(self) -> None:
        on_theme_change(self, self._rerender_frozen)

    def _rerender_frozen(self) -> None:
        """Repaint the frozen renderable after a theme switch: it looks colours up when drawn and
        re-renders only if they changed (the streamed blocks' Statics are repainted by Textual's own
        refresh on a theme change: their renderables re-render then, see the test)."""
        if self._frozen is not None:
            self._frozen.update(self._frozen.content, layout=False)

    def compose(self) -> ComposeResult:
        if self.finalized and self._frozen is None:
            self._frozen = SelectableStatic(
                self._frozen_renderable(), classes="-frozen", source=self.frozen_markup
            )
            yield self._frozen

    def notice_text(self) -> str | None:
        """pi's trailing line: ``Operation aborted`` / ``Error: <msg>`` (only without tool calls)."""
        if self.has_tool_calls:
            return None
        if self.stop_reason == "aborted":
            msg = self.error_message
            return msg if msg and msg != "Request was aborted" else "Operation aborted"
        if self.stop_reason == "error":
            return f"Error: {self.error_message or 'Unknown error'}"
        return None

    def frozen_markup(self) -> str:
        """The Markdown the frozen Static shows: what selecting all of it copies."""
        parts: list[str] = []
        for kind, text in self.blocks:
            if not text.strip():
                continue
            if kind == "thinking":
                parts.append("Thinking..." if self.hide_thinking else text.strip())
            else:
                parts.append(text.strip())
        notice = self.notice_text()
        if notice:
            parts.append(notice)
        return "\n\n".join(parts)

    def _frozen_renderable(self) -> Stacked:
        variables = _variables_of(self)
        items: list[Any] = []
        for index, (kind, text) in enumerate(self.blocks):
            if not text.strip():
                continue
            if kind == "thinking" and self.hide_thinking:
                items.append(ThemedText("Thinking...", variables, "pi-thinking-text", "italic"))
            else:
                items.append(self._block_markdown(index, kind, text))
        notice = self.notice_text()
        if notice:
            items.append(ThemedText(notice, variables, "pi-error"))
        return Stacked(items, variables)

    def _block_markdown(self, index: int, kind: BlockKind, text: str) -> CachedRender:
        """A block's frozen Markdown. A streamed block is drawn from the segments it was frozen in (already
        rendered) and its rest, when that draws what rendering the whole block does."""
        variables = _variables_of(self)
        thinking = kind == "thinking"
        style, italic = ("pi-thinking-text", True) if thinking else ("", False)
        streamed = self._streamed.get(index)
        if streamed is not None and streamed.kind == kind and self.markdown_transform is None:
            source = "".join(head for head, _, _ in streamed.pieces)
            if text.startswith(source) and not has_references(text):
                parts: list[CachedRender] = [renderable for _, renderable, _ in streamed.pieces]
                gaps = [gap for _, _, gap in streamed.pieces]
                rest = text[len(source) :].rstrip() if streamed.pieces else text.strip()
                if rest:
                    tail = streamed.tail  # the rest as streamed: already rendered when nothing came after
                    if tail is None or tail.markup != rest:
                        tail = ThemedMarkdown(rest, variables, style=style, italic=italic)
                    parts.append(tail)
                    gaps.append(starts_with_leaf(rest))
                return JoinedMarkdown(parts, gaps, variables)
        shown = self._shown(text.strip(), "assistant-thinking" if thinking else "assistant")
        return ThemedMarkdown(shown, variables, style=style, italic=italic)

    def _shown(self, markdown: str, kind: str) -> str:
        return self.markdown_transform(markdown, kind, False) if self.markdown_transform else markdown

    def set_hide_thinking(self, hide: bool) -> None:
        """Global thinking toggle (ctrl+t): re-renders a frozen view; a live one applies to new blocks."""
        if hide == self.hide_thinking:
            return
        self.hide_thinking = hide
        if self._frozen is not None:
            self._frozen.update(self._frozen_renderable())
