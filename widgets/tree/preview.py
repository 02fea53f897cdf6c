"""PreviewPane: the selected entry in full, drawn line by line at a fixed size.

A ``Static`` with ``height: auto`` in a scroll container re-runs the screen layout on every content change,
which repaints the whole browser on each cursor move. This pane keeps its size (set by the screen's CSS),
word-wraps only as many lines as it shows, and repaints only itself. The mouse wheel scrolls it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget

# A paragraph of the preview: its text (may hold newlines) and whether it is drawn bold.
Paragraph = tuple[str, bool]


def wrap_line(line: str, width: int) -> list[str]:
    """Greedy word wrap of one line to ``width`` cells; words longer than the width are cut."""
    if cell_len(line) <= width:
        return [line]
    out: list[str] = []
    current: str | None = None
    used = 0
    for word in line.split(" "):
        size = cell_len(word)
        if current is not None and used + 1 + size <= width:
            current += " " + word
            used += 1 + size
            continue
        if current is not None:
            out.append(current)
        if size > width:
            pieces = chop_cells(word, width)
            out.extend(pieces[:-1])
            current = pieces[-1]
        else:
            current = word
        used = cell_len(current)
    if current is not None:
        out.append(current)
    return out


class PreviewPane(Widget):
    """Shows paragraphs wrapped to the pane's width; :meth:`show` replaces them and repaints just this pane."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"preview-pane--heading"}
    DEFAULT_CSS = """
    PreviewPane { width: 1fr; height: 1fr; }
    PreviewPane > .preview-pane--heading { text-style: bold; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._paragraphs: list[Paragraph] = []
        self._lines: list[tuple[str, bool]] = []
        self._wrapped_upto = 0  # paragraphs (and their lines) wrapped so far
        self._pending: list[tuple[str, bool]] = []  # source lines of the paragraph being wrapped
        self._width = 0
        self._top = 0
        self._styles: tuple[Style, Style] | None = None  # (base, heading), cleared when styles change

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None

    @property
    def plain(self) -> str:
        """Everything the pane holds, unwrapped (what a test or a copy would want)."""
        return "".join(text for text, _ in self._paragraphs)

    def show(self, paragraphs: list[Paragraph]) -> None:
        if paragraphs == self._paragraphs and self._top == 0:
            return  # the same entry (a stub unfolded under the cursor, a filter that kept it): nothing to draw
        self._paragraphs = paragraphs
        self._top = 0
        self._reset_wrap()
        self.refresh()

    def _reset_wrap(self) -> None:
        self._lines = []
        self._wrapped_upto = 0
        self._pending = []

    def _ensure_lines(self, count: int, width: int) -> None:
        """Wrap just enough paragraphs to have ``count`` lines."""
        if width != self._width:
            self._width = width
            self._reset_wrap()
        lines = self._lines
        while len(lines) < count:
            if not self._pending:
                if self._wrapped_upto >= len(self._paragraphs):
                    return
                text, bold = self._paragraphs[self._wrapped_upto]
                self._wrapped_upto += 1
                parts = text.split("\n")
                if parts and parts[-1] == "":
                    parts.pop()  # a paragraph ending in a newline does not start an extra line
                self._pending = [(p, bold) for p in reversed(parts)]
                continue
            source, bold = self._pending.pop()
            source = source.replace("\r", "").expandtabs(4)
            lines.extend((piece, bold) for piece in wrap_line(source, max(1, width)))

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._ensure_lines(self._top + 3 + self.size.height, self.size.width)
        self._top = max(0, min(self._top + 3, len(self._lines) - self.size.height))
        self.refresh()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._top = max(0, self._top - 3)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._styles is None:
            base = self.rich_style
            self._styles = (base, base + self.get_component_rich_style("preview-pane--heading", partial=True))
        base, heading = self._styles
        index = self._top + y
        self._ensure_lines(index + 1, width)
        if index >= len(self._lines):
            return Strip.blank(width, base)
        text, bold = self._lines[index]
        return Strip([Segment(text, heading if bold else base)]).adjust_cell_length(width, base)


__all__ = ["Paragraph", "PreviewPane", "wrap_line"]
