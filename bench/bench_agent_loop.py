"""Agent-loop overhead: 1,000 turns x 3 no-op tool calls against the faux provider.

Usage: python bench/bench_agent_loop.py [--turns N] [--agent] [--profile]
Reports microseconds per turn (budget: < 1000 us/turn, tool work excluded — the tools do nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import time
from typing import Any

from pi_app.agent import Agent, AgentContext, AgentLoopConfig, AgentState, AgentToolResult, FunctionTool
from pi_app.agent.loop import run_agent_loop
from pi_app.ai.providers.faux import FAUX, faux_model, faux_text, faux_tools
from pi_app.ai.types import UserMessage

BUDGET_US = 1000.0
USAGE = {"input": 100, "output": 10}
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["path"],
}


def make_tools() -> list[FunctionTool]:
    async def noop(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult.text("ok")

    return [FunctionTool(name, "does nothing", SCHEMA, noop) for name in ("a", "b", "c")]


def script(turns: int) -> None:
    FAUX.reset()
    calls = (("a", {"path": "x", "n": 1}), ("b", {"path": "y"}), ("c", {"path": "z", "n": "3"}))
    count = [0]

    def responder(_ctx: Any) -> Any:
        count[0] += 1
        if count[0] <= turns:
            return faux_tools(*calls, usage=USAGE)
        return faux_text("done", usage=USAGE)

    FAUX.responder = responder


async def run_loop(turns: int) -> int:
    script(turns)
    events = [0]

    async def emit(_event: Any) -> None:
        events[0] += 1

    ctx = AgentContext("bench", [], make_tools())
    await run_agent_loop([UserMessage(content="go")], ctx, AgentLoopConfig(model=faux_model()), emit)
    return events[0]


async def run_agent(turns: int) -> int:
    script(turns)
    agent = Agent(initial_state=AgentState(model=faux_model(), tools=make_tools()))
    events = [0]

    async def listener(_event: Any) -> None:
        events[0] += 1

    agent.subscribe(listener)
    await agent.prompt("go")
    return events[0]


async def provider_only(turns: int) -> None:
    """The faux provider's own cost for the same responses (not loop overhead)."""
    from pi_app.ai.stream import stream
    from pi_app.ai.types import Context

    script(turns)
    model = faux_model()
    for _ in range(turns):
        await stream(model, Context(messages=[])).result()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--agent", action="store_true", help="drive the Agent class instead of the bare loop")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    runner = run_agent if args.agent else run_loop

    asyncio.run(runner(20))  # warm up imports and caches
    t0 = time.perf_counter()
    asyncio.run(provider_only(args.turns))
    provider_s = time.perf_counter() - t0

    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    t0 = time.perf_counter()
    events = asyncio.run(runner(args.turns))
    total_s = time.perf_counter() - t0
    if profiler:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)

    per_turn = total_s / args.turns * 1e6
    provider = provider_s / args.turns * 1e6
    loop_only = per_turn - provider
    print(f"{'agent' if args.agent else 'loop'}: {args.turns} turns x 3 tool calls, {events} events")
    print(f"total {per_turn:8.1f} us/turn  (faux provider {provider:6.1f} us/turn)")
    print(
        f"loop  {loop_only:8.1f} us/turn  budget {BUDGET_US:.0f} us -> {'OK' if loop_only < BUDGET_US else 'OVER'}"
    )


if __name__ == "__main__":
    main()
