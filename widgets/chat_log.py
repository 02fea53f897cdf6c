"""The conversation: follows new output only while the view is at the bottom.

Scrolling up freezes the view and shows a ``↓ N new`` badge on a row of its own just below the log (never
over transcript text); End, Ctrl+End or scrolling back down to the bottom re-attaches. Old widgets beyond a
cap are pruned; :meth:`ChatLog.prepend_history` mounts earlier entries on demand (the App answers
:class:`ChatLog.EarlierRequested`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Static

from .textual_caches import release_closed_widgets


@runtime_checkable
class Expandable(Protocol):
    def set_expanded(self, expanded: bool) -> None: ...


class NewOutputBadge(Static):
    """``↓ N new``: mounted right after its log as a sibling, so it takes a row of its own (the log gives
    that row up while the badge shows) instead of being drawn over a transcript line."""

    DEFAULT_CSS = """
    NewOutputBadge {
        width: auto;
        height: 1;
        padding: 0 1;
        margin: 0 0 0 2;
        background: $pi-accent;
        color: $background;
        text-style: bold;
        display: none;
    }
    NewOutputBadge.-visible { display: block; }
    """

    def __init__(self, log: ChatLog) -> None:
        super().__init__()
        self.chat_log = log

    def on_click(self) -> None:
        self.chat_log.scroll_to_latest()


class ChatLog(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    ChatLog {
        height: 1fr;
        padding: 0 1 0 0;
        background: $background;
    }
    """
    BLANK = True
    GUTTER_BATCH = 24  # a batch of this many entries (a resume) overflows the view at any usual size
    BINDINGS = [
        Binding("end", "scroll_to_latest", "Latest", show=False),
        Binding("home", "scroll_to_top", "Top", show=False),
    ]

    # Global toggles (ctrl+o, ctrl+t): every entry follows them, those mounted later too.
    tools_expanded: var[bool] = var(False)
    hide_thinking: var[bool] = var(False)

    class EarlierRequested(Message):
        """The user reached the top while older entries exist; answer with ``prepend_history``."""

        def __init__(self, chat_log: ChatLog) -> None:
            super().__init__()
            self.chat_log = chat_log

    def __init__(
        self, max_items: int = 200, wheel_lines: int = 3, first_paint: int = 40, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items
        self.first_paint = first_paint  # entries of a big first batch mounted before the first frame
        self._deferred: list[Widget] = []
        self.wheel_lines = wheel_lines
        self.new_count = 0
        self.has_earlier = False
        self._badge = NewOutputBadge(self)
        self._earlier_pending = False

    def on_mount(self) -> None:
        self.anchor()
        if isinstance(self.parent, Widget):
            self.parent.mount(self._badge, after=self)

    def on_unmount(self) -> None:
        if self._badge.is_attached:
            self._badge.remove()

    @property
    def badge(self) -> NewOutputBadge:
        return self._badge

    # ------------------------------------------------------------------ state
    @property
    def items(self) -> list[Widget]:
        return list(self.children)

    @property
    def following(self) -> bool:
        """True while new output keeps the view pinned to the bottom."""
        return self.is_anchored and not self._anchor_released

    @property
    def badge_text(self) -> str:
        return f"↓ {self.new_count} new" if self.new_count else ""

    # ------------------------------------------------------------------ adding
    async def add(self, widget: Widget) -> Widget:
        """Append an entry; counts it as unseen when the user is scrolled away."""
        self._apply_settings(widget)
        await self.mount(widget)
        if not self.following:
            self.new_count += 1
            self._update_badge()
        await self._prune()
        return widget

    async def add_many(self, widgets: Sequence[Widget]) -> None:
        """Append entries. Of a big batch (a resume) only the last ``first_paint`` are mounted before
        the next frame; the earlier ones follow right after it, above them (see ``settle``)."""
        for widget in widgets:
            self._apply_settings(widget)
        widgets = list(widgets)
        if len(widgets) >= self.GUTTER_BATCH:
            self.reserve_gutter()
        first = self._first_paint_count()
        if first and len(widgets) > first and not self.items and not self._deferred:
            self._deferred = widgets[:-first]
            widgets = widgets[-first:]
            self.call_after_refresh(self._mount_deferred)
        with self.app.batch_update():
            await self.mount_all(widgets)
        if not self.following:
            self.new_count += len(widgets)
            self._update_badge()
        await self._prune()

    def _first_paint_count(self) -> int:
        """Entries mounted before the first frame: enough to fill the screen (every entry takes at least a
        line and its margin), at most ``first_paint``; the rest appear above them right after."""
        if not self.first_paint:
            return 0
        rows = self.app.size.height if self.is_attached else 0
        return min(self.first_paint, max(10, rows // 2)) if rows else self.first_paint

    @property
    def settled(self) -> bool:
        """True once every entry handed to ``add_many`` is mounted."""
        return not self._deferred

    async def settle(self) -> None:
        """Mount entries held back from the first frame (no-op when there are none)."""
        await self._mount_deferred()

    async def _mount_deferred(self) -> None:
        deferred, self._deferred = self._deferred, []
        if deferred and self.is_attached:
            await self.prepend_history(deferred, has_more=self.has_earlier)

    async def prepend_history(self, widgets: Sequence[Widget], has_more: bool = False) -> None:
        """Mount earlier entries above the current ones, keeping the viewport where it is."""
        if self._deferred:  # entries held back from the first frame belong between these and the rest
            widgets = [*widgets, *self._deferred]
            self._deferred = []
        self._earlier_pending = False
        self.has_earlier = has_more
        if not widgets:
            return
        for widget in widgets:
            self._apply_settings(widget)
        self.reserve_gutter()
        first = self.items[0] if self.items else None
        before_height = self.virtual_size.height
        old_y = self.scroll_y
        with self.app.batch_update():
            if first is not None:
                await self.mount_all(widgets, before=first)
            else:
                await self.mount_all(widgets)
        if not self.following:
            self.call_after_refresh(self._restore_offset, before_height, old_y)

    def reserve_gutter(self) -> None:
        """Keep the scrollbar's column reserved from now on. For content that overflows anyway (a
        resumed batch, a long answer): otherwise the first layout runs without the scrollbar and every
        entry is rendered twice, once per width."""
        if self.styles.scrollbar_gutter != "stable":
            self.styles.scrollbar_gutter = "stable"

    def entry_width(self) -> int:
        """Outer width an entry gets once the gutter is reserved (0 before the first layout)."""
        if not self.region.width:
            return 0
        return max(0, self.region.shrink(self.styles.gutter).width - self.styles.scrollbar_size_vertical)

    def _restore_offset(self, before_height: int, old_y: float) -> None:
        grown = self.virtual_size.height - before_height
        self.scroll_to(y=old_y + max(0, grown), animate=False, immediate=True)

    async def clear(self) -> None:
        self._deferred = []
        await self.remove_children(self.items)
        release_closed_widgets()  # or Textual keeps the removed messages' drawn lines (see the module)
        self.styles.scrollbar_gutter = "auto"
        self.new_count = 0
        self.has_earlier = False
        self._update_badge()
        self.anchor()

    async def _prune(self) -> None:
        excess = len(self.items) - self.max_items
        if excess > 0:
            # Oldest first; they can come back through prepend_history.
            await self.remove_children(self.items[:excess])
            release_closed_widgets()
            self.has_earlier = True

    # ------------------------------------------------------------------ global toggles
    def _apply_settings(self, widget: Widget) -> None:
        if isinstance(widget, Expandable) and self.tools_expanded:
            widget.set_expanded(True)
        setter = getattr(widget, "set_hide_thinking", None)
        if callable(setter):
            setter(self.hide_thinking)

    def watch_tools_expanded(self, expanded: bool) -> None:
        """ctrl+o: expand or collapse every tool box and summary."""
        for widget in self.items:
            if isinstance(widget, Expandable):
                widget.set_expanded(expanded)

    def watch_hide_thinking(self, hide: bool) -> None:
        """ctrl+t: hide or show thinking blocks everywhere."""
        for widget in self.items:
            setter = getattr(widget, "set_hide_thinking", None)
            if callable(setter):
                setter(hide)

    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded

    def set_hide_thinking(self, hide: bool) -> None:
        self.hide_thinking = hide

    # ------------------------------------------------------------------ scrolling
    def action_scroll_to_latest(self) -> None:
        self.scroll_to_latest()

    def scroll_to_latest(self) -> None:
        self.anchor()
        self.scroll_end(animate=False, immediate=True)
        self._reset_badge()

    def action_scroll_to_top(self) -> None:
        self.scroll_home(animate=False)
        self._request_earlier()

    def _request_earlier(self) -> None:
        if self._deferred:
            self.call_later(self._mount_deferred)  # what is already built comes first
            return
        if self.has_earlier and not self._earlier_pending:
            self._earlier_pending = True
            self.post_message(self.EarlierRequested(self))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            # Textual scrolls through a fast path (Compositor.reflow_visible) that leaves its full map as it
            # was; a full layout in the same frame as a later scroll (re-attaching to the bottom updates the
            # badge) then compares against that stale map, finds "no change" and leaves the terminal showing
            # the old position. Repainting the log's region keeps what is drawn in step with scroll_y.
            self.refresh()
        if self.new_count and self.following:
            self._reset_badge()
        if new_value <= 0 < old_value:
            self._request_earlier()

    # ------------------------------------------------------------ keyboard scrolling (pi's tui.altScreen.*)
    def scroll_lines(self, lines: int) -> None:
        """Scroll by ``lines`` (negative: up). Reaching the bottom re-attaches; the top asks for earlier
        entries (see ``watch_scroll_y``)."""
        target = self.scroll_target_y + lines
        if lines > 0 and target >= self.max_scroll_y:
            self.scroll_to_latest()
        else:
            self.scroll_to(y=max(0, target), animate=False, immediate=True)

    def page_height(self) -> int:
        """Rows shown at once (a page scroll moves one less, keeping a line of context)."""
        return max(1, self.scrollable_content_region.height)

    def scroll_pages(self, pages: float) -> None:
        """Scroll by whole or half pages (negative: up)."""
        height = self.page_height()
        step = max(1, height - 1) if abs(pages) >= 1 else max(1, int(height * abs(pages)))
        self.scroll_lines(step if pages > 0 else -step)

    def scroll_to_top(self) -> None:
        self.action_scroll_to_top()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if not (event.ctrl or event.shift):
            event.stop()
            event.prevent_default()
            self.scroll_lines(self.wheel_lines)
            return
        super()._on_mouse_scroll_down(event)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if not (event.ctrl or event.shift):
            event.stop()
            event.prevent_default()
            self.scroll_lines(-self.wheel_lines)
            return
        super()._on_mouse_scroll_up(event)

    def _reset_badge(self) -> None:
        self.new_count = 0
        self._update_badge()

    def _update_badge(self) -> None:
        self._badge.update(self.badge_text)
        self._badge.set_class(bool(self.new_count), "-visible")
