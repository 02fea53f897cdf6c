"""The join rule of the two-part encoding, at every index of random transcripts (issue 15): wherever a provider
says a first part and a second part join, their items are exactly the one-pass items.

Random transcripts hold what carries state from one message to the next: tool calls answered, unanswered,
answered twice or late; ids renamed across models (Responses ids, Mistral ids, long OpenAI ids); errored,
aborted and empty answers; results with images; mid-conversation system messages; texts with and without
stored ids; the bridging-message compat flag. No fork here: both parts are encoded in this process, at
every split index, not only where ``split_point`` would cut.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers import (
    anthropic_request,
    google_request,
    openai_responses,
    split_build,
)
from pi_app.ai.providers import openai_completions_request as completions_request
from pi_app.ai.providers.json_body import EncodedArray
from pi_app.ai.transcript import ResolvedTranscript, resolve_transcript, supports_mid_convo_system
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

PNG = "iVBORw0KGgo="
IDS = ["a", "b", "call_1|fc_xyz", "call_2|item!!", "x" * 50, "abcdefghi"]
OTHERS = [
    Model(id="o", api="openai-responses", provider="openai", baseUrl=""),
    Model(id="o", api="anthropic-messages", provider="anthropic", baseUrl=""),
]


def _model(rng: random.Random, api: str) -> Model:
    inputs = rng.choice([["text"], ["text", "image"]])
    if api == "google-generative-ai":
        model_id = rng.choice(["gemini-2.5-pro", "gemini-3-pro-preview", "claude-sonnet-4-5"])
        compat = {"supportsMidConvoSystemMessages": rng.random() < 0.4}
        return Model(id=model_id, api=api, provider="google", baseUrl="", input=inputs, compat=compat)
    if api == "anthropic-messages":
        compat = {"supportsMidConvoSystemMessages": rng.random() < 0.4}
        return Model(id="claude", api=api, provider="anthropic", baseUrl="", input=inputs, compat=compat)
    if api == "openai-responses":
        return Model(id="m", api=api, provider="openai", baseUrl="", input=inputs)
    compat = {
        "requiresAssistantAfterToolResult": rng.random() < 0.5,
        "requiresMistralToolIds": rng.random() < 0.3,
    }
    return Model(
        id="m", api=api, provider=rng.choice(["custom", "openai"]), baseUrl="", input=inputs, compat=compat
    )


def _assistant(rng: random.Random, model: Model) -> AssistantMessage:
    source = model if rng.random() < 0.6 else rng.choice(OTHERS)
    content: list[Any] = []
    for _ in range(rng.randint(0, 3)):
        kind = rng.random()
        if kind < 0.3:
            signature = rng.choice([None, "msg_sig"]) if model.api == "openai-responses" else None
            content.append(TextContent(text=rng.choice(["hi", "  "]), textSignature=signature))
        elif kind < 0.45:
            signature = rng.choice([None, "reasoning_content"])
            content.append(ThinkingContent(thinking=rng.choice(["hmm", ""]), thinkingSignature=signature))
        else:
            arguments = rng.choice([{}, {"path": "src/é.py", "limit": 3, "deep": {"a": [1, None, True]}}])
            content.append(
                ToolCall(id=rng.choice(IDS), name=rng.choice(["f", "read", "bash"]), arguments=arguments)
            )
    stop = rng.choice(["stop", "toolUse", "toolUse", "error", "aborted"])
    return AssistantMessage(
        content=content, api=source.api, provider=source.provider, model=source.id, stopReason=stop
    )


def _message(rng: random.Random, model: Model) -> Any:
    roll = rng.random()
    if roll < 0.25:
        image = ImageContent(data=PNG, mimeType="image/png")
        return UserMessage(content=rng.choice(["q", [], [image], [TextContent(text="t")]]))
    if roll < 0.6:
        return _assistant(rng, model)
    if roll < 0.93:
        content: list[Any] = [TextContent(text="r")]
        if rng.random() < 0.3:
            content.append(ImageContent(data=PNG, mimeType="image/png"))
        return ToolResultMessage(toolCallId=rng.choice(IDS), toolName="f", content=content)
    return SystemMessage(content="mid")


def random_transcript(rng: random.Random, model: Model) -> list[Any]:
    """2 to 14 messages of every kind that carries state from one message to the next."""
    return [_message(rng, model) for _ in range(rng.randint(2, 14))]


CACHE_MARK = {"type": "ephemeral"}


def _encode_part(model: Model, transcript: ResolvedTranscript, part: list[Any], first: bool) -> Any:
    if model.api == "google-generative-ai":
        return google_request._encode_part(model, part, first)
    if model.api == "anthropic-messages":
        return anthropic_request._encode_part(model, False, CACHE_MARK, part, first, last=not first)
    if model.api == "openai-responses":
        return openai_responses._encode_part(model, transcript, part, first)
    compat = completions_request.resolve_completions_compat(model)
    return completions_request._encode_part(model, compat, transcript, part, first)


def _one_pass_items(model: Model, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.setattr(split_build, "SPLIT_AT", 10**9)
    if model.api == "google-generative-ai":
        transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
        array = google_request.build_encoded_payload(model, transcript, StreamOptions())["contents"]
    elif model.api == "anthropic-messages":
        transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
        options = StreamOptions(cache_retention="short")
        array = anthropic_request.build_encoded_payload(model, transcript, options, False)["messages"]
    elif model.api == "openai-responses":
        array = openai_responses.build_responses_body(model, ctx, StreamOptions())["input"]
    else:
        array = completions_request.build_completions_body(model, ctx, StreamOptions())["messages"]
    assert type(array) is EncodedArray
    return b",".join(array.runs)


@pytest.mark.parametrize(
    "api", ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]
)
@pytest.mark.parametrize("seed", range(4))
def test_parts_that_join_are_the_one_pass_items(api: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(f"{api}:{seed}")
    joined = refused = 0
    for _ in range(60):
        model = _model(rng, api)
        ctx = Context(systemPrompt="sys", messages=random_transcript(rng, model))
        expected = _one_pass_items(model, ctx, monkeypatch)
        transcript = resolve_transcript(ctx, supports_mid_convo_system(model.api, model.compat))
        join = {
            "openai-completions": completions_request._parts_join,
            "openai-responses": openai_responses._parts_join,
            "anthropic-messages": anthropic_request._parts_join,
            "google-generative-ai": google_request._parts_join,
        }[api]
        for k in range(1, len(transcript.messages)):
            first, first_end = _encode_part(model, transcript, transcript.messages[:k], True)
            second, second_end = _encode_part(model, transcript, transcript.messages[k:], False)
            if not join(tuple(first_end), second_end):  # (the first end comes back from the child as a tuple)
                refused += 1
                continue
            joined += 1
            assert b",".join([*first.runs, *second.runs]) == expected, (model, transcript.messages, k)
    # Both outcomes are exercised (the rule is neither "always" nor "never").
    assert joined > 100 and refused > 20
