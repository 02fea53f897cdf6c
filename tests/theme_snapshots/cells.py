"""Read what a running app actually draws: every screen cell's character, colour and background."""

from __future__ import annotations

from dataclasses import dataclass

from rich.color import Color
from textual.app import App


@dataclass(frozen=True)
class Cell:
    char: str
    fg: str | None  # "#rrggbb" (after reverse is applied) or None for the terminal default
    bg: str | None


def _hex(color: Color | None) -> str | None:
    if color is None or color.triplet is None:
        return None
    return color.triplet.hex


def screen_rows(app: App) -> list[list[Cell]]:
    """The composited screen, one list of cells per row (wide characters count once)."""
    rows: list[list[Cell]] = []
    for strip in app.screen._compositor.render_strips():
        row: list[Cell] = []
        for segment in strip:
            style = segment.style
            fg = _hex(style.color) if style else None
            bg = _hex(style.bgcolor) if style else None
            if style is not None and style.reverse:
                fg, bg = bg, fg
            row.extend(Cell(ch, fg, bg) for ch in segment.text)
        rows.append(row)
    return rows


def row_text(row: list[Cell]) -> str:
    return "".join(cell.char for cell in row)


def find_cell(app: App, line_start: str, needle: str) -> Cell:
    """The cell of `needle`'s first character on the first row whose stripped text starts with
    `line_start`."""
    for row in screen_rows(app):
        text = row_text(row)
        if text.strip().startswith(line_start):
            return row[text.index(needle)]
    raise AssertionError(f"no row starting with {line_start!r} on screen")
