"""The google-generative-ai provider (httpx2 + Gemini SSE) against the loopback server."""

from __future__ import annotations

import asyncio

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
from tests.loopback.google_wire import (
    call_part,
    chunk,
    gemini_error,
    gemini_ok,
    gemini_stream,
    gemini_text_stream,
    text_part,
    thought_part,
    usage,
)
from tests.loopback.server import DROP, STALL_S, Pause, Scripted
from tests.waits import HANG_GUARD_S

SIG = "c2lnbmF0dXJlLWJ5dGVz"  # valid base64


def _model(url: str, model_id: str = "gemini-2.5-pro", **kw) -> Model:
    return Model(
        id=model_id,
        api="google-generative-ai",
        provider="google",
        baseUrl=url + "/v1beta",
        reasoning=True,
        input=["text", "image"],
        cost=ModelCost(input=1.25, output=10, cacheRead=0.31),
        contextWindow=1048576,
        maxTokens=65536,
        **kw,
    )


def _ctx(*messages, system: str | None = "Be brief.", tools=None) -> Context:
    return Context(systemPrompt=system, messages=list(messages) or [UserMessage(content="hi")], tools=tools)


async def _run(model, ctx, **opts):
    opts.setdefault("api_key", "gem-key")
    events = [ev async for ev in stream(model, ctx, StreamOptions(**opts))]
    return events, events[-1].final


async def test_text_stream_usage_and_request_shape(loopback):
    loopback.add(
        Scripted(chunks=gemini_text_stream("Hello Gemini", prompt=100, candidates=20, thoughts=7, cached=40))
    )
    events, msg = await _run(_model(loopback.url), _ctx())
    assert [e.type for e in events] == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.stopReason == "stop" and msg.content[0].text == "Hello Gemini"
    assert msg.responseId == "resp_loopback_1"
    u = msg.usage
    assert (u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens) == (60, 27, 40, 0, 127)
    assert u.cost.total == pytest.approx((60 * 1.25 + 27 * 10 + 40 * 0.31) / 1e6)
    req = loopback.requests[0]
    assert req.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == "gem-key"
    body = req.json
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["generationConfig"] == {"maxOutputTokens": 32000}


async def test_thought_parts_signatures_and_replay(loopback):
    loopback.add(
        gemini_ok(
            chunk(thought_part("Thinking ")),
            chunk(thought_part("hard.", signature=SIG)),
            chunk(text_part("Answer", signature=SIG), finish="STOP", usage_meta=usage()),
        ),
        gemini_ok(chunk(text_part("ok"), finish="STOP")),
    )
    model = _model(loopback.url)
    events, msg = await _run(model, _ctx(), reasoning="medium")
    thinking, text = msg.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Thinking hard."
    assert thinking.thinkingSignature == SIG and text.textSignature == SIG
    assert [e.type for e in events][1:5] == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
    ]
    body = loopback.requests[0].json
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 8192}

    await _run(model, _ctx(UserMessage(content="q"), msg, UserMessage(content="more")), reasoning="medium")
    replay = loopback.requests[1].json["contents"][1]
    assert replay == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "Thinking hard.", "thoughtSignature": SIG},
            {"text": "Answer", "thoughtSignature": SIG},
        ],
    }


async def test_function_calls_ids_synthesised_and_tool_use(loopback):
    loopback.add(
        gemini_ok(
            chunk(text_part("Let me check.")),
            chunk(call_part("read", {"path": "a.txt"}, signature=SIG), call_part("bash", {"command": "ls"})),
            chunk(call_part("read", {"path": "b.txt"}, call_id="given_1")),
            chunk(finish="STOP", usage_meta=usage()),
        )
    )
    events, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "toolUse"
    calls = [c for c in msg.content if isinstance(c, ToolCall)]
    assert [(c.name, c.arguments) for c in calls] == [
        ("read", {"path": "a.txt"}),
        ("bash", {"command": "ls"}),
        ("read", {"path": "b.txt"}),
    ]
    assert calls[0].id.startswith("read_") and calls[1].id.startswith("bash_") and calls[0].id != calls[1].id
    assert calls[2].id == "given_1"
    assert calls[0].thoughtSignature == SIG
    assert [e.type for e in events].count("toolcall_end") == 3
    assert msg.content[0].text == "Let me check."


async def test_tool_results_and_images_in_request(loopback):
    loopback.add(gemini_ok(chunk(text_part("done"), finish="STOP")))
    tools = [Tool(name="read", description="Read", parameters={"type": "object", "properties": {"p": {}}})]
    call = ToolCall(id="c1", name="read", arguments={"p": "x"}, thoughtSignature=SIG)
    prior = AssistantMessage(
        content=[call],
        api="google-generative-ai",
        provider="google",
        model="gemini-2.5-pro",
        stopReason="toolUse",
    )
    result = ToolResultMessage(
        toolCallId="c1",
        toolName="read",
        content=[TextContent(text="contents"), ImageContent(data="QUJD", mimeType="image/png")],
    )
    user = UserMessage(content=[TextContent(text="look"), ImageContent(data="WFla", mimeType="image/jpeg")])
    await _run(_model(loopback.url), _ctx(user, prior, result, tools=tools), temperature=0.3)
    body = loopback.requests[0].json
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {"name": "read", "description": "Read", "parametersJsonSchema": tools[0].parameters}
            ]
        }
    ]
    assert body["generationConfig"]["temperature"] == 0.3
    c = body["contents"]
    assert c[0]["parts"][1] == {"inlineData": {"mimeType": "image/jpeg", "data": "WFla"}}
    assert c[1] == {
        "role": "model",
        "parts": [{"functionCall": {"name": "read", "args": {"p": "x"}}, "thoughtSignature": SIG}],
    }
    assert c[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read", "response": {"output": "contents"}}}],
    }
    # Gemini 2.5 gets tool-result images as a separate user turn
    assert c[3] == {
        "role": "user",
        "parts": [{"text": "Tool result image:"}, {"inlineData": {"mimeType": "image/png", "data": "QUJD"}}],
    }


async def test_cross_model_history_drops_signatures_and_gemini3_uses_skip_sentinel(loopback):
    loopback.add(gemini_ok(chunk(text_part("ok"), finish="STOP")))
    prior = AssistantMessage(
        content=[
            ThinkingContent(thinking="other model thought", thinkingSignature="xyz"),
            ToolCall(id="toolu_1", name="read", arguments={}),
        ],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        stopReason="toolUse",
    )
    result = ToolResultMessage(
        toolCallId="toolu_1", toolName="read", content=[TextContent(text="r")], isError=True
    )
    await _run(
        _model(loopback.url, "gemini-3-pro-preview"),
        _ctx(UserMessage(content="q"), prior, result),
        reasoning="low",
    )
    body = loopback.requests[0].json
    assert body["contents"][1]["parts"] == [
        {"text": "other model thought"},
        {
            "functionCall": {"name": "read", "args": {}},
            "thoughtSignature": "skip_thought_signature_validator",
        },
    ]
    assert body["contents"][2]["parts"][0]["functionResponse"]["response"] == {"error": "r"}
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "LOW"}


@pytest.mark.parametrize(
    ("model_id", "level", "budgets", "expected"),
    [
        ("gemini-3-flash-preview", "minimal", {}, {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-pro-preview", "xhigh", {}, {"thinkingLevel": "HIGH"}),
        ("gemini-2.5-flash", "high", {}, {"thinkingBudget": 24576}),
        ("gemini-2.5-flash", "low", {"low": 999}, {"thinkingBudget": 999}),
        ("gemini-2.0-flash-thinking", "medium", {}, {"thinkingBudget": -1}),
    ],
)
async def test_thinking_config_per_model(loopback, model_id, level, budgets, expected):
    loopback.add(gemini_ok(chunk(text_part("ok"), finish="STOP")))
    await _run(_model(loopback.url, model_id), _ctx(), reasoning=level, thinking_budgets=budgets)
    assert loopback.requests[0].json["generationConfig"]["thinkingConfig"] == {
        "includeThoughts": True,
        **expected,
    }


async def test_no_reasoning_sends_no_thinking_config(loopback):
    loopback.add(gemini_ok(chunk(text_part("ok"), finish="STOP")))
    await _run(_model(loopback.url), _ctx())
    assert "thinkingConfig" not in loopback.requests[0].json["generationConfig"]


@pytest.mark.parametrize(
    ("status", "status_name", "message"),
    [
        (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed",
        ),
        (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
        (500, "INTERNAL", "An internal error has occurred."),
    ],
)
async def test_http_errors(loopback, status, status_name, message):
    loopback.add(gemini_error(status, message, status_name), gemini_ok(chunk(text_part("no"), finish="STOP")))
    events, msg = await _run(_model(loopback.url), _ctx())
    assert [e.type for e in events] == ["start", "error"]
    assert msg.stopReason == "error" and msg.errorMessage == f"{status} {status_name}: {message}"
    assert len(loopback.requests) == 1


async def test_finish_reason_safety_is_an_error_and_max_tokens_is_length(loopback):
    loopback.add(
        gemini_ok(chunk(text_part("part")), chunk(finish="SAFETY")),
        gemini_ok(chunk(text_part("cut"), finish="MAX_TOKENS")),
    )
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and "SAFETY" in msg.errorMessage
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "length"


async def test_error_object_inside_the_stream(loopback):
    err = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    loopback.add(Scripted(chunks=gemini_stream(chunk(text_part("a")), err)))
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.errorMessage == "503 UNAVAILABLE: The model is overloaded."


async def test_dropped_connection_malformed_data_and_missing_finish(loopback):
    frames = gemini_stream(chunk(text_part("Hello ")), chunk(text_part("world"), finish="STOP"))
    loopback.add(
        Scripted(chunks=[frames[0], DROP]),
        Scripted(chunks=[frames[0], b"data: {not json\n\n", frames[1]]),
        Scripted(chunks=[frames[0]]),
    )
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and msg.errorMessage.startswith("Connection error:")
    assert msg.content[0].text == "Hello "
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and "Malformed stream data" in msg.errorMessage
    _, msg = await _run(_model(loopback.url), _ctx())
    assert msg.stopReason == "error" and "without a finish reason" in msg.errorMessage


async def test_idle_stall(loopback):
    frames = gemini_stream(chunk(text_part("Hello ")), chunk(text_part("world"), finish="STOP"))
    loopback.add(Scripted(chunks=[frames[0], Pause(STALL_S), frames[1]]))
    async with asyncio.timeout(HANG_GUARD_S):
        _, msg = await _run(_model(loopback.url), _ctx(), idle_timeout_s=0.3)
    assert msg.errorMessage.startswith("Stream stalled: no data for 0.3 s")


async def test_abort_mid_stream(loopback):
    frames = gemini_stream(chunk(text_part("Hello ")), chunk(text_part("world"), finish="STOP"))
    loopback.add(Scripted(chunks=[frames[0], Pause(STALL_S), frames[1]]))
    ctrl = AbortController()
    seen = []
    async with asyncio.timeout(HANG_GUARD_S):
        async for ev in stream(_model(loopback.url), _ctx(), StreamOptions(api_key="k", signal=ctrl.signal)):
            seen.append(ev)
            if ev.type == "text_delta":  # abort while the client waits on the stalled server
                asyncio.get_running_loop().call_later(0.05, ctrl.abort)
    msg = seen[-1].final
    assert msg.stopReason == "aborted" and msg.errorMessage == "Request was aborted"
    assert msg.content[0].text == "Hello "


async def test_headers_and_on_payload(loopback):
    loopback.add(gemini_ok(chunk(text_part("ok"), finish="STOP")))

    async def on_payload(payload, model):
        return {**payload, "safetySettings": []}

    model = _model(loopback.url, headers={"x-model": "m"})
    await _run(model, _ctx(), headers={"x-opt": "o"}, on_payload=on_payload)
    req = loopback.requests[0]
    assert req.headers["x-model"] == "m" and req.headers["x-opt"] == "o"
    assert req.json["safetySettings"] == []


async def test_api_key_from_environment(loopback, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "env-key")
    loopback.add(gemini_ok(chunk(text_part("ok"), finish="STOP")))
    _, msg = await _run(_model(loopback.url), _ctx(), api_key=None)
    assert msg.stopReason == "stop"
    assert loopback.requests[0].headers["x-goog-api-key"] == "env-key"
