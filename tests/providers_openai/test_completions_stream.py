"""openai-completions against the loopback server: real SDK, real Chat Completions SSE."""

from __future__ import annotations

import asyncio

from pi_app.ai.abort import AbortController
from pi_app.ai.overflow import is_context_overflow
from tests.loopback.openai_wire import (
    api_error,
    chat_chunk,
    chat_frames,
    chat_stream,
    chat_text_stream,
    chat_usage,
    tool_delta,
)
from tests.loopback.server import DROP, STALL_S, Pause, Scripted
from tests.providers_openai.helpers import make_model, run, types
from tests.waits import HANG_GUARD_S


async def test_text_stream_events_usage_and_cost(loopback):
    loopback.add(chat_text_stream("Hel", "lo", usage=chat_usage(1000, 200, cached=400)))
    events, msg = await run(make_model(loopback.url))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hel", "lo"]
    assert events[4].content == "Hello"
    assert msg.stopReason == "stop" and msg.content[0].text == "Hello"
    assert (msg.usage.input, msg.usage.output, msg.usage.cacheRead) == (600, 200, 400)
    assert msg.usage.totalTokens == 1200
    # $/Mtok: 600*1 + 200*2 + 400*0.5 = 1200 micro-dollars
    assert abs(msg.usage.cost.total - 0.0012) < 1e-12
    assert msg.api == "openai-completions" and msg.provider == "custom" and msg.model == "test-model"
    req = loopback.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer test-key"


async def test_reasoning_fields_become_thinking(loopback):
    loopback.add(
        chat_stream(
            chat_chunk({"reasoning_content": "let me "}),
            chat_chunk({"reasoning_content": "think"}),
            chat_chunk({"content": "answer"}),
            chat_chunk({}, "stop"),
        ),
        chat_stream(
            chat_chunk({"reasoning": "alt"}), chat_chunk({"reasoning_text": "x"}), chat_chunk({}, "stop")
        ),
    )
    events, msg = await run(make_model(loopback.url, reasoning=True))
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    assert msg.content[0].thinking == "let me think"
    assert msg.content[0].thinkingSignature == "reasoning_content"
    assert msg.content[1].text == "answer"
    _, msg2 = await run(make_model(loopback.url, reasoning=True))
    assert msg2.content[0].thinking == "altx"
    assert msg2.content[0].thinkingSignature == "reasoning"


async def test_parallel_tool_calls_split_arguments_and_synthesised_id(loopback):
    loopback.add(
        chat_stream(
            chat_chunk({"content": "Running two."}),
            chat_chunk(tool_delta(0, id="call_a", name="read", args="")),
            chat_chunk(tool_delta(1, name="bash", args='{"comm')),  # server omitted the id
            chat_chunk(tool_delta(0, args='{"path": "a')),
            chat_chunk(tool_delta(1, args='and": "ls"}')),
            chat_chunk(tool_delta(0, args='.txt"}')),
            chat_chunk({}, "tool_calls"),
            chat_chunk(usage=chat_usage(10, 5), choices=False),
        )
    )
    events, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "toolUse"
    text, a, b = msg.content
    assert text.text == "Running two."
    assert (a.id, a.name, a.arguments) == ("call_a", "read", {"path": "a.txt"})
    assert b.name == "bash" and b.arguments == {"command": "ls"}
    assert b.id.startswith("call_") and b.id != a.id
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [e.toolCall.name for e in ends] == ["read", "bash"]
    # partial arguments are parsed while streaming
    partials = [e for e in events if e.type == "toolcall_delta" and e.contentIndex == 1]
    assert partials[0].partial is not None


async def test_index_reused_with_new_id_starts_new_call(loopback):
    loopback.add(
        chat_stream(
            chat_chunk(tool_delta(0, id="c1", name="a", args="{}")),
            chat_chunk(tool_delta(0, id="c2", name="b", args='{"x":1}')),
            chat_chunk({}, "tool_calls"),
        )
    )
    _, msg = await run(make_model(loopback.url))
    assert [(c.id, c.name, c.arguments) for c in msg.content] == [("c1", "a", {}), ("c2", "b", {"x": 1})]


async def test_finish_reasons(loopback):
    loopback.add(
        chat_text_stream("cut", finish="length"),
        chat_text_stream("bad", finish="content_filter"),
        chat_text_stream("", finish="model_context_window_exceeded"),
    )
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "length"
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "error" and "content_filter" in msg.errorMessage
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "error" and is_context_overflow(msg)


async def test_http_400_message_reaches_error_and_matches_overflow(loopback):
    loopback.add(api_error(400, "This model's maximum context length is 128000 tokens. Please reduce it."))
    events, msg = await run(make_model(loopback.url))
    assert types(events) == ["start", "error"]
    assert msg.stopReason == "error"
    assert msg.errorMessage.startswith("400 ")
    assert "maximum context length is 128000 tokens" in msg.errorMessage
    assert is_context_overflow(msg)


async def test_http_429_is_not_retried(loopback):
    loopback.add(api_error(429, "Rate limit reached for requests"), chat_text_stream("never"))
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "error"
    assert "429" in msg.errorMessage and "Rate limit reached" in msg.errorMessage
    assert len(loopback.requests) == 1


async def test_http_500_plain_text_and_empty_body(loopback):
    loopback.add(
        Scripted(status=500, headers={"content-type": "text/plain"}, chunks=[b"upstream exploded"]),
        Scripted(status=413, headers={"content-type": "application/json"}, chunks=[]),
    )
    _, msg = await run(make_model(loopback.url))
    assert msg.errorMessage == "500 upstream exploded"
    assert len(loopback.requests) == 1
    _, msg = await run(make_model(loopback.url))
    assert msg.errorMessage == "413 status code (no body)"
    assert is_context_overflow(msg)  # Cerebras-style overflow


async def test_error_frame_inside_stream(loopback):
    loopback.add(
        chat_stream(chat_chunk({"content": "a"}), {"error": {"message": "overloaded", "code": "busy"}})
    )
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "error" and "overloaded" in msg.errorMessage


async def test_connection_dropped_mid_stream(loopback):
    loopback.add(Scripted(chunks=chat_frames(chat_chunk({"content": "partial"}), done=False) + [DROP]))
    events, msg = await run(make_model(loopback.url))
    assert events[-1].type == "error"
    assert msg.stopReason == "error"
    assert "Connection error" in msg.errorMessage
    assert msg.content[0].text == "partial"  # what arrived is kept


async def test_malformed_sse(loopback):
    loopback.add(Scripted(chunks=[b"data: {not json\n\n"]))
    _, msg = await run(make_model(loopback.url))
    assert msg.stopReason == "error" and "Malformed" in msg.errorMessage


async def test_idle_stall_fails_in_bounded_time(loopback):
    loopback.add(Scripted(chunks=chat_frames(chat_chunk({"content": "a"}), done=False) + [Pause(STALL_S)]))
    async with asyncio.timeout(HANG_GUARD_S):
        _, msg = await run(make_model(loopback.url), idle_timeout_s=0.3)
    assert msg.stopReason == "error"
    assert "timed out" in msg.errorMessage and "0.3" in msg.errorMessage


async def test_abort_mid_stream(loopback):
    loopback.add(Scripted(chunks=chat_frames(chat_chunk({"content": "a"}), done=False) + [Pause(STALL_S)]))
    ctrl = AbortController()
    from pi_app.ai import stream
    from pi_app.ai.options import StreamOptions
    from tests.providers_openai.helpers import user_ctx

    s = stream(make_model(loopback.url), user_ctx(), StreamOptions(api_key="k", signal=ctrl.signal))
    seen = []
    async with asyncio.timeout(HANG_GUARD_S):
        async for ev in s:
            seen.append(ev.type)
            if ev.type == "text_delta":  # abort while the client waits on the stalled server
                asyncio.get_running_loop().call_later(0.05, ctrl.abort)
    msg = await s.result()
    assert seen[-1] == "error"
    assert msg.stopReason == "aborted" and msg.errorMessage == "Request was aborted"
    assert msg.content[0].text == "a"


async def test_abort_before_response(loopback):
    loopback.add(Scripted(chunks=[Pause(STALL_S)]))
    ctrl = AbortController()
    asyncio.get_running_loop().call_later(0.1, ctrl.abort)
    async with asyncio.timeout(HANG_GUARD_S):
        _, msg = await run(make_model(loopback.url), signal=ctrl.signal)
    assert msg.stopReason == "aborted"


async def test_missing_api_key_is_an_error_event(loopback):
    events, msg = await run(make_model(loopback.url), api_key=None)
    assert types(events) == ["start", "error"]
    assert msg.errorMessage == "No API key for provider: custom"
    assert loopback.requests == []


async def test_openrouter_raw_metadata_is_appended(loopback):
    loopback.add(api_error(400, "Provider returned error", metadata={"raw": "upstream: prompt is too long"}))
    _, msg = await run(make_model(loopback.url))
    assert msg.errorMessage == "400 Provider returned error\nupstream: prompt is too long"
    assert is_context_overflow(msg)


async def test_encrypted_reasoning_details_attach_to_tool_call_and_replay(loopback):
    detail = {"type": "reasoning.encrypted", "id": "call_1", "data": "ENC"}
    loopback.add(
        chat_stream(
            chat_chunk(tool_delta(0, id="call_1", name="t", args="{}")),
            chat_chunk({"reasoning_details": [detail]}),
            chat_chunk({}, "tool_calls"),
        ),
        chat_text_stream("ok"),
    )
    from pi_app.ai.types import Context, TextContent, ToolResultMessage, UserMessage

    model = make_model(loopback.url)
    _, msg = await run(model)
    call = msg.content[0]
    assert call.thoughtSignature is not None and '"ENC"' in call.thoughtSignature
    result = ToolResultMessage(toolCallId="call_1", toolName="t", content=[TextContent(text="r")])
    await run(model, Context(messages=[UserMessage(content="hi"), msg, result]))
    sent = loopback.requests[1].json["messages"][1]
    assert sent["reasoning_details"] == [detail]
