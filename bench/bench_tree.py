"""Tree browser timings on a generated 10,000-entry session with 200 branch points (printed, not asserted).

Run: /tmp/venv/bin/python bench/bench_tree.py   Targets: open < 150 ms, cursor move < 16 ms, filter/search
keystroke < 50 ms (medians, headless Textual).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tree.helpers import generated_session  # noqa: E402
from tests.tree.host import HostApp  # noqa: E402
from widgets.tree import TreeModel  # noqa: E402
from widgets.tree.screen import TreeBrowserScreen  # noqa: E402
from widgets.tree.tree_list import TreeList  # noqa: E402


async def main() -> None:
    entries = generated_session(10_000, 200)
    leaf = entries[-1]["id"]
    app = HostApp(lambda: TreeBrowserScreen(TreeModel(entries[:1], None)))
    base: list[float] = []
    direct_moves: list[float] = []
    direct_keys: list[float] = []
    opens: list[float] = []
    moves: list[float] = []
    keys: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for _ in range(5):
            t0 = time.perf_counter()
            screen = TreeBrowserScreen(TreeModel(entries, leaf))
            await app.push_screen(screen)
            await pilot.pause()
            opens.append(time.perf_counter() - t0)
            await asyncio.sleep(0.2)  # let the idle search warm-up run
            for key in ["up"] * 20 + ["down"] * 10 + ["right", "left"]:
                t0 = time.perf_counter()
                await pilot.press(key)
                moves.append(time.perf_counter() - t0)
            for key in [
                "ctrl+t",
                "ctrl+u",
                "ctrl+d",
                "ctrl+o",
                "ctrl+o",
                "ctrl+d",
                "slash",
                *"alternative 1",
            ]:
                t0 = time.perf_counter()
                await pilot.press(key)
                keys.append(time.perf_counter() - t0)
            for _ in range(10):  # pilot's own cost: a key nothing handles
                t0 = time.perf_counter()
                await pilot.press("f12")
                base.append(time.perf_counter() - t0)
            tl = screen.tree_list

            def draw(tl: TreeList = tl, screen: TreeBrowserScreen = screen) -> None:  # one frame of the list
                for y in range(tl.size.height):
                    tl.render_line(y)
                screen.query_one("#tree-preview-text").render()

            await pilot.press("escape")
            for delta in [-1] * 20 + [1] * 20:
                t0 = time.perf_counter()
                screen.action_move(delta)
                draw()
                direct_moves.append(time.perf_counter() - t0)
            for key in ["ctrl+t", "ctrl+u", "ctrl+d", "ctrl+o", "ctrl+d"]:
                t0 = time.perf_counter()
                screen.action_filter_key(key)
                draw()
                direct_keys.append(time.perf_counter() - t0)
            for ch in "alternative 1":
                t0 = time.perf_counter()
                screen.model.type_text(ch)
                screen._sync()
                draw()
                direct_keys.append(time.perf_counter() - t0)
            await pilot.press("escape", "escape")
            await pilot.pause()

    def ms(xs: list[float]) -> str:
        return f"median {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms (n={len(xs)})"

    print(f"entries: {len(entries)}, branch points: 200")
    print(f"open browser:          {ms(opens)}   target < 150 ms")
    print(f"pilot press baseline:  {ms(base)}   (an unhandled key: Pilot's own wait)")
    print(f"cursor move (pilot):   {ms(moves)}")
    print(f"filter/search (pilot): {ms(keys)}")
    print(f"cursor move (handler+draw):   {ms(direct_moves)}   target < 16 ms")
    print(f"filter/search (handler+draw): {ms(direct_keys)}   target < 50 ms")


if __name__ == "__main__":
    asyncio.run(main())
