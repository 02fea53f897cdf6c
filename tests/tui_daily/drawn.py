"""What the terminal shows: the app's screen updates replayed onto a grid of cells.

Pilot's screenshots render the whole screen afresh from the compositor, so they cannot see an update that
was never sent (a region left stale on the terminal). This replays every update the app would write to its
driver — the same ``CompositorUpdate`` renderables, cursor moves included — onto a grid, as a terminal would.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.segment import ControlType
from textual._compositor import CompositorUpdate
from textual.app import App


class DrawnScreen:
    def __init__(self, app: App[Any], width: int, height: int) -> None:
        self.app = app
        self.width = width
        self.height = height
        self.rows: list[list[str]] = [[" "] * width for _ in range(height)]
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            # Mirrors App._display's own conditions: a batch or a closed app writes nothing.
            if isinstance(renderable, CompositorUpdate) and not app._batch_count and app._running:
                self._apply(renderable)
            original(screen, renderable)

        app._display = display  # type: ignore[method-assign]

    def _apply(self, update: CompositorUpdate) -> None:
        console = self.app.console
        x = y = 0
        for segment in console.render(update, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = int(code[1]), int(code[2])
                continue
            for char in segment.text:
                if char == "\n":
                    x, y = 0, y + 1
                    continue
                if 0 <= y < self.height and 0 <= x < self.width:
                    self.rows[y][x] = char
                x += cell_len(char)

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows]

    def text(self) -> str:
        return "\n".join(self.lines())
