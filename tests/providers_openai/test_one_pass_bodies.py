"""The OpenAI bodies built in one pass (issue 15): message -> wire dict -> encoded bytes, each message
encoded once, never the transcript held as wire dicts; byte for byte the bodies the list-based builders
made (``completions_bodies.json`` and ``responses_bodies.json``, recorded from them, cover every message
kind and the compat flags and options that change the shape).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions, payload_hook_active
from pi_app.ai.providers import json_body
from pi_app.ai.providers import openai_completions_request as completions_request
from pi_app.ai.providers.json_body import EncodedArray, StreamedBody, encode_body
from pi_app.ai.providers.openai_completions_request import build_completions_body, build_completions_params
from pi_app.ai.providers.openai_responses import build_responses_body, build_responses_params
from pi_app.ai.types import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, UserMessage
from tests.loopback.openai_wire import ResponsesWire, chat_text_stream
from tests.providers_openai.body_cases import GOLDEN, RESPONSES_GOLDEN, cases, responses_cases
from tests.providers_openai.helpers import make_model, run

CASES = cases()
NAMES = [name for name, *_ in CASES]
RESPONSES = responses_cases()
RESPONSES_NAMES = [name for name, *_ in RESPONSES]


def _golden_bytes(name: str, golden_file: Any = GOLDEN) -> bytes:
    golden = json.loads(golden_file.read_text(encoding="utf-8"))[name]
    return json.dumps(golden, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("name", NAMES)
def test_one_pass_body_is_the_list_builders_body(name: str) -> None:
    _, model, ctx, opts = CASES[NAMES.index(name)]
    expected = _golden_bytes(name)
    params = build_completions_body(model, ctx, opts)
    assert type(params["messages"]) is EncodedArray
    body = StreamedBody(params)
    assert b"".join(body.pieces) == expected and body.length == len(expected)
    pieces = encode_body(build_completions_params(model, ctx, opts))  # the dict form hooks see: same bytes
    assert pieces is not None and b"".join(pieces) == expected


@pytest.mark.parametrize("name", RESPONSES_NAMES)
def test_one_pass_responses_body_is_the_list_builders_body(name: str) -> None:
    _, model, ctx, opts = RESPONSES[RESPONSES_NAMES.index(name)]
    expected = _golden_bytes(name, RESPONSES_GOLDEN)
    params = build_responses_body(model, ctx, opts)
    assert type(params["input"]) is EncodedArray
    assert b"".join(StreamedBody(params).pieces) == expected
    pieces = encode_body(build_responses_params(model, ctx, opts))
    assert pieces is not None and b"".join(pieces) == expected


def _long_history(turns: int) -> list[Any]:
    out: list[Any] = []
    for i in range(turns):
        call = ToolCall(id=f"call_{i}", name="read", arguments={"path": f"f{i}"})
        out += [
            UserMessage(content=f"question {i}"),
            AssistantMessage(
                content=[TextContent(text=f"answer {i}"), call],
                api="openai-completions",
                provider="custom",
                model="test-model",
                stopReason="toolUse",
            ),
            ToolResultMessage(toolCallId=call.id, toolName="read", content=[TextContent(text=f"r{i}")]),
        ]
    return out


def test_each_message_is_transformed_converted_and_encoded_before_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At every encode, the messages pulled from the transcript are at most a run (64) ahead of those
    encoded: no list of transformed messages or wire dicts is built. (The list builder, counted the same way,
    pulls all 1,500 before its first encode.)"""
    pulled = 0
    encoded: list[dict[str, Any]] = []
    gaps: list[int] = []
    real_iter = completions_request.iter_transformed_messages
    real_encode = json_body.encode_json

    def counting_iter(*args: Any, **kwargs: Any) -> Iterator[Any]:
        nonlocal pulled
        for msg in real_iter(*args, **kwargs):
            pulled += 1
            yield msg

    def counting_encode(value: Any) -> bytes:
        for item in value if isinstance(value, list) else [value]:  # (a run of an EncodedArray)
            if isinstance(item, dict) and "role" in item:
                encoded.append(item)
                gaps.append(pulled - len(encoded))
        return real_encode(value)

    monkeypatch.setattr(completions_request, "iter_transformed_messages", counting_iter)
    monkeypatch.setattr(json_body, "encode_json", counting_encode)
    ctx = Context(systemPrompt="s", messages=_long_history(500))
    model = make_model("http://x")

    StreamedBody(build_completions_body(model, ctx, StreamOptions()))
    # the system prompt, then every message, encoded a run at a time: never more than a run ahead
    assert len(encoded) == 1 + 1500 and max(gaps) <= json_body._RUN

    pulled, encoded[:], gaps[:] = 0, [], []
    encode_body(build_completions_params(model, ctx, StreamOptions()))
    assert len(encoded) == 1501 and max(gaps) == 1500 - 1  # the probe sees a list builder


async def test_streamed_body_sends_its_pieces_without_encoding_again(monkeypatch: pytest.MonkeyPatch) -> None:
    params = build_completions_body(
        make_model("http://x"), Context(messages=_long_history(50)), StreamOptions()
    )
    body = StreamedBody(params)

    def fail(value: Any) -> bytes:
        raise AssertionError("encoded twice")

    monkeypatch.setattr(json_body, "encode_json", fail)
    sent = b"".join([chunk async for chunk in body])
    assert len(sent) == body.length
    assert json.loads(sent)["messages"][0] == {"role": "user", "content": "question 0"}


def test_payload_hook_activity() -> None:
    def plain(params: dict[str, Any], model: Any) -> None:
        return None

    def idle(params: dict[str, Any], model: Any) -> None:
        return None

    idle.wants_payload = lambda: False  # type: ignore[attr-defined]
    assert not payload_hook_active(None)
    assert payload_hook_active(plain)  # a hook that does not say: it sees the body
    assert not payload_hook_active(idle)
    idle.wants_payload = lambda: True  # type: ignore[attr-defined]
    assert payload_hook_active(idle)


@pytest.mark.parametrize("active", [False, True])
async def test_request_on_the_wire_with_an_idle_or_active_hook(loopback, active: bool) -> None:
    """An idle hook is not called and the one-pass body goes out; an active one sees plain dicts. The
    bytes on the wire are the list builder's either way."""
    _, model, ctx, _ = CASES[NAMES.index("all-compat")]
    model = model.model_copy(update={"baseUrl": loopback.url + "/v1"})
    seen: list[Any] = []

    def hook(params: dict[str, Any], _model: Any) -> None:
        seen.append(type(params["messages"]))

    hook.wants_payload = lambda: active  # type: ignore[attr-defined]
    loopback.add(chat_text_stream("ok"))
    _, msg = await run(model, ctx, on_payload=hook)
    assert msg.stopReason == "stop"
    assert seen == ([list] if active else [])
    req = loopback.requests[0]
    assert req.body == _golden_bytes("all-compat")
    assert int(req.headers["content-length"]) == len(req.body)


def test_extension_payload_chain_is_idle_without_handlers() -> None:
    from pi_app.extensions.agent_hooks import chain_payload

    class NoHandlers:
        def has_handlers(self, event: str) -> bool:
            return False

    class PayloadHandler(NoHandlers):
        def has_handlers(self, event: str) -> bool:
            return event == "before_provider_request"

    def inner(params: dict[str, Any], model: Any) -> None:
        return None

    assert not payload_hook_active(chain_payload(NoHandlers(), None))  # type: ignore[arg-type]
    assert payload_hook_active(chain_payload(PayloadHandler(), None))  # type: ignore[arg-type]
    assert payload_hook_active(chain_payload(NoHandlers(), inner))  # type: ignore[arg-type]


async def test_responses_request_with_an_idle_hook_is_the_list_builders(loopback) -> None:
    _, model, ctx, opts = RESPONSES[RESPONSES_NAMES.index("default")]
    model = model.model_copy(update={"baseUrl": loopback.url + "/v1"})
    called: list[bool] = []

    def hook(params: dict[str, Any], _model: Any) -> None:
        called.append(True)

    hook.wants_payload = lambda: False  # type: ignore[attr-defined]
    loopback.add(ResponsesWire().message("hello").completed().scripted())
    _, msg = await run(model, ctx, on_payload=hook, session_id=opts.session_id)
    assert msg.stopReason == "stop" and called == []
    assert loopback.requests[0].body == _golden_bytes("default", RESPONSES_GOLDEN)
