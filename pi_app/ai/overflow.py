"""Context-overflow detection (spec §2.10): did this failed turn fail because the prompt was too big?

Providers word it differently, so the error text is matched against every known phrasing. z.ai can also
overflow silently: a normal ``stop`` whose reported input exceeds the context window.
"""

from __future__ import annotations

import re

from pi_app.ai.types import AssistantMessage

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Amazon Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Google Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter and OpenAI-compatible servers
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai finish reason surfaced as error text
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
)
# Cerebras answers an oversized prompt with a bare 400/413.
_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    if message.stopReason == "error" and message.errorMessage:
        text = message.errorMessage
        if any(p.search(text) for p in OVERFLOW_PATTERNS) or _NO_BODY.search(text):
            return True
    if context_window and message.stopReason == "stop":
        return message.usage.input + message.usage.cacheRead > context_window
    return False
