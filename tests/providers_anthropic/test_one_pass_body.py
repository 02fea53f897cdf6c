"""The Anthropic body built in one pass (issue 15: a 50,000-entry resume over Anthropic): each message is
transformed, converted and encoded as it comes, the cache mark put on the last one, and the bytes are the
dict-built body's (what a payload hook sees) encoded whole. A long transcript is split over two cores with
the same bytes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
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
)
from tests.providers_openai.test_split_join_rule import random_transcript

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


@pytest.mark.parametrize("seed", range(6))
def test_one_pass_body_is_the_dict_body(seed: int) -> None:
    """Random transcripts (tool runs, images, errored and empty answers, cross-model turns, mid-conversation
    system messages), with and without cache marks and OAuth."""
    rng = random.Random(f"anthropic:{seed}")
    for _ in range(40):
        model = CLAUDE.model_copy(update={"input": rng.choice([["text"], ["text", "image"]])})
        ctx = Context(systemPrompt=rng.choice(["sys", None]), messages=random_transcript(rng, model))
        options = StreamOptions(cache_retention=rng.choice(["short", "none", "long"]))
        oauth = rng.random() < 0.3
        assert _one_pass_body(model, ctx, options, oauth) == _dict_body(model, ctx, options, oauth)


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
    assert b'"cache_control"' in expected
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
