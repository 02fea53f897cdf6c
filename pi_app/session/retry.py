"""Which provider errors AgentSession retries on its own, and how long it waits (pi's auto-retry)."""

from __future__ import annotations

import re

from pi_app.ai.overflow import is_context_overflow
from pi_app.ai.types import AssistantMessage
from pi_app.session.messages import AgentMessage

# Transient failures: overload, rate limits, 5xx, dropped connections. Overflow is compaction's job.
RETRYABLE_ERROR = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|"
    r"upstream.?connect|reset before headers|terminated|retry delay",
    re.IGNORECASE,
)

RETRY_CANCELLED = "Retry cancelled"


def is_retryable_error(message: AgentMessage, context_window: int = 0) -> bool:
    if not isinstance(message, AssistantMessage) or message.stopReason != "error":
        return False
    if not message.errorMessage or is_context_overflow(message, context_window):
        return False
    return RETRYABLE_ERROR.search(message.errorMessage) is not None


def retry_delay_ms(base_delay_ms: int, attempt: int) -> int:
    """``base * 2^(attempt-1)``: 2 s, 4 s, 8 s with the default base."""
    return int(base_delay_ms * 2 ** max(attempt - 1, 0))
