"""Transcript search (pi 1.6's ``tui.altScreen.search``): a one-row bar under the conversation.

Typing searches the transcript as it is drawn (wrapped lines, rendered Markdown, tool panels),
case-insensitively; Enter / Ctrl+G go to the next match, Shift+Enter / Ctrl+Shift+G to the previous one, Esc
closes. The current match is scrolled into view and highlighted as a text selection (so Ctrl+C copies it);
the bar counts the matches.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer
from textual.geometry import Offset
from textual.selection import Selection
from textual.widget import Widget
from textual.widgets import Input, Static


@dataclass(frozen=True)
class Match:
    """One occurrence of the search text: the drawn widget, its content line, and the character span."""

    widget: Widget  # the drawn widget holding the match (a leaf of the transcript)
    line: int  # content line of that widget
    start: int  # character span in that line
    end: int


def _drawn_leaves(root: Widget) -> Iterator[Widget]:
    """Widgets that draw transcript text, top to bottom, skipping hidden subtrees."""
    for child in root.children:
        if not child.display:
            continue
        if child.children:
            yield from _drawn_leaves(child)
        elif child.content_size.height > 0:
            yield child


def find_matches(root: Widget, query: str) -> list[Match]:
    """Every occurrence of ``query`` (case-insensitive) in what ``root``'s entries draw, in reading order."""
    needle = query.lower()
    if not needle:
        return []
    found: list[Match] = []
    for leaf in _drawn_leaves(root):
        for line in range(leaf.content_size.height):
            text = leaf.render_line(line).text.lower()
            start = text.find(needle)
            while start >= 0:
                found.append(Match(leaf, line, start, start + len(needle)))
                start = text.find(needle, start + len(needle))
    return found


class TranscriptSearch(Horizontal):
    """The search bar; :meth:`open` shows it for ``transcript`` (the conversation's scroll view)."""

    DEFAULT_CSS = """
    TranscriptSearch { height: 1; display: none; background: $background; }
    TranscriptSearch.-open { display: block; }
    TranscriptSearch > .-label { width: auto; padding: 0 1; color: $pi-accent; text-style: bold; }
    TranscriptSearch > Input, TranscriptSearch > Input:focus {
        width: 1fr; height: 1; border: none; padding: 0; background: $background;
    }
    TranscriptSearch > .-count { width: auto; padding: 0 1; color: $pi-dim; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "step(1)", "Next match", show=False, id="tui.altScreen.searchNext"),
        Binding(
            "shift+enter,ctrl+shift+g",
            "step(-1)",
            "Previous match",
            show=False,
            id="tui.altScreen.searchPrevious",
        ),
        Binding("escape", "close", "Close search", show=False, id="tui.altScreen.searchClose"),
    ]

    def __init__(self, transcript: ScrollableContainer) -> None:
        super().__init__()
        self.transcript = transcript
        self.matches: list[Match] = []
        self.index = -1
        self._return_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static("Search:", classes="-label")
        yield Input(placeholder="type to search the transcript", id="transcript-search-input")
        yield Static("", classes="-count")

    @property
    def field(self) -> Input:
        return self.query_one(Input)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def current(self) -> Match | None:
        return self.matches[self.index] if 0 <= self.index < len(self.matches) else None

    # ------------------------------------------------------------------ open / close
    def open(self) -> None:
        if not self.is_open:
            self._return_focus = self.app.focused
            self.add_class("-open")
            self.field.cursor_blink = False
        self.field.focus()
        if self.field.value:
            self.field.select_all()

    def action_close(self) -> None:
        self.close()

    def close(self) -> None:
        self.remove_class("-open")
        self._clear_highlight()
        self.matches, self.index = [], -1
        target = self._return_focus
        self._return_focus = None
        if target is not None and target.is_attached:
            target.focus()

    # ------------------------------------------------------------------ searching
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(1)

    def search(self, query: str) -> None:
        """Find ``query`` and go to the last match at or above the bottom of the view (the nearest one
        reading upward from where the user is)."""
        self.matches = find_matches(self.transcript, query)
        if not self.matches:
            self.index = -1
            self._clear_highlight()
            self._show_count(query)
            return
        bottom = self.transcript.scroll_y + self.transcript.scrollable_content_region.height
        above = [i for i, m in enumerate(self.matches) if self._virtual_y(m) < bottom]
        self.index = above[-1] if above else 0
        self._go()

    def action_step(self, delta: int) -> None:
        if not self.matches:
            return
        self.index = (self.index + delta) % len(self.matches)
        self._go()

    def _virtual_y(self, match: Match) -> int:
        """The match's row in the transcript's scroll coordinates. Summed from each widget's place in its
        container (which scrolling does not change), not from screen regions: those lag a scroll made in
        the same frame, and a fast typist searches several times per frame."""
        y = match.line + match.widget.styles.gutter.top
        node: Widget = match.widget
        while isinstance(node.parent, Widget) and node is not self.transcript:
            y += node.virtual_region.y
            if node.parent is self.transcript:
                break
            node = node.parent
            y += node.styles.gutter.top
        return y

    def _go(self) -> None:
        match = self.matches[self.index]
        transcript = self.transcript
        y = self._virtual_y(match)
        height = transcript.scrollable_content_region.height
        if not transcript.scroll_y <= y < transcript.scroll_y + height:
            transcript.scroll_to(y=max(0, y - height // 3), animate=False, immediate=True)
        self.screen.selections = {
            match.widget: Selection(Offset(match.start, match.line), Offset(match.end, match.line))
        }
        self._show_count(self.field.value)

    def _clear_highlight(self) -> None:
        if self.is_attached:
            self.screen.selections = {}

    def _show_count(self, query: str) -> None:
        count = self.query_one(".-count", Static)
        if not query:
            count.update("")
        elif not self.matches:
            count.update("no matches")
        else:
            count.update(f"{self.index + 1}/{len(self.matches)}")
