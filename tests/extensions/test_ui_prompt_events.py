"""``ui_prompt_start`` / ``ui_prompt_end`` around dialogs and custom screens: one span for overlapping
prompts, none without a UI (print mode answers at once)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pi_app.extensions import NoUI

from .helpers import session_with, write_ext

EXT = """
EVENTS = []

def register(pi):
    pi.on("ui_prompt_start", lambda event, ctx: EVENTS.append(("start", event.kind, event.title, event.reason)))
    pi.on("ui_prompt_end", lambda event, ctx: EVENTS.append(("end", event.kind, event.title, event.reason)))
"""


class SlowUI(NoUI):
    """Dialogs that answer once released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: Any = None
    ) -> bool:
        await self.release.wait()
        return True

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None, signal: Any = None
    ) -> str | None:
        await self.release.wait()
        return options[0]


async def _settle(events: list[Any], count: int) -> None:
    for _ in range(100):  # handlers run as tasks: let them
        if len(events) >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"expected {count} events, got {events}")


async def test_overlapping_prompts_are_one_span(tmp_path, faux):
    _, runner, errors = await session_with(tmp_path, write_ext(tmp_path / "ext", "spans.py", EXT), mode="rpc")
    ui = SlowUI()
    runner.set_ui("rpc", ui)
    events = runner.extensions[0].module.EVENTS
    ctx_ui = runner.context_for("spans").ui
    first = asyncio.ensure_future(ctx_ui.confirm("Delete?"))
    second = asyncio.ensure_future(ctx_ui.select("Pick", ["a", "b"]))
    await _settle(events, 1)
    assert events == [("start", "confirm", "Delete?", "ui_prompt")]
    ui.release.set()
    assert await first is True and await second == "a"
    await _settle(events, 2)
    assert events == [
        ("start", "confirm", "Delete?", "ui_prompt"),
        ("end", "confirm", "Delete?", "ui_prompt"),
    ]

    await ctx_ui.select("Again", ["x"])  # a new span after the first closed
    await _settle(events, 4)
    assert events[2:] == [("start", "select", "Again", "ui_prompt"), ("end", "select", "Again", "ui_prompt")]
    assert errors == []


async def test_no_spans_without_a_ui(tmp_path, faux):
    _, runner, _ = await session_with(tmp_path, write_ext(tmp_path / "ext", "spans.py", EXT), mode="print")
    assert await runner.context_for("spans").ui.confirm("Delete?") is False
    for _ in range(5):
        await asyncio.sleep(0)
    assert runner.extensions[0].module.EVENTS == []
