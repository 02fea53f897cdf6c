"""Extension overhead: a faux-provider session running turns of 3 tool calls, with no extensions and with
10 extensions that subscribe to every event (tool_call, tool_result and context handlers included).

Usage: python bench/bench_extensions.py [--turns N]
Reports microseconds per turn for each and the difference (budget: < 1000 us/turn added), and the time to
import the runtime and load the 10 files (budget: startup grows by < 30 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVENTS = [
    "session_start", "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end", "tool_call",
    "tool_result", "context", "before_agent_start", "input", "model_select", "thinking_level_select",
]  # fmt: skip
EXTENSION = "NAMES = {names!r}\n\ndef register(pi):\n    for name in NAMES:\n        pi.on(name, lambda event, ctx: None)\n"
BUDGET_TURN_US = 1000.0
BUDGET_STARTUP_MS = 30.0


def write_extensions(directory: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        path = directory / f"ext{i}.py"
        path.write_text(EXTENSION.format(names=EVENTS), encoding="utf-8")
        paths.append(path)
    return paths


async def run(turns: int, extensions: int) -> tuple[float, float]:
    """(microseconds per turn, milliseconds to import the runtime and load the extensions)."""
    from pi_app.ai.providers.faux import FAUX, faux_model, faux_text, faux_tools
    from pi_app.session.assembly import create_agent_session
    from pi_app.session.config import AuthStorage, ModelRegistry, SettingsManager
    from pi_app.session.store import SessionManager

    tmp = Path(tempfile.mkdtemp())
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key("faux", "k")
    session = await create_agent_session(
        tmp,
        tmp / "agent",
        model=faux_model(),
        settings=SettingsManager.in_memory({}),
        auth=auth,
        model_registry=ModelRegistry(auth, None),
        session=SessionManager.in_memory(str(tmp)),
        tools=["ls"],
    )
    load_ms = 0.0
    if extensions:
        t0 = time.perf_counter()
        from pi_app.extensions.loader import ExtensionSource
        from pi_app.extensions.runner import ExtensionRunner

        runner = ExtensionRunner(
            cwd=str(tmp), settings=session.settings, model_registry=session.model_registry
        )
        paths = write_extensions(tmp, extensions)
        await runner.load([ExtensionSource(str(p), "user") for p in paths])
        runner.bind(session)
        await runner.start()
        load_ms = (time.perf_counter() - t0) * 1000
    calls = (("ls", {"path": "."}), ("ls", {"path": "."}), ("ls", {"path": "."}))
    count = [0]

    def responder(_ctx: Any) -> Any:
        count[0] += 1
        return faux_tools(*calls) if count[0] <= turns else faux_text("done")

    FAUX.reset()
    FAUX.responder = responder
    t0 = time.perf_counter()
    await session.prompt("go")
    per_turn = (time.perf_counter() - t0) / max(turns, 1) * 1e6
    return per_turn, load_ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bases, withs, loads = [], [], []
    for _ in range(args.repeat):  # alternated, best of each: a busy machine inflates single runs
        bases.append(asyncio.run(run(args.turns, 0))[0])
        turn, load = asyncio.run(run(args.turns, 10))
        withs.append(turn)
        loads.append(load)
    base, with_ext, load_ms = min(bases), min(withs), min(loads)
    added = with_ext - base
    print(f"no extensions:  {base:8.0f} us/turn")
    print(f"10 extensions:  {with_ext:8.0f} us/turn  (+{added:.0f} us, budget {BUDGET_TURN_US:.0f})")
    print(f"runtime import + load of 10 files: {load_ms:.1f} ms (budget {BUDGET_STARTUP_MS:.0f})")


if __name__ == "__main__":
    main()
