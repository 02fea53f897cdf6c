"""The Anthropic body built in one pass (issue 15: a 50,000-entry resume over Anthropic): each message is
transformed, converted and encoded as it comes, the cache mark put on the last one, and the bytes are the
dict-built body's (what a payload hook sees) encoded whole. A long transcript is split over two cores with
the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers import anthropic as anthropic_provider
from pi_app.ai.providers import anthropic_request, split_build
from pi_app.ai.providers.anthropic_request import build_encoded_payload, build_payload, normalize_tool_call_id
from pi_app.ai.providers.json_body import EncodedArray, encode_body, encode_json
from pi_app.ai.transcript import resolve_transcript, supports_mid_convo_system
from pi_app.ai.transform import transform_messages
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    parse_message,
)
from tests.loopback.anthropic_wire import anthropic_ok, text_block
from tests.loopback.body_route import send

CLAUDE = Model(
    id="claude-sonnet-4-5",
    api="anthropic-messages",
    provider="anthropic",
    baseUrl="",
    input=["text", "image"],
)


def _dict_body(model: Model, ctx: Context, options: StreamOptions, oauth: bool) -> bytes:
    transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
    messages = transform_messages(transcript.messages, model, normalize_tool_call_id)
    return encode_json(build_payload(model, transcript, messages, options, oauth))


def _one_pass_body(model: Model, ctx: Context, options: StreamOptions, oauth: bool) -> bytes:
    transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
    payload = build_encoded_payload(model, transcript, options, oauth)
    assert type(payload["messages"]) is EncodedArray
    pieces = encode_body(payload)
    assert pieces is not None
    return b"".join(pieces)


GOLDEN = Path(__file__).with_name("anthropic_bodies.json")
CASES: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))


def _case(case: dict[str, Any]) -> tuple[Model, Context, StreamOptions, bool]:
    model = Model.model_validate(case["model"])
    ctx = Context(systemPrompt=case["systemPrompt"], messages=[parse_message(m) for m in case["messages"]])
    return model, ctx, StreamOptions(cache_retention=case["cache_retention"]), case["oauth"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_both_bodies_are_the_recorded_body(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """``anthropic_bodies.json`` holds inputs and the bodies the dict builder made for them before the
    one-pass builder existed (edge cases of the cache mark and of tool-result runs, mid-conversation system
    messages, OAuth, and random transcripts). Both builders must still make them; so must a forced split."""
    model, ctx, options, oauth = _case(case)
    assert json.loads(_dict_body(model, ctx, options, oauth)) == case["body"]
    assert json.loads(_one_pass_body(model, ctx, options, oauth)) == case["body"]
    monkeypatch.setattr(split_build, "SPLIT_AT", 2)
    monkeypatch.setattr(split_build, "can_fork", lambda: True)
    assert json.loads(_one_pass_body(model, ctx, options, oauth)) == case["body"]


def test_nan_and_infinity_in_tool_arguments_are_sent_as_null() -> None:
    """Streamed tool arguments are parsed leniently (``NaN``, ``1e999``); JSON has no such numbers, so the
    body says null, as JSON.stringify does (the dict body for a payload hook is the SDK's to encode)."""
    call = ToolCall(id="toolu_1", name="f", arguments={"a": float("nan"), "b": float("inf"), "c": 1})
    assistant = AssistantMessage(
        content=[call], api=CLAUDE.api, provider=CLAUDE.provider, model=CLAUDE.id, stopReason="toolUse"
    )
    result = ToolResultMessage(toolCallId="toolu_1", toolName="f", content=[TextContent(text="r")])
    ctx = Context(messages=[UserMessage(content="q"), assistant, result])
    body = json.loads(_one_pass_body(CLAUDE, ctx, StreamOptions(), False))
    assert body["messages"][1]["content"][0]["input"] == {"a": None, "b": None, "c": 1}


def _turns(n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        call = ToolCall(id=f"toolu_{i}", name="read", arguments={"path": f"f{i}"})
        assistant = dict(api=CLAUDE.api, provider=CLAUDE.provider, model=CLAUDE.id)
        out += [
            UserMessage(content=f"question {i}"),
            AssistantMessage(content=[TextContent(text="looking"), call], stopReason="toolUse", **assistant),
            ToolResultMessage(toolCallId=call.id, toolName="read", content=[TextContent(text=f"r{i}")]),
            AssistantMessage(content=[TextContent(text=f"answer {i}")], stopReason="stop", **assistant),
        ]
    return out


@pytest.mark.parametrize("end", ["question", "results"])
def test_a_long_transcript_is_split_with_the_same_bytes(end: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced split (a test worker may hold other tests' threads): the child's part and this process's part
    join to the dict body, the cache mark on the very last message."""
    messages = _turns(30)
    if end == "question":
        messages.append(UserMessage(content="and now?"))
    else:
        messages = messages[:-1]  # ends with a tool result: the mark goes on it
    ctx = Context(systemPrompt="sys", messages=messages)
    expected = _dict_body(CLAUDE, ctx, StreamOptions(), False)
    assert json.loads(expected)["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    splits: list[Any] = []
    real = anthropic_request.encode_split

    def spy(*args: Any) -> Any:
        splits.append(real(*args))
        return splits[-1]

    monkeypatch.setattr(split_build, "SPLIT_AT", 2)
    monkeypatch.setattr(split_build, "can_fork", lambda: True)
    monkeypatch.setattr(anthropic_request, "encode_split", spy)
    assert _one_pass_body(CLAUDE, ctx, StreamOptions(), False) == expected
    assert splits and splits[-1] is not None


@pytest.mark.parametrize("hook", [False, True])
async def test_the_stream_sends_the_one_pass_body_unless_a_hook_wants_dicts(
    hook: bool, loopback: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a payload hook the request is the encoded body (its bytes, with their length); a hook gets
    the dicts and its body is sent."""
    model = CLAUDE.model_copy(update={"baseUrl": loopback.url})
    ctx = Context(systemPrompt="sys", messages=[UserMessage(content="héllo")])
    options = StreamOptions(api_key="sk-ant-api-test")
    reply = anthropic_ok(text_block(0, "hello"))
    sent = await send(anthropic_provider, model, ctx, options, hook, loopback, reply, monkeypatch)
    assert sent.one_pass_built is not hook
    expected = sent.hook_saw if hook else [json.loads(_one_pass_body(model, ctx, options, False))]
    assert [json.loads(sent.request.body)] == expected
