"""The anthropic-messages provider against the loopback server, through the real ``anthropic`` SDK."""

from __future__ import annotations

import asyncio
import json

import pytest

from pi_app.ai.abort import AbortController
from pi_app.ai.options import StreamOptions
from pi_app.ai.stream import stream
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.loopback.anthropic_wire import (
    anthropic_error,
    anthropic_events,
    anthropic_ok,
    anthropic_stream,
    anthropic_text_stream,
    message_start,
    redacted_thinking_block,
    text_block,
    thinking_block,
    tool_use_block,
)
from tests.loopback.server import DROP, STALL_S, Pause, Scripted, sse
from tests.waits import HANG_GUARD_S


def _model(url: str, model_id: str = "claude-sonnet-4-5", **kw) -> Model:
    return Model(
        id=model_id,
        api="anthropic-messages",
        provider="anthropic",
        baseUrl=url,
        reasoning=True,
        input=["text", "image"],
        cost=ModelCost(input=3, output=15, cacheRead=0.3, cacheWrite=3.75),
        contextWindow=200000,
        maxTokens=64000,
        **kw,
    )


def _ctx(*messages, system: str | None = "You are helpful.", tools=None) -> Context:
    return Context(systemPrompt=system, messages=list(messages) or [UserMessage(content="hi")], tools=tools)


async def _run(model, ctx, **opts):
    opts.setdefault("api_key", "sk-ant-api-test")
    events = [ev async for ev in stream(model, ctx, StreamOptions(**opts))]
    return events, events[-1].final


async def test_text_stream_usage_cost_and_response_id(loopback):
    loopback.add(
        Scripted(
            chunks=anthropic_text_stream("Hello there", input_tokens=100, output_tokens=20, cache_read=50)
        )
    )
    events, msg = await _run(_model(loopback.url), _ctx())
    types = [e.type for e in events]
    assert types[0] == "start" and types[-1] == "done"
    assert types[1:-1] == ["text_start", "text_delta", "text_delta", "text_end"]
    assert msg.stopReason == "stop" and msg.content[0].text == "Hello there"
    assert msg.responseId == "msg_loopback_1"
    u = msg.usage
    assert (u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens) == (100, 20, 50, 0, 170)
    assert u.cost.total == pytest.approx((100 * 3 + 20 * 15 + 50 * 0.3) / 1e6)
    req = loopback.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["authorization"] == "Bearer sk-ant-api-test"
    assert req.headers["x-api-key"] == "sk-ant-api-test"  # Anthropic-compatible servers need it
    assert req.headers["anthropic-beta"] == (
        "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14"
    )


async def test_thinking_signature_and_redacted_thinking_replayed_exactly(loopback):
    signature = "EqQBCkYIARgCKkD+/abc==" * 3
    loopback.add(
        anthropic_ok(
            thinking_block(0, "Let me think.", signature),
            redacted_thinking_block(1, "REDACTED-PAYLOAD"),
            text_block(2, "Answer"),
        ),
        anthropic_ok(text_block(0, "ok")),
    )
    model = _model(loopback.url)
    events, msg = await _run(model, _ctx(), reasoning="low")
    thinking, redacted, text = msg.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me think."
    assert thinking.thinkingSignature == signature
    assert redacted.redacted is True and redacted.thinkingSignature == "REDACTED-PAYLOAD"
    assert text.text == "Answer"
    assert [e.type for e in events if e.type.startswith("thinking")] == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "thinking_start",
        "thinking_end",
    ]

    follow_up = _ctx(UserMessage(content="q"), msg, UserMessage(content="next"))
    await _run(model, follow_up, reasoning="low")
    replayed = loopback.requests[1].json["messages"][1]
    assert replayed["role"] == "assistant"
    assert replayed["content"][0] == {"type": "thinking", "thinking": "Let me think.", "signature": signature}
    assert replayed["content"][1] == {"type": "redacted_thinking", "data": "REDACTED-PAYLOAD"}
    assert replayed["content"][2] == {"type": "text", "text": "Answer"}


async def test_parallel_tool_calls_with_split_json_arguments(loopback):
    loopback.add(
        anthropic_ok(
            text_block(0, "Reading both."),
            tool_use_block(1, "toolu_01", "read", {"path": "a.txt", "limit": 10}, parts=5),
            tool_use_block(2, "toolu_02", "bash", {"command": "ls -la", "nested": {"x": [1, 2]}}, parts=4),
            stop_reason="tool_use",
        )
    )
    events, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "toolUse"
    calls = [c for c in msg.content if isinstance(c, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("toolu_01", "read", {"path": "a.txt", "limit": 10}),
        ("toolu_02", "bash", {"command": "ls -la", "nested": {"x": [1, 2]}}),
    ]
    deltas = [e for e in events if e.type == "toolcall_delta" and e.contentIndex == 1]
    assert len(deltas) == 5
    assert "".join(e.delta for e in deltas) == json.dumps({"path": "a.txt", "limit": 10})
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [e.toolCall.id for e in ends] == ["toolu_01", "toolu_02"]


async def test_stop_reason_mapping(loopback):
    loopback.add(
        anthropic_ok(text_block(0, "cut"), stop_reason="max_tokens"),
        anthropic_ok(text_block(0, "no"), stop_reason="refusal"),
    )
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "length"
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and "refusal" in msg.errorMessage


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
        (500, "api_error", "Internal server error"),
    ],
)
async def test_http_errors_become_error_events_without_sdk_retries(loopback, status, kind, message):
    loopback.add(anthropic_error(status, message, kind), anthropic_ok(text_block(0, "should not be fetched")))
    events, msg = await _run(_model(loopback.url), _ctx())
    assert [e.type for e in events] == ["start", "error"]
    assert msg.stopReason == "error"
    assert msg.errorMessage == f"{status} {kind}: {message}"
    assert len(loopback.requests) == 1  # max_retries=0: the session layer owns retries


async def test_error_event_inside_stream(loopback):
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    loopback.add(Scripted(chunks=sse(message_start(), *text_block(0, "par"), ("error", body))))
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and msg.errorMessage == "overloaded_error: Overloaded"
    assert msg.content[0].text == "par"  # partial output is kept


async def test_connection_dropped_mid_stream(loopback):
    frames = anthropic_stream(text_block(0, "Hello world, this is long"))
    loopback.add(Scripted(chunks=[*frames[:4], DROP]))
    events, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error"
    assert msg.errorMessage.startswith("Connection error:")
    assert msg.content[0].text.startswith("Hello")


async def test_stream_ending_without_message_stop_is_an_error(loopback):
    frames = anthropic_stream(text_block(0, "Hello"))
    loopback.add(Scripted(chunks=frames[:-2]))
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and "message_stop" in msg.errorMessage


async def test_malformed_sse_data(loopback):
    frames = anthropic_stream(text_block(0, "Hello"))
    loopback.add(
        Scripted(chunks=[*frames[:3], b"event: content_block_delta\ndata: {garbage\n\n", *frames[3:]])
    )
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error"
    assert "Malformed stream data" in msg.errorMessage


async def test_idle_stall_fails_within_bounded_time(loopback):
    frames = anthropic_stream(text_block(0, "Hello world"))
    loopback.add(Scripted(chunks=[*frames[:4], Pause(STALL_S), *frames[4:]]))
    async with asyncio.timeout(HANG_GUARD_S):
        _, msg = await _run(_model(loopback.url), _ctx(), idle_timeout_s=0.3)
    assert msg.stopReason == "error"
    assert msg.errorMessage.startswith("Stream stalled: no data for 0.3 s")


async def test_abort_mid_stream(loopback):
    frames = anthropic_stream(text_block(0, "Hello world"))
    loopback.add(Scripted(chunks=[*frames[:4], Pause(STALL_S), *frames[4:]]))
    ctrl = AbortController()
    seen = []
    async with asyncio.timeout(HANG_GUARD_S):
        async for ev in stream(_model(loopback.url), _ctx(), StreamOptions(api_key="k", signal=ctrl.signal)):
            seen.append(ev)
            if ev.type == "text_delta":  # abort while the client waits on the stalled server
                asyncio.get_running_loop().call_later(0.05, ctrl.abort)
    msg = seen[-1].final
    assert seen[-1].type == "error" and msg.stopReason == "aborted"
    assert msg.errorMessage == "Request was aborted"
    assert msg.content[0].text == "Hello "


async def test_missing_api_key(loopback):
    _, msg = await _run(_model(loopback.url), _ctx(), api_key=None)
    assert msg.stopReason == "error" and msg.errorMessage == "No API key for provider: anthropic"
    assert loopback.requests == []


# ---------------------------------------------------------------- request bodies
async def test_request_body_system_tools_cache_and_tool_results(loopback):
    loopback.add(anthropic_ok(text_block(0, "ok")))
    tools = [
        Tool(
            name="read",
            description="Read a file",
            parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        )
    ]
    prior = AssistantMessage(
        content=[ToolCall(id="call:1|weird/id", name="read", arguments={"path": "a"})],
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stopReason="toolUse",
    )
    result = ToolResultMessage(
        toolCallId="call:1|weird/id",
        toolName="read",
        content=[TextContent(text="file body"), ImageContent(data="QUJD", mimeType="image/png")],
    )
    ctx = _ctx(UserMessage(content="read a"), prior, result, tools=tools)
    await _run(_model(loopback.url), ctx, temperature=0.2, metadata={"user_id": "u1"})
    body = loopback.requests[0].json
    assert body["system"] == [
        {"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]
    # thinking off on a reasoning model is said explicitly, as pi 1.6 does; temperature is then allowed
    assert body["temperature"] == 0.2 and body["thinking"] == {"type": "disabled"}
    assert body["metadata"] == {"user_id": "u1"}
    assert body["max_tokens"] == 32000
    tool_use = body["messages"][1]["content"][0]
    assert tool_use["type"] == "tool_use" and tool_use["id"] == "call_1_weird_id"
    tool_result = body["messages"][2]["content"][0]
    assert tool_result["tool_use_id"] == "call_1_weird_id"
    assert tool_result["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": "QUJD",
    }
    assert tool_result["cache_control"] == {"type": "ephemeral"}  # last user turn carries the mark


async def test_cache_retention_none_and_long(loopback, monkeypatch):
    loopback.add(anthropic_ok(text_block(0, "a")), anthropic_ok(text_block(0, "b")))
    await _run(_model(loopback.url), _ctx(), cache_retention="none")
    assert "cache_control" not in json.dumps(loopback.requests[0].json)
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    await _run(_model(loopback.url), _ctx())
    # ttl 1h only applies to api.anthropic.com; elsewhere long retention is plain ephemeral
    assert loopback.requests[1].json["system"][0]["cache_control"] == {"type": "ephemeral"}


async def test_thinking_params_budget_model(loopback):
    loopback.add(anthropic_ok(text_block(0, "a")), anthropic_ok(text_block(0, "b")))
    model = _model(loopback.url, "claude-sonnet-4-5")
    await _run(model, _ctx(), reasoning="medium", temperature=0.5)
    body = loopback.requests[0].json
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] == 32000 + 8192 and "temperature" not in body
    await _run(model, _ctx(), reasoning="high", thinking_budgets={"high": 3000}, max_tokens=1000)
    body = loopback.requests[1].json
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 3000} and body["max_tokens"] == 4000


async def test_thinking_params_adaptive_model(loopback):
    loopback.add(anthropic_ok(text_block(0, "a")), anthropic_ok(text_block(0, "b")))
    await _run(_model(loopback.url, "claude-opus-4-6"), _ctx(), reasoning="xhigh")
    req = loopback.requests[0]
    assert req.json["thinking"] == {"type": "adaptive"}
    assert req.json["output_config"] == {"effort": "max"}
    assert req.headers["anthropic-beta"] == "fine-grained-tool-streaming-2025-05-14"
    await _run(_model(loopback.url, "claude-sonnet-4-6"), _ctx(), reasoning="xhigh")
    assert loopback.requests[1].json["output_config"] == {"effort": "high"}


async def test_oauth_token_uses_bearer_claude_code_identity_and_tool_casing(loopback):
    loopback.add(anthropic_ok(tool_use_block(0, "toolu_9", "Read", {"path": "x"}), stop_reason="tool_use"))
    tools = [Tool(name="read", description="Read", parameters={"type": "object", "properties": {}})]
    model = _model(loopback.url, headers={"x-model-header": "m"})
    _, msg = await _run(model, _ctx(tools=tools), api_key="sk-ant-oat01-secret", headers={"x-opt": "o"})
    req = loopback.requests[0]
    assert req.headers["authorization"] == "Bearer sk-ant-oat01-secret"
    assert "x-api-key" not in req.headers
    assert req.headers["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20,")
    assert req.headers["user-agent"].startswith("claude-cli/") and req.headers["x-app"] == "cli"
    assert req.headers["x-model-header"] == "m" and req.headers["x-opt"] == "o"
    system = req.json["system"]
    assert system[0]["text"] == "You are Claude Code, Anthropic's official CLI for Claude."
    assert system[1]["text"] == "You are helpful."
    assert req.json["tools"][0]["name"] == "Read"
    assert msg.content[0].name == "read"  # mapped back to our tool's casing


async def test_on_payload_can_replace_the_body(loopback):
    loopback.add(anthropic_ok(text_block(0, "ok")))
    seen = {}

    def on_payload(payload, model):
        seen["model"] = model.id
        return {**payload, "max_tokens": 7}

    await _run(_model(loopback.url), _ctx(), on_payload=on_payload)
    assert seen["model"] == "claude-sonnet-4-5"
    assert loopback.requests[0].json["max_tokens"] == 7


async def test_unknown_event_and_block_types_are_ignored(loopback):
    server_tool = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
    }
    events = anthropic_events(text_block(1, "done"))
    events.insert(2, ("content_block_start", server_tool))
    events.insert(3, ("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.insert(4, ("future_event", {"type": "future_event"}))
    loopback.add(Scripted(chunks=sse(*events)))
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "stop" and [c.type for c in msg.content] == ["text"]


async def test_retry_after_header_is_reported(loopback):
    loopback.add(anthropic_error(429, "slow down", "rate_limit_error", **{"retry-after": "30"}))
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.errorMessage == "429 rate_limit_error: slow down (retry-after: 30)"


async def test_non_json_error_body(loopback):
    loopback.add(
        Scripted(status=502, headers={"content-type": "text/html"}, chunks=[b"<html>Bad gateway</html>"])
    )
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.errorMessage == "502 <html>Bad gateway</html>"
