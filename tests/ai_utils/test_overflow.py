"""is_context_overflow: every provider phrasing of spec §2.10, the Cerebras no-body form, silent overflow."""

from __future__ import annotations

import pytest

from pi_app.ai.overflow import is_context_overflow
from pi_app.ai.types import AssistantMessage, Usage


def _err(text: str, reason: str = "error") -> AssistantMessage:
    return AssistantMessage(stopReason=reason, errorMessage=text)


@pytest.mark.parametrize(
    "text",
    [
        "400 prompt is too long: 213462 tokens > 200000 maximum",  # Anthropic
        "Input is too long for requested model.",  # Bedrock
        "Your input exceeds the context window of this model. Please adjust your input and try again.",  # OpenAI
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",  # Gemini
        "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",  # xAI
        "Please reduce the length of the messages or completion.",  # Groq
        "This endpoint's maximum context length is 200000 tokens. However, you requested about 300000",  # OpenRouter
        "prompt token count of 130000 exceeds the limit of 128000",  # Copilot
        "the request exceeds the available context size, try increasing it",  # llama.cpp
        "The number of tokens to keep from the initial prompt is greater than the context length",  # LM Studio
        "invalid params, context window exceeds limit (2013)",  # MiniMax
        "Your request exceeded model token limit: 262144 (requested: 291351)",  # Kimi
        "Prompt contains 300000 tokens, too large for model with 131072 maximum context length",  # Mistral
        "Provider finish_reason: model_context_window_exceeded",  # z.ai
        "context_length_exceeded",
        "Context length exceeded for this request",
        "Too many tokens in request",
        "Token limit exceeded.",
        "PROMPT IS TOO LONG",  # case-insensitive
        "400 status code (no body)",  # Cerebras
        "413 status code (no body)",
        "400 (no body)",
    ],
)
def test_overflow_messages_match(text):
    assert is_context_overflow(_err(text))


@pytest.mark.parametrize(
    "text",
    [
        "429 Rate limit reached for requests",
        "500 Internal server error",
        "401 Invalid API key",
        "Connection error: peer closed connection",
        "maximum prompt length is unknown",  # needs a number
        "exceeds the limit of many",
        "Error 400 status code (no body)",  # anchored at the start
        "404 status code (no body)",
        "",
    ],
)
def test_other_errors_do_not_match(text):
    assert not is_context_overflow(_err(text))


def test_only_error_messages_are_matched():
    assert not is_context_overflow(_err("prompt is too long", reason="stop"))
    assert not is_context_overflow(_err("prompt is too long", reason="aborted"))


def test_silent_overflow_uses_input_plus_cache_read():
    msg = AssistantMessage(stopReason="stop", usage=Usage(input=90_000, cacheRead=40_000, output=10))
    assert is_context_overflow(msg, 128_000)
    assert not is_context_overflow(msg, 130_000)  # equal is not over
    assert not is_context_overflow(msg)  # no window known
    msg.stopReason = "length"
    assert not is_context_overflow(msg, 128_000)
