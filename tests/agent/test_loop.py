"""Exact event sequences of the stateless loop (run_agent_loop / run_agent_loop_continue)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_app.agent import (
    AfterToolCallResult,
    AgentToolResult,
    BeforeToolCallResult,
    FunctionTool,
    NextTurn,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_app.agent.tool_exec import LENGTH_TEXT
from pi_app.ai.abort import AbortController
from pi_app.ai.providers.faux import FauxResponse, faux_model, faux_text, faux_tool, faux_tools
from pi_app.ai.types import AssistantMessage, TextContent, ToolResultMessage

from .helpers import OBJ, Recorder, config, context, echo_tool, sleeper, user

PROMPT = ["agent_start", "turn_start", "message_start:system", "message_end:system"]
PROMPT_NO_TOOLS = ["agent_start", "turn_start"]


def texts(msg: ToolResultMessage) -> str:
    return "".join(c.text for c in msg.content)


async def test_text_only_exact_sequence(faux):
    faux.enqueue(faux_text("hello there"))
    rec = Recorder()
    out = await run_agent_loop([user("hi")], context(), config(), rec)
    assert rec.trace(updates=True) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "update:text_start",
        "update:text_delta",
        "update:text_delta",
        "update:text_end",
        "message_end:assistant",
        "turn_end:stop:0",
        "agent_end",
    ]
    assert [m.role for m in out] == ["user", "assistant"]
    assert rec.events[-1].messages == out
    assert out[1].content[0].text == "hello there"
    # the request saw the system prompt and the prompt, and no tools
    req = faux.requests[0]
    assert req.systemPrompt == "You are a test." and req.tools is None
    assert [m.role for m in req.messages] == ["user"]


async def test_event_json_shapes(faux):
    faux.enqueue(faux_tool("echo", {"a": 1}))
    faux.enqueue(faux_text("ok"))
    rec = Recorder()
    await run_agent_loop([user("hi")], context(echo_tool()), config(), rec)
    shapes = [e.to_json() for e in rec.events]
    json.dumps(shapes)  # everything is JSON-serialisable
    update = next(s for s in shapes if s["type"] == "message_update")
    assert set(update) == {"type", "message", "assistantMessageEvent"}
    assert update["message"]["role"] == "assistant"
    start = next(s for s in shapes if s["type"] == "tool_execution_start")
    assert start == {
        "type": "tool_execution_start",
        "toolCallId": "faux_call_1",
        "toolName": "echo",
        "args": {"a": 1},
    }
    end = next(s for s in shapes if s["type"] == "tool_execution_end")
    assert end["isError"] is False and end["result"]["details"] == {"a": 1}
    assert end["result"]["content"] == [{"type": "text", "text": "echo:{'a': 1}"}]
    turn_end = next(s for s in shapes if s["type"] == "turn_end")
    assert turn_end["toolResults"][0]["role"] == "toolResult"
    assert shapes[-1]["type"] == "agent_end" and len(shapes[-1]["messages"]) == 5


async def test_one_tool_exact_sequence(faux):
    faux.enqueue(faux_tool("echo", {"x": 1}), faux_text("done"))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(echo_tool()), config(), rec)
    assert rec.trace() == PROMPT + [
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "tool_execution_start:echo:faux_call_1",
        "tool_execution_end:echo:faux_call_1",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end:toolUse:1",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:stop:0",
        "agent_end",
    ]
    assert [m.role for m in out] == ["system", "user", "assistant", "toolResult", "assistant"]
    assert [t.name for t in faux.requests[0].tools] == ["echo"]
    # second request carries the tool result after the assistant call
    assert [m.role for m in faux.requests[1].messages] == ["system", "user", "assistant", "toolResult"]


async def test_parallel_end_in_completion_order_results_in_call_order(faux):
    log: list[str] = []
    faux.enqueue(faux_tools(("slow", {}), ("fast", {}), ("mid", {})), faux_text("done"))
    ctx = context(sleeper("slow", 0.06, log), sleeper("fast", 0.0, log), sleeper("mid", 0.03, log))
    rec = Recorder()
    out = await run_agent_loop([user("go")], ctx, config(), rec)
    body = rec.trace()[len(PROMPT) + 4 : -5]
    assert body == [
        "tool_execution_start:slow:faux_call_1",
        "tool_execution_start:fast:faux_call_2",
        "tool_execution_start:mid:faux_call_3",
        "tool_execution_end:fast:faux_call_2",
        "tool_execution_end:mid:faux_call_3",
        "tool_execution_end:slow:faux_call_1",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end:toolUse:3",
    ]
    # all three started before any finished: they ran concurrently
    assert log[:3] == ["start:slow", "start:fast", "start:mid"]
    results = [m for m in out if m.role == "toolResult"]
    assert [r.toolName for r in results] == ["slow", "fast", "mid"]
    result_events = [e.message.toolName for e in rec.of("message_end") if e.message.role == "toolResult"]
    assert result_events == ["slow", "fast", "mid"]


async def test_sequential_mode_runs_one_after_another(faux):
    log: list[str] = []
    faux.enqueue(faux_tools(("slow", {}), ("fast", {})), faux_text("done"))
    rec = Recorder()
    ctx = context(sleeper("slow", 0.03, log), sleeper("fast", 0.0, log))
    await run_agent_loop([user("go")], ctx, config(tool_execution="sequential"), rec)
    assert log == ["start:slow", "end:slow", "start:fast", "end:fast"]
    assert rec.trace()[len(PROMPT) + 4 : -5] == [
        "tool_execution_start:slow:faux_call_1",
        "tool_execution_end:slow:faux_call_1",
        "message_start:toolResult",
        "message_end:toolResult",
        "tool_execution_start:fast:faux_call_2",
        "tool_execution_end:fast:faux_call_2",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end:toolUse:2",
    ]


async def test_a_sequential_tool_forces_sequential_batch(faux):
    log: list[str] = []
    faux.enqueue(faux_tools(("slow", {}), ("fast", {})), faux_text("done"))
    ctx = context(sleeper("slow", 0.03, log, execution_mode="sequential"), sleeper("fast", 0.0, log))
    await run_agent_loop([user("go")], ctx, config(), Recorder())
    assert log == ["start:slow", "end:slow", "start:fast", "end:fast"]


async def test_blocked_call_default_and_custom_reason(faux):
    faux.enqueue(faux_tools(("echo", {"n": 1}), ("echo", {"n": 2})), faux_text("done"))
    calls: list[Any] = []

    async def before(ctx, signal):
        calls.append(ctx.args)
        if ctx.args["n"] == 1:
            return BeforeToolCallResult(block=True)
        return {"block": True, "reason": "not allowed here"}

    rec = Recorder()
    out = await run_agent_loop([user("go")], context(echo_tool()), config(before_tool_call=before), rec)
    results = [m for m in out if m.role == "toolResult"]
    assert [texts(r) for r in results] == ["Tool execution was blocked", "not allowed here"]
    assert all(r.isError for r in results)
    assert calls == [{"n": 1}, {"n": 2}]
    assert len(faux.requests) == 2  # blocked calls do not terminate the run


async def test_terminate_only_when_every_result_terminates(faux):
    async def final(call_id, params, signal, on_update):
        return AgentToolResult(content=[TextContent(text="bye")], terminate=True)

    stop = FunctionTool("stop", "ends the run", OBJ, final)
    # mixed batch: one terminates, one does not -> the loop continues
    faux.enqueue(faux_tools(("stop", {}), ("echo", {})), faux_text("continued"))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(stop, echo_tool()), config(), rec)
    assert len(faux.requests) == 2 and out[-1].role == "assistant"

    # all terminate -> no further request; agent_end right after turn_end
    faux.reset()
    faux.enqueue(faux_tools(("stop", {}), ("stop", {})))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(stop), config(), rec)
    assert len(faux.requests) == 1
    assert rec.trace()[-2:] == ["turn_end:toolUse:2", "agent_end"]
    assert out[-1].role == "toolResult"


async def test_blocked_terminate_and_after_hook_override(faux):
    async def before(ctx, signal):
        return BeforeToolCallResult(block=True, reason="stop now", terminate=True)

    faux.enqueue(faux_tool("echo", {}))
    out = await run_agent_loop(
        [user("go")], context(echo_tool()), config(before_tool_call=before), Recorder()
    )
    assert len(faux.requests) == 1 and texts(out[-1]) == "stop now"

    faux.reset()
    seen: list[Any] = []

    def after(ctx, signal):  # sync hooks are fine too
        seen.append((ctx.is_error, texts(ctx.result), ctx.args))
        return AfterToolCallResult(details={"patched": True}, is_error=True, terminate=True)

    faux.enqueue(faux_tool("echo", {"k": "v"}))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(echo_tool()), config(after_tool_call=after), rec)
    result = out[-1]
    assert seen == [(False, "echo:{'k': 'v'}", {"k": "v"})]
    assert texts(result) == "echo:{'k': 'v'}"  # content kept
    assert result.details == {"patched": True} and result.isError is True
    assert rec.of("tool_execution_end")[0].is_error is True
    assert len(faux.requests) == 1  # terminate override ended the run


async def test_after_hook_exception_becomes_error_result(faux):
    def after(ctx, signal):
        raise RuntimeError("hook broke")

    faux.enqueue(faux_tool("echo", {}), faux_text("ok"))
    out = await run_agent_loop([user("go")], context(echo_tool()), config(after_tool_call=after), Recorder())
    result = next(m for m in out if m.role == "toolResult")
    assert result.isError and texts(result) == "hook broke"


async def test_invalid_arguments_exact_text(faux):
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
        "required": ["path"],
        "additionalProperties": False,
    }
    ran: list[Any] = []

    async def run(call_id, params, signal, on_update):
        ran.append(params)
        return AgentToolResult.text("read")

    tool = FunctionTool("read", "reads", schema, run)
    faux.enqueue(
        faux_tool("read", {"limit": 0, "extra": True}), faux_tool("read", {"path": "a", "limit": "5"})
    )
    faux.enqueue(faux_text("done"))
    out = await run_agent_loop([user("go")], context(tool), config(), Recorder())
    results = [m for m in out if m.role == "toolResult"]
    assert texts(results[0]) == (
        'Validation failed for tool "read":\n'
        "  - path: must have required property 'path'\n"
        "  - root: must NOT have additional properties\n"
        "  - limit: must be >= 1\n"
        "\n"
        "Received arguments:\n"
        '{\n  "limit": 0,\n  "extra": true\n}'
    )
    assert results[0].isError
    # coercion: "5" became 5 and the tool ran with coerced args; the transcript keeps the raw call
    assert ran == [{"path": "a", "limit": 5}]
    assert not results[1].isError
    assert out[4].content[0].arguments == {"path": "a", "limit": "5"}


async def test_prepare_arguments_runs_before_validation(faux):
    schema = {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}
    got: list[Any] = []

    class Legacy(FunctionTool):
        def prepare_arguments(self, raw):
            return {"paths": [raw["path"]]} if "path" in raw else raw

    async def run(call_id, params, signal, on_update):
        got.append(params)
        return AgentToolResult.text("ok")

    faux.enqueue(faux_tool("ls", {"path": "x"}), faux_text("done"))
    await run_agent_loop([user("go")], context(Legacy("ls", "lists", schema, run)), config(), Recorder())
    assert got == [{"paths": ["x"]}]


async def test_unknown_tool_and_raising_tool(faux):
    async def boom(call_id, params, signal, on_update):
        raise ValueError("disk on fire")

    faux.enqueue(faux_tools(("nope", {}), ("boom", {})), faux_text("recovered"))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(FunctionTool("boom", "fails", OBJ, boom)), config(), rec)
    results = [m for m in out if m.role == "toolResult"]
    assert [texts(r) for r in results] == ["Tool nope not found", "disk on fire"]
    assert all(r.isError for r in results) and results[0].details == {}
    assert out[-1].content[0].text == "recovered"
    ends = rec.of("tool_execution_end")
    assert [e.is_error for e in ends] == [True, True]


async def test_length_stop_does_not_execute_calls(faux):
    ran: list[str] = []

    async def run(call_id, params, signal, on_update):
        ran.append(call_id)
        return AgentToolResult.text("ran")

    faux.enqueue(faux_tool("write", {"content": "trunc"}, stop_reason="length"), faux_text("retry later"))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(FunctionTool("write", "w", OBJ, run)), config(), rec)
    assert ran == []
    result = next(m for m in out if m.role == "toolResult")
    assert texts(result) == LENGTH_TEXT.format(name="write")
    assert texts(result).startswith(
        'Tool call "write" was not executed: the response hit the output token limit'
    )
    assert result.isError and len(faux.requests) == 2


async def test_tool_updates_are_forwarded_and_late_updates_dropped(faux):
    keep: list[Any] = []

    async def run(call_id, params, signal, on_update):
        on_update(AgentToolResult.text("a"))
        await asyncio.sleep(0)
        on_update(AgentToolResult.text("ab"))
        keep.append(on_update)
        return AgentToolResult.text("abc")

    faux.enqueue(faux_tool("stream", {}), faux_text("done"))
    rec = Recorder()
    await run_agent_loop([user("go")], context(FunctionTool("stream", "s", OBJ, run)), config(), rec)
    keep[0](AgentToolResult.text("late"))  # after the tool settled: ignored
    await asyncio.sleep(0.01)
    updates = rec.of("tool_execution_update")
    assert [u.partial_result.content[0].text for u in updates] == ["a", "ab"]
    kinds = rec.trace()
    assert kinds.index("tool_execution_update:stream:faux_call_1") < kinds.index(
        "tool_execution_end:stream:faux_call_1"
    )
    # pi 0.73.1 leaves out ``details`` when a tool gave none (JSON.stringify drops undefined)
    assert updates[0].to_json()["partialResult"] == {"content": [{"type": "text", "text": "a"}]}


async def test_abort_during_streaming(faux):
    controller = AbortController()
    faux.enqueue(FauxResponse(steps=faux_text("x" * 200).steps, delay_s=0.01, chunk_size=4))
    rec = Recorder()

    async def emit(event):
        await rec(event)
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            controller.abort()

    out = await run_agent_loop([user("go")], context(), config(), emit, controller.signal)
    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:aborted:0",
        "agent_end",
    ]
    assert out[-1].stopReason == "aborted" and len(out[-1].content[0].text) < 200
    assert faux.options[0].signal is controller.signal


async def test_abort_during_tool(faux):
    controller = AbortController()
    faux.enqueue(faux_tools(("wait", {}), ("wait", {})), faux_text("never finished"))
    rec = Recorder()

    async def emit(event):
        await rec(event)
        if event.type == "tool_execution_start" and event.tool_call_id == "faux_call_2":
            asyncio.get_running_loop().call_later(0.02, controller.abort)

    ctx = context(sleeper("wait", 5.0))
    out = await asyncio.wait_for(run_agent_loop([user("go")], ctx, config(), emit, controller.signal), 2)
    results = [m for m in out if m.role == "toolResult"]
    assert [texts(r) for r in results] == ["Operation aborted", "Operation aborted"]
    # Both calls settle with abort results; the next request sees the aborted signal and ends the run.
    assert rec.trace()[len(PROMPT) + 4 :] == [
        "tool_execution_start:wait:faux_call_1",
        "tool_execution_start:wait:faux_call_2",
        "tool_execution_end:wait:faux_call_1",
        "tool_execution_end:wait:faux_call_2",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end:toolUse:2",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:aborted:0",
        "agent_end",
    ]
    assert out[-1].role == "assistant" and out[-1].stopReason == "aborted"


async def test_provider_error_ends_run(faux):
    from pi_app.ai.providers.faux import faux_error

    faux.enqueue(faux_error("rate limited"))
    rec = Recorder()
    out = await run_agent_loop([user("go")], context(), config(), rec)
    assert rec.trace()[-3:] == ["message_end:assistant", "turn_end:error:0", "agent_end"]
    assert out[-1].errorMessage == "rate limited"


async def test_continue_rules_at_loop_level(faux):
    with pytest.raises(ValueError, match="Cannot continue: no messages in context"):
        await run_agent_loop_continue(context(), config(), Recorder())
    last_assistant = [user("q"), AssistantMessage(content=[TextContent(text="a")])]
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        await run_agent_loop_continue(context(messages=last_assistant), config(), Recorder())

    faux.enqueue(faux_text("answer"))
    rec = Recorder()
    out = await run_agent_loop_continue(context(messages=[user("q")]), config(), rec)
    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end:stop:0",
        "agent_end",
    ]
    assert [m.role for m in out] == ["assistant"]


async def test_steering_and_follow_up_hooks_in_loop(faux):
    steering = [[], [user("steer-1")], [], []]
    follow = [[user("follow-1")], []]
    faux.enqueue(faux_tool("echo", {}), faux_text("after steer"), faux_text("after follow"))
    rec = Recorder()
    cfg = config(
        get_steering_messages=lambda: steering.pop(0) if steering else [],
        get_follow_up_messages=lambda: follow.pop(0) if follow else [],
    )
    out = await run_agent_loop([user("go")], context(echo_tool()), cfg, rec)
    roles = [(m.role, getattr(m, "content", None) if m.role == "user" else None) for m in out]
    assert [r for r, _ in roles] == [
        "system", "user", "assistant", "toolResult", "user", "assistant", "user", "assistant"
    ]  # fmt: skip
    assert out[4].content == "steer-1" and out[6].content == "follow-1"
    assert len(faux.requests) == 3


async def test_should_stop_after_turn_skips_queue_polling(faux):
    polled: list[str] = []
    faux.enqueue(faux_tool("echo", {}))
    cfg = config(
        should_stop_after_turn=lambda turn: turn.message.stopReason == "toolUse",
        get_steering_messages=lambda: polled.append("steer") or [],
        get_follow_up_messages=lambda: polled.append("follow") or [],
    )
    rec = Recorder()
    await run_agent_loop([user("go")], context(echo_tool()), cfg, rec)
    assert polled == ["steer"]  # only the initial poll
    assert rec.trace()[-2:] == ["turn_end:toolUse:1", "agent_end"]
    assert len(faux.requests) == 1


async def test_prepare_next_turn_swaps_model_and_thinking(faux):
    seen: list[tuple[str, str]] = []

    async def prepare(turn):
        seen.append((turn.model.id, turn.thinking_level))
        return NextTurn(model=faux_model("faux-2"), thinking_level="high")

    faux.enqueue(faux_tool("echo", {}), faux_text("from faux-2"))
    out = await run_agent_loop(
        [user("go")],
        context(echo_tool()),
        config(prepare_next_turn=prepare, thinking_level="low"),
        Recorder(),
    )
    assert seen == [("faux-1", "low")]
    assistants = [m for m in out if m.role == "assistant"]
    assert [a.model for a in assistants] == ["faux-1", "faux-2"]
    assert [o.reasoning for o in faux.options] == ["low", "high"]


async def test_get_api_key_and_transform_context(faux):
    seen: list[int] = []

    async def transform(messages, signal):
        seen.append(len(messages))
        return [m for m in messages if m.role != "system"]

    faux.enqueue(faux_text("ok"))
    cfg = config(
        get_api_key=lambda provider: f"key-for-{provider}", transform_context=transform, api_key="fallback"
    )
    await run_agent_loop([user("go")], context(echo_tool()), cfg, Recorder())
    assert faux.options[0].api_key == "key-for-faux"
    assert seen == [2] and [m.role for m in faux.requests[0].messages] == ["user"]
    # tools still reach the provider even when the system messages were filtered out
    assert [t.name for t in faux.requests[0].tools] == ["echo"]


async def test_caller_context_is_not_mutated(faux):
    faux.enqueue(faux_text("ok"))
    ctx = context(echo_tool(), messages=[user("old")])
    await run_agent_loop([user("new")], ctx, config(), Recorder())
    assert [m.content for m in ctx.messages] == ["old"]


async def test_sequential_abort_skips_remaining_calls(faux):
    controller = AbortController()
    ran: list[str] = []

    async def first(call_id, params, signal, on_update):
        ran.append(call_id)
        controller.abort()
        return AgentToolResult.text("first done")

    faux.enqueue(faux_tools(("first", {}), ("first", {})), faux_text("unused"))
    rec = Recorder()
    ctx = context(FunctionTool("first", "f", OBJ, first))
    out = await run_agent_loop([user("go")], ctx, config(tool_execution="sequential"), rec, controller.signal)
    assert ran == ["faux_call_1"]
    results = [m for m in out if m.role == "toolResult"]
    assert [texts(r) for r in results] == ["first done", "Operation aborted"]
    assert [r.isError for r in results] == [False, True]
    assert out[-1].stopReason == "aborted"


async def test_agent_loop_event_stream(faux):
    from pi_app.agent.loop import agent_loop, agent_loop_continue

    faux.enqueue(faux_tool("echo", {}), faux_text("done"))
    stream = agent_loop([user("go")], context(echo_tool()), config())
    kinds = [e.type async for e in stream]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"
    out = await stream.result()
    assert [m.role for m in out] == ["system", "user", "assistant", "toolResult", "assistant"]
    with pytest.raises(ValueError, match="Cannot continue: no messages in context"):
        agent_loop_continue(context(), config())
