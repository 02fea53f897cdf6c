"""The stateful Agent: state reduction, single run, queues, continue rules, listeners, failures."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_app.agent import Agent, AgentState, AgentToolResult, FunctionTool, NextTurn
from pi_app.agent.agent import BUSY_PROMPT
from pi_app.ai.providers.faux import FauxResponse, faux_error, faux_model, faux_text, faux_tool, faux_tools
from pi_app.ai.types import AssistantMessage, TextContent, ToolResultMessage, UserMessage

from .helpers import OBJ, echo_tool, trace


def make_agent(*tools: Any, **kw: Any) -> tuple[Agent, list[Any]]:
    agent = Agent(initial_state=AgentState(model=faux_model(), system_prompt="sys", tools=list(tools)), **kw)
    events: list[Any] = []
    agent.subscribe(events.append)
    return agent, events


def user_texts(agent: Agent) -> list[str]:
    out = []
    for m in agent.state.messages:
        if m.role == "user":
            out.append(
                m.content
                if isinstance(m.content, str)
                else "".join(getattr(c, "text", "") for c in m.content)
            )
    return out


async def test_prompt_reduces_state_from_events(faux):
    agent, events = make_agent(echo_tool())
    snapshots: list[tuple[str, bool, Any, frozenset[str]]] = []

    def watch(event):
        s = agent.state
        snapshots.append((event.type, s.is_streaming, s.streaming_message, s.pending_tool_calls))

    agent.subscribe(watch)
    faux.enqueue(faux_tool("echo", {"a": 1}), faux_text("done"))
    await agent.prompt("hello")
    assert [m.role for m in agent.state.messages] == [
        "system",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    first_user = agent.state.messages[1]
    assert first_user.content == [TextContent(text="hello")]
    assert not agent.state.is_streaming and agent.state.streaming_message is None
    assert agent.state.pending_tool_calls == frozenset()
    by_type = {t: (streaming, msg, pending) for t, streaming, msg, pending in snapshots}
    assert by_type["tool_execution_start"][2] == {"faux_call_1"}
    assert by_type["tool_execution_end"][2] == frozenset()
    assert all(streaming for _, streaming, _, _ in snapshots)  # idle only after agent_end listeners
    update = next(s for s in snapshots if s[0] == "message_update")
    assert isinstance(update[2], AssistantMessage)
    assert trace(events)[0] == "agent_start" and trace(events)[-1] == "agent_end"


async def test_prompt_accepts_message_list_and_images(faux):
    from pi_app.ai.types import ImageContent

    agent, _ = make_agent()
    faux.enqueue(faux_text("a"), faux_text("b"))
    await agent.prompt("look", images=[ImageContent(data="AAAA", mimeType="image/png")])
    assert agent.state.messages[0].content[1].type == "image"
    await agent.prompt([UserMessage(content="x"), UserMessage(content="y")])
    assert user_texts(agent)[-2:] == ["x", "y"]


async def test_second_prompt_while_running_raises(faux):
    started, release = asyncio.Event(), asyncio.Event()

    async def wait(call_id, params, signal, on_update):
        started.set()
        await release.wait()
        return AgentToolResult.text("waited")

    agent, _ = make_agent(FunctionTool("wait", "waits for the test", OBJ, wait))
    faux.enqueue(faux_tool("wait", {}), faux_text("done"))
    task = asyncio.create_task(agent.prompt("first"))
    await started.wait()  # mid-run: the tool holds it until released
    assert agent.state.is_streaming
    with pytest.raises(RuntimeError) as exc:
        await agent.prompt("second")
    assert str(exc.value) == BUSY_PROMPT
    assert BUSY_PROMPT.startswith("Agent is already processing a prompt. Use steer() or followUp()")
    with pytest.raises(RuntimeError, match="Wait for completion before continuing"):
        await agent.continue_()
    release.set()
    await agent.wait_for_idle()
    assert task.done() and not agent.state.is_streaming
    await task


async def test_steering_during_tool_batch_lands_before_next_request(faux):
    agent, events = make_agent()

    async def slow(call_id, params, signal, on_update):
        if call_id == "faux_call_1":
            agent.steer("change of plan")
        await asyncio.sleep(0.02)
        return AgentToolResult.text("slow")

    agent.set_tools([FunctionTool("slow", "s", OBJ, slow), echo_tool()])
    faux.enqueue(faux_tools(("slow", {}), ("echo", {})), faux_text("ok"))
    await agent.prompt("start")
    roles = [m.role for m in agent.state.messages]
    # both tools of the batch ran; the steering message came after the results, before the next request
    assert roles == ["system", "user", "assistant", "toolResult", "toolResult", "user", "assistant"]
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert not any(r.isError for r in results)
    assert user_texts(agent) == ["start", "change of plan"]
    assert [m.role for m in faux.requests[1].messages][-3:] == ["toolResult", "toolResult", "user"]
    t = trace(events)
    assert t.index("turn_end:toolUse:2") < t.index("message_start:user", 5)


async def test_follow_up_runs_when_agent_would_stop(faux):
    agent, events = make_agent()

    def queue_follow_up(event):
        if event.type == "message_start" and event.message.role == "assistant" and len(faux.requests) == 1:
            agent.follow_up("and then?")

    agent.subscribe(queue_follow_up)
    faux.enqueue(faux_text("first answer"), faux_text("second answer"))
    await agent.prompt("q")
    assert user_texts(agent) == ["q", "and then?"]
    assert [e.type for e in events].count("agent_end") == 1
    assert len(faux.requests) == 2 and not agent.has_queued_messages()


@pytest.mark.parametrize("mode", ["one-at-a-time", "all"])
async def test_queue_modes(faux, mode):
    agent, _ = make_agent(steering_mode=mode, follow_up_mode=mode)
    agent.steer("s1")
    agent.steer("s2")
    agent.follow_up("f1")
    agent.follow_up("f2")
    assert agent.has_queued_messages()
    faux.responder = lambda ctx: faux_text("ok")
    await agent.prompt("p")
    # requests: which user messages were new in each request
    seen = []
    prev = 0
    for request in faux.requests:
        users = [m for m in request.messages if m.role == "user"]
        seen.append(
            [
                "".join(c.text for c in u.content) if not isinstance(u.content, str) else u.content
                for u in users[prev:]
            ]
        )
        prev = len(users)
    if mode == "all":
        assert seen == [["p", "s1", "s2"], ["f1", "f2"]]
    else:
        assert seen == [["p", "s1"], ["s2"], ["f1"], ["f2"]]
    assert not agent.has_queued_messages()


async def test_clear_queues():
    agent, _ = make_agent()
    agent.steer("a")
    agent.follow_up("b")
    agent.clear_steering_queue()
    assert agent.follow_up_queue and not agent.steering_queue
    agent.steer("c")
    agent.clear_all_queues()
    assert not agent.has_queued_messages()


async def test_continue_rules(faux):
    agent, events = make_agent()
    with pytest.raises(RuntimeError, match="No messages to continue from"):
        await agent.continue_()

    # last message user (e.g. after an error that was dropped): a plain continue
    agent.replace_messages([UserMessage(content="retry me")])
    faux.enqueue(faux_text("answer"))
    await agent.continue_()
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]  # no tools: no tool log

    # last message assistant, nothing queued
    with pytest.raises(RuntimeError, match="Cannot continue from message role: assistant"):
        await agent.continue_()

    # last message assistant with queued steering: drains one batch and skips the initial poll
    agent.steer("steer-a")
    agent.steer("steer-b")
    faux.enqueue(faux_text("r1"), faux_text("r2"))
    await agent.continue_()
    assert user_texts(agent)[-2:] == ["steer-a", "steer-b"]
    assert len(faux.requests) == 3  # one request each, never two steering messages in one drain

    # last message assistant with a queued follow-up
    agent.follow_up("more")
    faux.enqueue(faux_text("r3"))
    await agent.continue_()
    assert user_texts(agent)[-1] == "more" and agent.state.messages[-1].role == "assistant"

    # last message a tool result: continue asks the model again
    agent.append_message(
        ToolResultMessage(toolCallId="x", toolName="echo", content=[TextContent(text="r")], isError=False)
    )
    faux.enqueue(faux_text("after tool"))
    await agent.continue_()
    assert agent.state.messages[-1].content[0].text == "after tool"


async def test_continue_from_user_does_not_add_a_prompt(faux):
    agent, events = make_agent()
    agent.replace_messages([UserMessage(content="q")])
    faux.enqueue(faux_text("a"))
    await agent.continue_()
    assert trace(events) == [
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:stop:0",
        "agent_end",
    ]


async def test_abort_during_streaming_and_error_state(faux):
    agent, events = make_agent()

    def on_event(event):
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            agent.abort()

    agent.subscribe(on_event)
    faux.enqueue(FauxResponse(steps=faux_text("y" * 100).steps, delay_s=0.01, chunk_size=2))
    await agent.prompt("go")
    last = agent.state.messages[-1]
    assert last.stopReason == "aborted"
    assert agent.state.error_message == last.errorMessage
    assert trace(events)[-3:] == ["message_end:assistant", "turn_end:aborted:0", "agent_end"]

    faux.enqueue(faux_error("boom"))
    await agent.prompt("again")
    assert agent.state.error_message == "boom"
    faux.enqueue(faux_text("fine"))
    await agent.prompt("third")
    assert agent.state.error_message is None


async def test_abort_during_tool_reaches_the_tool(faux):
    agent, events = make_agent()
    got_signal: list[Any] = []

    async def wait(call_id, params, signal, on_update):
        got_signal.append(signal)
        agent.abort()
        await signal.wait()
        raise RuntimeError("Operation aborted")

    agent.set_tools([FunctionTool("wait", "w", OBJ, wait)])
    faux.enqueue(faux_tool("wait", {}), faux_text("unused"))
    await asyncio.wait_for(agent.prompt("go"), 2)
    assert got_signal[0].aborted
    result = next(m for m in agent.state.messages if m.role == "toolResult")
    assert result.isError and result.content[0].text == "Operation aborted"
    assert agent.state.messages[-1].stopReason == "aborted"
    assert agent.signal is None and not agent.state.is_streaming


async def test_async_listeners_awaited_in_order_before_idle(faux):
    agent, _ = make_agent()
    log: list[str] = []

    async def slow_listener(event, signal):
        if event.type == "agent_end":
            await asyncio.sleep(0.02)
            log.append(f"slow:{signal is not None}:{agent.state.is_streaming}")

    def second(event):
        if event.type == "agent_end":
            log.append("second")

    agent.subscribe(slow_listener)
    unsubscribe = agent.subscribe(second)
    faux.enqueue(faux_text("x"), faux_text("y"))
    await agent.prompt("go")
    assert log == ["slow:True:True", "second"]
    unsubscribe()
    await agent.prompt("again")
    assert log == ["slow:True:True", "second", "slow:True:True"]


async def test_unexpected_exception_produces_synthetic_error(faux):
    agent, events = make_agent()

    def broken_convert(messages):
        raise RuntimeError("converter exploded")

    agent.convert_to_llm = broken_convert
    await agent.prompt("go")
    last = agent.state.messages[-1]
    assert last.role == "assistant" and last.stopReason == "error"
    assert last.errorMessage == "converter exploded" and last.content == []
    assert last.usage.totalTokens == 0
    assert agent.state.error_message == "converter exploded"
    assert trace(events)[-4:] == [
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:error:0",
        "agent_end",
    ]
    assert events[-1].messages == [last]
    assert not agent.state.is_streaming
    # the agent is usable again
    agent.convert_to_llm = lambda ms: [
        m for m in ms if m.role in ("user", "assistant", "toolResult", "system")
    ]
    faux.enqueue(faux_text("ok"))
    await agent.prompt("again")
    assert agent.state.messages[-1].content[0].text == "ok"


async def test_prepare_next_turn_swaps_agent_model(faux):
    agent, _ = make_agent(echo_tool(), prepare_next_turn=lambda turn: NextTurn(model=faux_model("faux-big")))
    faux.enqueue(faux_tool("echo", {}), faux_text("done"))
    await agent.prompt("go")
    assert [m.model for m in agent.state.messages if m.role == "assistant"] == ["faux-1", "faux-big"]
    assert agent.state.model.id == "faux-big"


async def test_reset_and_setters():
    agent, _ = make_agent(echo_tool())
    agent.append_message(UserMessage(content="x"))
    agent.steer("s")
    agent.set_thinking_level("high")
    agent.set_system_prompt("new")
    agent.reset()
    assert agent.state.messages == [] and not agent.has_queued_messages()
    assert agent.state.thinking_level == "high" and agent.state.system_prompt == "new"
    with pytest.raises(RuntimeError, match="No model configured"):
        await Agent().prompt("hi")
