"""A cleared or pruned chat lets its removed messages go: Textual's lru colour cache (keyed on each widget's
styles cache) would otherwise keep their drawn lines (see widgets/textual_caches.py)."""

from __future__ import annotations

import gc
import weakref

from textual.widgets import Static

from tests.widgets.harness import PiTestApp
from widgets.chat_log import ChatLog


async def test_pruned_and_cleared_messages_leave_no_drawn_lines_behind():
    log = ChatLog(max_items=6)
    app = PiTestApp([log])
    async with app.run_test(size=(60, 20)) as pilot:
        drawn: list[weakref.ref[object]] = []
        for k in range(10):
            widget = await log.add(Static(f"message {k}\n" * 3))
            await pilot.pause()  # drawn before the next one comes (and the oldest go)
            drawn.append(weakref.ref(widget._styles_cache))
        del widget
        gc.collect()
        # the pruned ones (the very last may wait for Textual's next frame to leave its lists)
        assert [k for k in range(3) if drawn[k]() is not None] == []
        await log.clear()
        await log.add(Static("a new session"))
        await pilot.pause()
        gc.collect()
        assert [k for k, r in enumerate(drawn) if r() is not None] == []
