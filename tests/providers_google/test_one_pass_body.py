"""The Gemini body built in one pass (issue 15: every provider's resume of a long session): each message is
transformed, converted and encoded as it comes, the responses to one model turn still sharing one user turn,
and the bytes are the dict-built body's (what a payload hook sees). ``google_bodies.json`` holds inputs and
the bodies the dict builder made for them before the one-pass builder existed (b84ccf1): tool-response
turns, images inside or after them, runs past messages that send nothing, mid-conversation system
messages, cross-model turns, ids for non-Gemini models, and random transcripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers import google as google_provider
from pi_app.ai.providers import split_build
from pi_app.ai.providers.google_request import build_encoded_payload, build_payload, normalize_tool_call_id
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
from tests.loopback.body_route import send
from tests.loopback.google_wire import gemini_text_stream
from tests.loopback.server import Scripted

GOLDEN = Path(__file__).with_name("google_bodies.json")
CASES: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))


def _case(case: dict[str, Any]) -> tuple[Model, Context, StreamOptions]:
    model = Model.model_validate(case["model"])
    ctx = Context(systemPrompt=case["systemPrompt"], messages=[parse_message(m) for m in case["messages"]])
    return model, ctx, StreamOptions(reasoning=case["reasoning"])


def _dict_body(model: Model, ctx: Context, options: StreamOptions) -> bytes:
    transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
    messages = transform_messages(transcript.messages, model, normalize_tool_call_id)
    return encode_json(build_payload(model, transcript, messages, options))


def _one_pass_body(model: Model, ctx: Context, options: StreamOptions) -> bytes:
    transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
    payload = build_encoded_payload(model, transcript, options)
    assert type(payload["contents"]) is EncodedArray
    pieces = encode_body(payload)
    assert pieces is not None
    return b"".join(pieces)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_both_bodies_are_the_recorded_body(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Both builders still make the recorded body; so does a forced split (short transcripts: the split
    point is wherever one is found)."""
    model, ctx, options = _case(case)
    assert json.loads(_dict_body(model, ctx, options)) == case["body"]
    assert json.loads(_one_pass_body(model, ctx, options)) == case["body"]
    monkeypatch.setattr(split_build, "SPLIT_AT", 2)
    monkeypatch.setattr(split_build, "can_fork", lambda: True)
    assert json.loads(_one_pass_body(model, ctx, options)) == case["body"]


def test_nan_and_infinity_in_tool_arguments_are_sent_as_null() -> None:
    """Streamed tool arguments are parsed leniently (``NaN``, ``1e999``); JSON has no such numbers, so the
    body says null, as JSON.stringify does."""
    model = Model(id="gemini-2.5-pro", api="google-generative-ai", provider="google", baseUrl="")
    call = ToolCall(id="c1", name="f", arguments={"a": float("nan"), "b": float("-inf"), "c": 1})
    assistant = AssistantMessage(
        content=[call], api=model.api, provider=model.provider, model=model.id, stopReason="toolUse"
    )
    result = ToolResultMessage(toolCallId="c1", toolName="f", content=[TextContent(text="r")])
    ctx = Context(messages=[UserMessage(content="q"), assistant, result])
    body = json.loads(_one_pass_body(model, ctx, StreamOptions()))
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"a": None, "b": None, "c": 1}


@pytest.mark.parametrize("hook", [False, True])
async def test_the_stream_sends_the_one_pass_body_unless_a_hook_wants_dicts(
    hook: bool, loopback: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a payload hook the request is the encoded body (its bytes, with their length); a hook gets
    the dicts and its body is sent."""
    model = Model(id="gemini-2.5-pro", api="google-generative-ai", provider="google", baseUrl=loopback.url)
    ctx = Context(systemPrompt="sys", messages=[UserMessage(content="héllo")])
    options = StreamOptions(api_key="k")
    reply = Scripted(chunks=gemini_text_stream("hello"))
    sent = await send(google_provider, model, ctx, options, hook, loopback, reply, monkeypatch)
    assert sent.one_pass_built is not hook
    expected = sent.hook_saw if hook else [json.loads(_one_pass_body(model, ctx, options))]
    assert [json.loads(sent.request.body)] == expected
