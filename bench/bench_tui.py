"""Interactive app timings, headless (printed, not asserted).

Usage: python bench/bench_tui.py [--only NAME]
- cold_start: a fresh interpreter imports the app, builds a faux session and paints the first frame
- stream_4k: absorbing a ~4,000-token answer delivered in 2,000 chunks (submit → idle)
- resume_5000: opening a 5,000-entry session file to the first frame (only the tail is mounted)
- keystroke_1000: per-key latency typing into the editor with 1,000 messages in the session
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE = (120, 40)

COLD_SCRIPT = """
import time, asyncio
t0 = time.perf_counter()
from pi_app.tui.app import PiApp
from pi_app.tui.options import TuiOptions
from pi_app.ai.providers.faux import faux_model
from pi_app.session.assembly import create_agent_session
async def main():
    session = await create_agent_session({cwd!r}, model=faux_model(), api_key="x")
    app = PiApp(session, options=TuiOptions(test_mode=True, warm_imports=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(f"{{time.perf_counter() - t0:.3f}}")
asyncio.run(main())
"""


def isolated_env(home: str) -> None:
    os.environ["HOME"] = home
    os.environ["PI_CODING_AGENT_DIR"] = os.path.join(home, ".pi", "agent")
    os.environ["TEXTUAL_ANIMATIONS"] = "none"


def bench_cold_start(work: Path, runs: int = 3) -> None:
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", COLD_SCRIPT.format(cwd=str(work))],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=True,
        )
        times.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"cold_start: median {statistics.median(times) * 1000:.0f} ms to first frame ({runs} runs)")


async def _session(work: Path, **kwargs):
    from pi_app.ai.providers.faux import faux_model
    from pi_app.session.assembly import create_agent_session

    return await create_agent_session(work, model=faux_model(), api_key="x", **kwargs)


def _app(session):
    from pi_app.tui.app import PiApp
    from pi_app.tui.options import TuiOptions

    return PiApp(session, options=TuiOptions(test_mode=True, warm_imports=False, cwd_display="/w"))


async def bench_stream(work: Path) -> None:
    from pi_app.ai.providers.faux import FAUX, FauxResponse, FauxStep

    # ~16,000 characters ≈ 4,000 tokens, in 2,000 deltas of 8 characters, markdown with code blocks.
    para = "Some **markdown** text with `code` and a [link](http://x).\n\n```python\nprint('x')\n```\n\n"
    text = (para * (16_000 // len(para) + 1))[:16_000]
    FAUX.reset()
    FAUX.enqueue(
        FauxResponse(steps=[FauxStep("text", text=text)], chunk_size=8, usage={"input": 10, "output": 4000})
    )
    app = _app(await _session(work))
    async with app.run_test(size=SIZE) as pilot:
        t0 = time.perf_counter()
        app.submit("go")
        await pilot.pause()
        await app.wait_until_idle()
        await pilot.pause()
        elapsed = time.perf_counter() - t0
        batches = app.bridge.events_seen
    print(f"stream_4k: {elapsed * 1000:.0f} ms for 2,000 chunks ({batches} events applied)")


def _write_session(work: Path, entries: int) -> str:
    from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
    from pi_app.session.store import SessionManager

    manager = SessionManager.create(str(work))
    for i in range(entries // 2):
        manager.append_message(UserMessage(content=[TextContent(text=f"question {i} " * 5)]))
        manager.append_message(
            AssistantMessage(
                content=[TextContent(text=f"answer **{i}**\n\n- a\n- b")], model="faux-1", provider="faux"
            )
        )
    assert manager.session_file is not None
    return manager.session_file


async def bench_resume(work: Path, entries: int = 5000) -> None:
    from pi_app.session.store import SessionManager

    path = _write_session(work, entries)
    t0 = time.perf_counter()
    session = await _session(work, session=SessionManager.open(path))
    t1 = time.perf_counter()
    app = _app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t2 = time.perf_counter()
        mounted = len(app.chat.items)
    print(
        f"resume_{entries}: {(t2 - t0) * 1000:.0f} ms to first frame "
        f"(session {(t1 - t0) * 1000:.0f} ms, app {(t2 - t1) * 1000:.0f} ms; {mounted} widgets mounted)"
    )


async def bench_keystrokes(work: Path, messages: int = 1000, keys: int = 60) -> None:
    from pi_app.session.store import SessionManager

    path = _write_session(work, messages)
    app = _app(await _session(work, session=SessionManager.open(path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        samples = []
        for i in range(keys):
            t0 = time.perf_counter()
            await pilot.press("a" if i % 10 else "space")
            samples.append(time.perf_counter() - t0)
        samples.sort()
    p50 = samples[len(samples) // 2] * 1000
    p95 = samples[int(len(samples) * 0.95)] * 1000
    print(f"keystroke_{messages}: p50 {p50:.1f} ms, p95 {p95:.1f} ms per key (pilot.press, {keys} keys)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["cold_start", "stream_4k", "resume_5000", "keystroke_1000"])
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="pi-bench-home-")
    isolated_env(home)
    work = Path(tempfile.mkdtemp(prefix="pi-bench-proj-"))
    run = args.only
    if run in (None, "cold_start"):
        bench_cold_start(work)
    if run in (None, "stream_4k"):
        asyncio.run(bench_stream(work))
    if run in (None, "resume_5000"):
        asyncio.run(bench_resume(Path(tempfile.mkdtemp(prefix="pi-bench-r-"))))
    if run in (None, "keystroke_1000"):
        asyncio.run(bench_keystrokes(Path(tempfile.mkdtemp(prefix="pi-bench-k-"))))


if __name__ == "__main__":
    main()
