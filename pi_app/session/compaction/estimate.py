"""Context-size accounting: the provider's last usage plus chars/4 estimates for what came after."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_app.ai.types import Usage

IMAGE_CHARS = 4800  # an image counts as ~1200 tokens, as pi estimates


def _text_chars(content: Any, images: bool) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content or ():
        btype = getattr(block, "type", None)
        if btype == "text":
            chars += len(block.text)
        elif btype == "image" and images:
            chars += IMAGE_CHARS
    return chars


def estimate_tokens(message: Any) -> int:
    """ceil(chars / 4) over what the model would read of ``message``."""
    role = getattr(message, "role", None)
    chars = 0
    if role == "user":
        chars = _text_chars(message.content, images=False)
    elif role == "assistant":
        for block in message.content:
            if block.type == "text":
                chars += len(block.text)
            elif block.type == "thinking":
                chars += len(block.thinking)
            elif block.type == "toolCall":
                chars += len(block.name) + len(json.dumps(block.arguments, separators=(",", ":")))
    elif role in ("toolResult", "custom"):
        chars = _text_chars(message.content, images=True)
    elif role == "bashExecution":
        chars = len(message.command) + len(message.output)
    elif role in ("branchSummary", "compactionSummary"):
        chars = len(message.summary)
    elif role == "system":
        chars = _text_chars(message.content, images=False)
    return math.ceil(chars / 4)


def context_tokens_from_usage(usage: Usage) -> int:
    return usage.totalTokens or (usage.input + usage.output + usage.cacheRead + usage.cacheWrite)


def valid_usage(message: Any) -> Usage | None:
    """The usage of a completed assistant message (aborted/errored ones carry no trustworthy numbers)."""
    if getattr(message, "role", None) == "assistant" and message.stopReason not in ("aborted", "error"):
        usage: Usage = message.usage
        return usage
    return None


@dataclass
class ContextEstimate:
    """Estimated context size: the last valid usage report plus an estimate for the messages after it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[Any]) -> ContextEstimate:
    for i in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[i])
        if usage is not None:
            base = context_tokens_from_usage(usage)
            trailing = sum(estimate_tokens(m) for m in messages[i + 1 :])
            return ContextEstimate(base + trailing, base, trailing, i)
    total = sum(estimate_tokens(m) for m in messages)
    return ContextEstimate(total, 0, total, None)


def should_compact(
    context_tokens: int, context_window: int, reserve_tokens: int, enabled: bool = True
) -> bool:
    return enabled and context_tokens > context_window - reserve_tokens
