"""openai-responses against the loopback server: real SDK, real Responses SSE events."""

from __future__ import annotations

import asyncio
import json

from pi_app.ai.abort import AbortController
from pi_app.ai.overflow import is_context_overflow
from pi_app.ai.types import Context, SystemMessage, TextContent, Tool, ToolResultMessage, UserMessage
from tests.loopback.openai_wire import ResponsesWire, api_error
from tests.loopback.server import DROP, STALL_S, Pause, Scripted
from tests.providers_openai.helpers import make_model, run, types
from tests.waits import HANG_GUARD_S


def _model(url: str, **kw):
    kw.setdefault("reasoning", True)
    return make_model(url, api="openai-responses", provider="openai", **kw)


def _full_turn() -> ResponsesWire:
    return (
        ResponsesWire()
        .reasoning(["Plan ", "it."], ["Then act."], item_id="rs_1", encrypted="SECRET")
        .message("Look", "ing.", item_id="msg_1")
        .function_call("call_1", "fc_1", "read", '{"pa', 'th": "a.txt"}')
        .completed(input_tokens=1000, output_tokens=50, cached=200)
    )


async def test_reasoning_text_and_tool_call(loopback):
    loopback.add(_full_turn().scripted())
    events, msg = await run(_model(loopback.url), reasoning="medium")
    assert types(events)[:2] == ["start", "thinking_start"]
    assert types(events)[-1] == "done"
    thinking, text, call = msg.content
    assert thinking.thinking == "Plan it.\n\nThen act."
    # the streamed deltas add up to the final text
    assert "".join(e.delta for e in events if e.type == "thinking_delta") == thinking.thinking
    item = json.loads(thinking.thinkingSignature)
    assert item["type"] == "reasoning" and item["id"] == "rs_1" and item["encrypted_content"] == "SECRET"
    assert text.text == "Looking." and json.loads(text.textSignature) == {"v": 1, "id": "msg_1"}
    assert (call.id, call.name, call.arguments) == ("call_1|fc_1", "read", {"path": "a.txt"})
    assert msg.stopReason == "toolUse"
    assert (msg.usage.input, msg.usage.output, msg.usage.cacheRead) == (800, 50, 200)
    assert msg.responseId == "resp_1"
    assert msg.usage.cost.total > 0

    body = loopback.requests[0].json
    assert loopback.requests[0].path == "/v1/responses"
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False and body["stream"] is True


async def test_replay_of_encrypted_reasoning_and_ids(loopback):
    loopback.add(_full_turn().scripted(), ResponsesWire().message("done").completed().scripted())
    model = _model(loopback.url)
    tools = [Tool(name="read", description="Read")]
    _, first = await run(
        model, Context(systemPrompt="sys", messages=[UserMessage(content="go")], tools=tools)
    )
    result = ToolResultMessage(
        toolCallId=first.content[2].id, toolName="read", content=[TextContent(text="data")]
    )
    ctx = Context(systemPrompt="sys", messages=[UserMessage(content="go"), first, result], tools=tools)
    _, second = await run(model, ctx, reasoning="high", session_id="sess-1")
    assert second.stopReason == "stop" and second.content[0].text == "done"

    body = loopback.requests[1].json
    items = body["input"]
    assert items[0] == {"role": "developer", "content": "sys"}
    assert items[1] == {"role": "user", "content": [{"type": "input_text", "text": "go"}]}
    assert items[2]["type"] == "reasoning" and items[2]["encrypted_content"] == "SECRET"
    assert items[2]["summary"][0]["text"] == "Plan it."
    assert items[3]["type"] == "message" and items[3]["id"] == "msg_1"
    assert items[3]["content"] == [{"type": "output_text", "text": "Looking.", "annotations": []}]
    assert items[4] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read",
        "arguments": '{"path":"a.txt"}',
        "id": "fc_1",
    }
    assert items[5] == {"type": "function_call_output", "call_id": "call_1", "output": "data"}
    assert body["prompt_cache_key"] == "sess-1"
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
    ]


async def test_other_model_same_provider_drops_fc_item_ids(loopback):
    loopback.add(_full_turn().scripted(), ResponsesWire().message("ok").completed().scripted())
    _, first = await run(_model(loopback.url, id="gpt-5-mini"), reasoning="low")
    result = ToolResultMessage(
        toolCallId=first.content[2].id, toolName="read", content=[TextContent(text="d")]
    )
    await run(_model(loopback.url, id="gpt-5"), Context(messages=[UserMessage(content="go"), first, result]))
    call = next(i for i in loopback.requests[1].json["input"] if i.get("type") == "function_call")
    assert "id" not in call and call["call_id"] == "call_1"


async def test_juice_rule_for_gpt5_without_effort(loopback):
    loopback.add(
        ResponsesWire().message("a").completed().scripted(),
        ResponsesWire().message("b").completed().scripted(),
    )
    await run(_model(loopback.url, id="gpt-5.1"))
    body = loopback.requests[0].json
    assert "reasoning" not in body and "include" not in body
    assert body["input"][-1] == {
        "role": "developer",
        "content": [{"type": "input_text", "text": "# Juice: 0 !important"}],
    }
    await run(_model(loopback.url, id="o4-mini"))
    assert all("Juice" not in json.dumps(i) for i in loopback.requests[1].json["input"])


async def test_mid_conversation_system_message_and_system_role(loopback):
    loopback.add(ResponsesWire().message("ok").completed().scripted())
    msgs = [UserMessage(content="a"), SystemMessage(content="Switch to French."), UserMessage(content="b")]
    await run(_model(loopback.url, reasoning=False), Context(systemPrompt="sys", messages=msgs))
    items = loopback.requests[0].json["input"]
    assert items[0] == {"role": "system", "content": "sys"}
    assert items[2] == {"role": "system", "content": "Switch to French."}


async def test_incomplete_status_is_length(loopback):
    loopback.add(ResponsesWire().message("cut").completed(status="incomplete").scripted())
    _, msg = await run(_model(loopback.url))
    assert msg.stopReason == "length"


async def test_response_failed_and_error_event(loopback):
    loopback.add(
        ResponsesWire()
        .failed("context_length_exceeded", "Your input exceeds the context window of this model.")
        .scripted(),
        Scripted(
            chunks=ResponsesWire().emit("error", code="server_error", message="boom", param=None).frames()
        ),
    )
    _, msg = await run(_model(loopback.url))
    assert msg.stopReason == "error"
    assert msg.errorMessage == "context_length_exceeded: Your input exceeds the context window of this model."
    assert is_context_overflow(msg)
    _, msg = await run(_model(loopback.url))
    assert msg.errorMessage == "Error Code server_error: boom"


async def test_http_errors_not_retried(loopback):
    loopback.add(api_error(429, "Slow down"), ResponsesWire().message("never").completed().scripted())
    _, msg = await run(_model(loopback.url))
    assert msg.errorMessage == "429 Slow down" and len(loopback.requests) == 1
    loopback.script.clear()
    loopback.add(api_error(400, "Input exceeds the context window"))
    _, msg = await run(_model(loopback.url))
    assert msg.errorMessage.startswith("400 ") and is_context_overflow(msg)


async def test_drop_stall_and_abort(loopback):
    wire = ResponsesWire().message("partial")
    frames = wire.frames()
    loopback.add(Scripted(chunks=frames[:4] + [DROP]))
    _, msg = await run(_model(loopback.url))
    assert msg.stopReason == "error" and "Connection error" in msg.errorMessage

    loopback.add(Scripted(chunks=frames[:4] + [Pause(STALL_S)]))
    async with asyncio.timeout(HANG_GUARD_S):
        _, msg = await run(_model(loopback.url), idle_timeout_s=0.3)
    assert "timed out" in msg.errorMessage

    loopback.add(Scripted(chunks=frames[:4] + [Pause(STALL_S)]))
    ctrl = AbortController()
    asyncio.get_running_loop().call_later(0.2, ctrl.abort)
    async with asyncio.timeout(HANG_GUARD_S):
        events, msg = await run(_model(loopback.url), signal=ctrl.signal)
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert msg.stopReason == "aborted" and msg.content[0].text == "partial"
