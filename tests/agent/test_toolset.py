"""The tool-set log: replaying the transcript's system messages always yields the live tool set."""

from __future__ import annotations

import random
from typing import Any

from pi_app.agent import Agent, AgentState, NextTurn
from pi_app.agent.toolset import ToolSetLedger, declare_tool_changes
from pi_app.ai.providers.faux import faux_model, faux_text, faux_tool
from pi_app.ai.transcript import get_current_tools, to_tool_declaration
from pi_app.ai.types import AssistantMessage, SystemMessage, Tool, ToolReference, UserMessage, dump

from .helpers import echo_tool


def live_map(tools: list[Any]) -> dict[str, Any]:
    return {t.name: dump(to_tool_declaration(t)) for t in tools}


def replay_map(messages: list[Any]) -> dict[str, Any]:
    return {name: dump(tool) for name, tool in get_current_tools(messages).items()}


def strip_ts(message: Any) -> dict[str, Any]:
    data = dump(message)
    data.pop("timestamp", None)
    return data


def variants(rng: random.Random) -> list[Any]:
    """A pool of tools; some share a name with a different declaration (a redefinition)."""
    pool = []
    for name in ("read", "bash", "edit", "write", "grep"):
        for version in range(2):
            tool = echo_tool(name, {"type": "object", "properties": {f"p{version}": {"type": "string"}}})
            tool.description = f"{name} v{version}"
            pool.append(tool)
    rng.shuffle(pool)
    return pool


def random_tool_set(rng: random.Random, pool: list[Any], current: list[Any]) -> list[Any]:
    if rng.random() < 0.35:
        return current  # unchanged
    chosen: dict[str, Any] = {}
    for tool in rng.sample(pool, rng.randint(0, len(pool))):
        chosen.setdefault(tool.name, tool)
    return list(chosen.values())


def random_batch(rng: random.Random, pool: list[Any]) -> list[Any]:
    batch: list[Any] = []
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.4:
            intent = rng.sample(pool, rng.randint(0, 2))
            batch.append(
                SystemMessage(
                    content=rng.choice(["", "note"]),
                    toolsAdded=[to_tool_declaration(t) for t in intent] or None,
                    toolsRemoved=[ToolReference(name=t.name) for t in rng.sample(pool, rng.randint(0, 1))]
                    or None,
                )
            )
        else:
            batch.append(UserMessage(content="u"))
    return batch


def test_property_replay_equals_live_tools():
    rng = random.Random(1234)
    for _ in range(60):
        pool = variants(rng)
        ledger = ToolSetLedger()
        messages: list[Any] = []
        tools: list[Any] = []
        for _ in range(25):
            tools = random_tool_set(rng, pool, tools)
            batch = random_batch(rng, pool)
            before = replay_map(messages + batch)
            out = ledger.declare_tool_changes(messages, tools, batch)
            # the incremental ledger agrees with a fresh one-shot reconciliation
            fresh = declare_tool_changes(messages, tools, batch)
            assert [strip_ts(m) for m in out] == [strip_ts(m) for m in fresh]
            messages.extend(out)
            assert replay_map(messages) == live_map(tools)
            caller_tool_fields = any(
                getattr(m, "toolsAdded", None) or getattr(m, "toolsRemoved", None) for m in batch
            )
            if before == live_map(tools) and not caller_tool_fields:
                assert out is batch  # an unchanged set adds nothing
            non_system = [m for m in out if m.role != "system"]
            assert non_system == [m for m in batch if m.role != "system"]  # order of the rest kept
            if rng.random() < 0.5:
                messages.append(AssistantMessage(content=[]))
            # one more reconcile with nothing pending is always a no-op
            assert ledger.declare_tool_changes(messages, tools, []) == []


def test_delta_goes_into_last_pending_system_message_or_before_first_non_system():
    read, bash = echo_tool("read"), echo_tool("bash")
    u = UserMessage(content="hi")
    out = declare_tool_changes([], [read], [u])
    assert [m.role for m in out] == ["system", "user"]
    assert [t.name for t in out[0].toolsAdded] == ["read"] and out[0].toolsRemoved is None
    assert out[0].content == ""

    s1, s2 = SystemMessage(content="first"), SystemMessage(content="second")
    out = declare_tool_changes(out, [bash], [s1, u, s2])
    assert out[0] is s1 and out[1] is u and out[2].content == "second"
    assert [t.name for t in out[2].toolsAdded] == ["bash"]
    assert [r.name for r in out[2].toolsRemoved] == ["read"]
    assert s2.toolsAdded is None  # the caller's object is not mutated


def test_redefinition_is_removal_plus_addition():
    v1 = echo_tool("read")
    v2 = echo_tool("read", {"type": "object", "properties": {"path": {"type": "string"}}})
    first = declare_tool_changes([], [v1], [])
    out = declare_tool_changes(first, [v2], [])
    assert [r.name for r in out[0].toolsRemoved] == ["read"]
    assert [t.name for t in out[0].toolsAdded] == ["read"]
    assert out[0].toolsAdded[0].parameters["properties"] == {"path": {"type": "string"}}


def test_caller_intent_is_overwritten_by_reconciled_delta():
    read = echo_tool("read")
    intent = SystemMessage(content="x", toolsAdded=[Tool(name="bogus")])
    out = declare_tool_changes([], [read], [intent])
    assert [t.name for t in out[0].toolsAdded] == ["read"]
    # intent already matching the live set is rewritten to exactly the delta
    msgs = list(out)
    again = declare_tool_changes(
        msgs, [read], [SystemMessage(content="y", toolsAdded=[to_tool_declaration(read)])]
    )
    assert again[0].toolsAdded is None and again[0].toolsRemoved is None


async def test_agent_runs_persist_tool_log(faux):
    read, bash = echo_tool("read"), echo_tool("bash")
    agent = Agent(initial_state=AgentState(model=faux_model(), tools=[read]))
    faux.enqueue(faux_text("one"), faux_text("two"), faux_text("three"))
    await agent.prompt("a")
    await agent.prompt("b")  # unchanged tools: no new system message
    agent.set_tools([read, bash])
    await agent.prompt("c")
    roles = [m.role for m in agent.state.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "system", "user", "assistant"]
    assert [t.name for t in agent.state.messages[5].toolsAdded] == ["bash"]
    assert replay_map(agent.state.messages) == live_map([read, bash])
    # the provider received the system messages in place and the live tools at top level
    assert [m.role for m in faux.requests[2].messages][:2] == ["system", "user"]
    assert [t.name for t in faux.requests[2].tools] == ["read", "bash"]


async def test_property_tool_changes_between_turns_in_the_loop(faux):
    rng = random.Random(99)
    pool = variants(rng)
    seen_counts: list[int] = []

    async def prepare(turn):
        tools = random_tool_set(rng, pool, list(turn.context.tools or []))
        ctx = turn.context
        return NextTurn(context=type(ctx)(ctx.system_prompt, ctx.messages, tools))

    agent = Agent(initial_state=AgentState(model=faux_model(), tools=pool[:2]), prepare_next_turn=prepare)
    for _ in range(4):
        faux.enqueue(*[faux_tool("read", {}) for _ in range(5)], faux_text("done"))
        await agent.prompt("go")
        assert replay_map(agent.state.messages) == live_map(agent.state.tools)
        seen_counts.append(sum(1 for m in agent.state.messages if m.role == "system"))
    for request in faux.requests:
        # every request: the transcript replays to exactly the tools sent at top level
        assert replay_map(request.messages) == {t.name: dump(t) for t in request.tools or []}
    assert seen_counts[-1] > 1
