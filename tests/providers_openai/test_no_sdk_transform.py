"""Structural guard (issue 15): the OpenAI adapters post their own JSON body and never run the SDK's
request-parameter transform, which walks every message with typing introspection (seconds on a
50,000-entry session).

The SDK's ``maybe_transform``/``async_maybe_transform`` look ``transform``/``async_transform`` up in
``openai._utils._transform`` at call time, so counting wrappers there see every transform a ``create``
call would run; the test uses the real SDK and the loopback server, and fails if an adapter goes back
to ``chat.completions.create(**kwargs)`` or ``responses.create(**kwargs)``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_app.ai.types import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, UserMessage
from tests.loopback.openai_wire import ResponsesWire, chat_text_stream
from tests.providers_openai.helpers import make_model, run


@pytest.fixture
def transform_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from openai._utils import _transform

    calls: list[str] = []
    real_sync, real_async = _transform.transform, _transform.async_transform

    def counting_sync(*args: Any, **kwargs: Any) -> Any:
        calls.append("transform")
        return real_sync(*args, **kwargs)

    async def counting_async(*args: Any, **kwargs: Any) -> Any:
        calls.append("async_transform")
        return await real_async(*args, **kwargs)

    monkeypatch.setattr(_transform, "transform", counting_sync)
    monkeypatch.setattr(_transform, "async_transform", counting_async)
    return calls


def _history() -> Context:
    call = ToolCall(id="call_1|fc_1", name="read", arguments={"path": "a.txt"})
    return Context(
        systemPrompt="be brief",
        messages=[
            UserMessage(content="read a.txt"),
            AssistantMessage(
                content=[TextContent(text="reading"), call],
                api="openai-completions",
                provider="custom",
                model="test-model",
                stopReason="toolUse",
            ),
            ToolResultMessage(toolCallId="call_1|fc_1", toolName="read", content=[TextContent(text="A")]),
            UserMessage(content=[TextContent(text="and now?")]),
        ],
    )


def test_counting_wrapper_sees_sdk_create(transform_calls: list[str]) -> None:
    """The probe itself works: the SDK's own parameter path goes through the patched function."""
    from openai._utils import maybe_transform
    from openai.types.chat import completion_create_params

    maybe_transform({"model": "m", "messages": []}, completion_create_params.CompletionCreateParamsStreaming)
    assert transform_calls == ["transform"]


async def test_completions_never_transform(loopback, transform_calls: list[str]) -> None:
    loopback.add(chat_text_stream("hello"))
    _, msg = await run(make_model(loopback.url), _history())
    assert msg.stopReason == "stop" and msg.content[0].text == "hello"
    assert loopback.requests[0].path == "/v1/chat/completions"
    assert len(loopback.requests[0].json["messages"]) == 5
    assert transform_calls == []


async def test_responses_never_transform(loopback, transform_calls: list[str]) -> None:
    loopback.add(ResponsesWire().message("hello").completed().scripted())
    model = make_model(loopback.url, api="openai-responses", provider="openai")
    _, msg = await run(model, _history())
    assert msg.stopReason == "stop" and msg.content[0].text == "hello"
    assert loopback.requests[0].path == "/v1/responses"
    assert transform_calls == []


async def _collect(params: dict[str, Any]) -> bytes:
    from pi_app.ai.providers.json_body import StreamedBody

    return b"".join([chunk async for chunk in StreamedBody(params)])


async def test_streamed_body_is_the_sdk_encoding_with_a_length() -> None:
    """The body streams in pieces (never one big str/bytes) yet is byte for byte the SDK's compact JSON."""
    import json

    from pi_app.ai.providers.json_body import StreamedBody

    params = {
        "model": "m",
        "messages": [{"role": "user", "content": 'é 😀 \u2028 "q" \\ \x01'}] * 3,
        "stream": True,
        "tools": [],
        "n": {"f": 2.5, "i": 10**20, "b": None},
    }
    body = await _collect(params)
    assert body == json.dumps(params, ensure_ascii=False, separators=(",", ":")).encode()
    assert StreamedBody(params).length == len(body)
    assert json.loads(await _collect({"x": float("nan")})) == {"x": None}  # as JSON.stringify


async def test_request_has_a_content_length_not_chunked(loopback) -> None:
    loopback.add(chat_text_stream("hello"))
    await run(make_model(loopback.url), _history())
    headers = loopback.requests[0].headers
    assert int(headers["content-length"]) == len(loopback.requests[0].body)
    assert "transfer-encoding" not in headers
