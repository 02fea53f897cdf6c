"""TreeList: a line-API view of a TreeModel — draws only the rows on screen, so 10,000+ entries stay fast.

Textual's Tree widget builds a node per level and recurses, which breaks on deep chains; this draws one
Strip per visible line straight from the model's rows.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from .entry_text import (
    STYLE_ASSISTANT,
    STYLE_COMPACTION,
    STYLE_CUSTOM,
    STYLE_ERROR,
    STYLE_META,
    STYLE_SUMMARY,
    STYLE_TOOL,
    STYLE_USER,
)
from .model import ACTIVE_MARK, PATH_MARK, TreeModel, shifted_prefix
from .navigation import follow, follow_x

_TEXT_CLASS = {
    STYLE_USER: "tree-list--user",
    STYLE_ASSISTANT: "tree-list--assistant",
    STYLE_TOOL: "tree-list--muted",
    STYLE_ERROR: "tree-list--error",
    STYLE_SUMMARY: "tree-list--warning",
    STYLE_COMPACTION: "tree-list--compaction",
    STYLE_META: "tree-list--dim",
    STYLE_CUSTOM: "tree-list--custom",
}


def _thumb(bar: ScrollBar, rows: int) -> list[Segment]:
    """The vertical scrollbar as drawn for ``rows`` rows (its renderer's own cells, default colours)."""
    window = bar.window_size if bar.window_size < rows else 0
    return list(
        bar.renderer.render_bar(
            size=bar.size.height,
            virtual_size=rows,
            window_size=window,
            position=bar.position,
            thickness=bar.thickness,
            vertical=True,
        ).segments
    )


class TreeList(ScrollView, can_focus=True):
    """Draws ``model`` rows; the screen owns the keys and calls :meth:`refresh_rows` after changing it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tree-list--cursor",
        "tree-list--user",
        "tree-list--assistant",
        "tree-list--muted",
        "tree-list--error",
        "tree-list--warning",
        "tree-list--compaction",
        "tree-list--dim",
        "tree-list--custom",
        "tree-list--accent",
        "tree-list--label",
    }

    DEFAULT_CSS = """
    TreeList {
        height: 1fr;
        background: $background;
        color: $pi-text;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    TreeList > .tree-list--cursor { background: $pi-selected-bg; text-style: bold; }
    TreeList > .tree-list--user { color: $pi-accent; }
    TreeList > .tree-list--assistant { color: $pi-success; }
    TreeList > .tree-list--muted { color: $pi-muted; }
    TreeList > .tree-list--error { color: $pi-error; }
    TreeList > .tree-list--warning { color: $pi-warning; }
    TreeList > .tree-list--compaction { color: $pi-border-accent; }
    TreeList > .tree-list--dim { color: $pi-dim; }
    TreeList > .tree-list--custom { color: $pi-custom-message-label; }
    TreeList > .tree-list--accent { color: $pi-accent; }
    TreeList > .tree-list--label { color: $pi-warning; }
    """

    def __init__(self, model: TreeModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.model = model
        self._styles: dict[str, Style] = {}
        self._base: Style | None = None
        self._layout_seen = -1  # the model's layout generation the drawn lines belong to
        # Drawn lines by (row, selected, width); cleared whenever the rows, styles or the left cut change.
        self._strips: dict[tuple[int, bool, int], Strip] = {}
        # Cells cut on the left of every row so the selected row's text shows (deep rows in a narrow pane).
        self.left = 0
        self._frame: tuple[int, int] | None = None  # (content width, first row shown) while a frame renders

    def on_mount(self) -> None:
        self.refresh_rows()

    def on_unmount(self) -> None:
        self.model = TreeModel([], None)  # see TreeBrowserScreen.on_unmount: a closed list keeps no tree

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._base = None
        self._strips.clear()

    def on_resize(self) -> None:
        # The first real size arrives after mount: only now can the selected row be scrolled into view.
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self.model))
        self.scroll_to_cursor()
        self.refresh()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def refresh_rows(self) -> None:
        """The model changed (rows, filter or selection): resize, keep the cursor in view, redraw."""
        gen, first, after, delta = self.model.layout_change
        # rows around an in-place splice (an unfolded stub) keep their drawn lines, those below it moved by
        # ``delta``; 0: redraw all (also when only the cursor moved, as the row it left is not known here)
        first = first if gen == self._layout_seen + 1 else 0
        if gen != self._layout_seen:
            self._layout_seen = gen
            if first == 0:
                self._strips.clear()
            else:
                # only lines near the view are worth keeping: the cache stays small, so this stays cheap
                height = max(1, self._height())
                low, high = int(self.scroll_offset.y) - height, int(self.scroll_offset.y) + 2 * height
                kept: dict[tuple[int, bool, int], Strip] = {}
                for key, strip in self._strips.items():
                    row = key[0] if key[0] < first else key[0] + delta if key[0] >= after >= 0 else -1
                    if low <= row <= high and row >= 0:
                        kept[(row, key[1], key[2])] = strip
                self._strips = kept
        top, left = int(self.scroll_offset.y), self.left
        self._set_rows(len(self.model))
        self.scroll_to_cursor()
        height = self._height()
        if first > top and int(self.scroll_offset.y) == top and self.left == left:
            self.refresh_lines(first, max(1, height - (first - top)))  # content rows; the view did not move
        else:
            self.refresh()

    def _set_rows(self, rows: int) -> None:
        """New row count. While the scrollbar stays (rows still overflow the view), only the scrollbar is
        updated: setting ``virtual_size`` runs a layout pass of the whole screen, ~20-40 ms per unfolded stub."""
        size = Size(self.size.width, rows)
        if size == self.virtual_size:
            return
        height = self._height()
        overflowing = self.virtual_size.height > height and rows > height
        if (
            height > 0
            and overflowing
            and self.show_vertical_scrollbar
            and size.width == self.virtual_size.width
        ):
            bar = self.vertical_scrollbar
            # A few rows more or less in thousands move the thumb by a cell or two, if at all: only those cells
            # are repainted (the bar's column spans the list; a frame repaints the box around all changes).
            old, new = _thumb(bar, self.virtual_size.height), _thumb(bar, rows)
            self.set_reactive(TreeList.virtual_size, size)
            bar.set_reactive(ScrollBar.window_virtual_size, rows)
            changed = [y for y, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]
            if len(old) != len(new):
                bar.refresh()
            elif changed:
                bar.refresh(Region(0, changed[0], bar.size.width, changed[-1] - changed[0] + 1))
        else:
            self.virtual_size = size

    def cursor_moved(self, old_row: int) -> None:
        """Only the selection moved: repaint the two lines involved, or scroll when it left the view."""
        new_row = self.model.selected
        top = int(self.scroll_offset.y)
        height = self._height()
        if top <= new_row < top + height and not self._follow_x():
            self.refresh_line(old_row)
            self.refresh_line(new_row)
        else:
            self.scroll_to_cursor()
            self.refresh()

    def _height(self) -> int:
        return self.scrollable_content_region.height or self.size.height

    def _follow_x(self) -> bool:
        """Keep the selected row's text within the first third of the width; True if the cut changed."""
        width = self.scrollable_content_region.width
        model = self.model
        if width <= 0 or not len(model):
            return False
        sel = model.selected
        left = min(follow_x(2 + model.text_start(sel), self.left, width), model.cuttable(sel))
        if left == self.left:
            return False
        self.left = left
        self._strips.clear()
        return True

    def scroll_to_cursor(self) -> None:
        height = self._height()
        if height <= 0:
            return
        self._follow_x()
        top = follow(self.model.selected, int(self.scroll_offset.y), height, len(self.model))
        self.scroll_to(y=top, animate=False, immediate=True)

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line needs is worked out once per frame, not per line (the region walks the styles).
        self._frame = self._geometry()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _geometry(self) -> tuple[int, int]:
        return self.scrollable_content_region.width, int(self.scroll_offset.y)

    def render_line(self, y: int) -> Strip:
        width, top = self._frame or self._geometry()  # (also called on its own: selection, tests)
        index = top + y
        model = self.model
        base = self._base
        if base is None:  # the widget's style, resolved once per style change (it walks the DOM)
            base = self._base = self.rich_style
        if index >= len(model):
            return Strip.blank(width, base)
        selected = index == model.selected
        key = (index, selected, width)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 4096:
                self._strips.clear()
            strip = self._strips[key] = self._draw(index, selected, width, base)
        return strip

    def _draw(self, index: int, selected: bool, width: int, base: Style) -> Strip:
        row = self.model.row(index)
        s = self._style
        segs: list[Segment] = [
            Segment("› " if selected else "  ", s("tree-list--accent")),
            # deep rows lose gutters on the left (never their text) so the selected row reads
            Segment(shifted_prefix(row.prefix, self.left), s("tree-list--dim")),
        ]
        if row.fold_marker:
            segs.append(Segment(row.fold_marker, s("tree-list--accent")))
        if row.on_path:
            segs.append(Segment(PATH_MARK, s("tree-list--accent")))
        if row.stub:
            segs.append(Segment(row.stub, s("tree-list--muted")))
        if row.label:
            segs.append(Segment(f"[{row.label}] ", s("tree-list--label")))
        text_style = s(_TEXT_CLASS.get(row.text.style, "tree-list--dim"))
        if row.text.tag:
            segs.append(Segment(row.text.tag, text_style))
        # The leaf keeps its "← active" mark in view: the body gives way, never the mark.
        room = width
        if row.is_active:
            used = sum(cell_len(seg.text) for seg in segs)
            room = max(8, width - used - cell_len(ACTIVE_MARK) - 2)
            body = row.text.body
            if cell_len(body) > room:
                body = set_cell_size(body, room - 1) + "…"
        else:
            body = row.text.body[:width]  # chars >= cells: enough to fill the line
        if row.text.tag:
            body_style = s("tree-list--muted") if row.text.body_muted else Style()
            if row.text.style == STYLE_ERROR:
                body_style = text_style
            segs.append(Segment(body, body_style))
        else:
            segs.append(Segment(body, text_style))
        if row.is_active:
            segs.append(Segment(f"  {ACTIVE_MARK}", s("tree-list--accent")))
        line_style = base + s("tree-list--cursor") if selected else base
        segs = [Segment(t, line_style + st) for t, st, _ in segs]
        # padded or cut to the width here: one Strip per row (each Strip carries seven caches of its own)
        used = sum(cell_len(t) for t, _, _ in segs)
        if used < width:
            segs.append(Segment(" " * (width - used), line_style))
        elif used > width:
            return Strip(segs).adjust_cell_length(width, line_style)
        return Strip(segs, width)
