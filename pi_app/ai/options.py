"""Per-request options shared by every provider (pi's StreamOptions + SimpleStreamOptions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.abort import AbortSignal

DEFAULT_THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
# A stalled stream fails after this many seconds without a byte (the SDK default would be 600 s).
DEFAULT_IDLE_TIMEOUT_S = 120.0


@dataclass
class StreamOptions:
    """Options for one provider request: sampling, credentials, caching, abort signal, reasoning, timeouts."""

    temperature: float | None = None
    max_tokens: int | None = None
    signal: AbortSignal | None = None
    api_key: str | None = None
    cache_retention: str | None = None  # "none" | "short" | "long"; None -> env PI_CACHE_RETENTION or short
    session_id: str | None = None
    on_payload: Callable[[dict[str, Any], Any], dict[str, Any] | None] | None = None
    headers: dict[str, str] | None = None
    max_retry_delay_ms: int = 60000
    metadata: dict[str, Any] | None = None
    # SimpleStreamOptions
    reasoning: str | None = None  # ThinkingLevel other than "off"; None means no reasoning
    thinking_budgets: dict[str, int] = field(default_factory=dict)
    # Ours: bounded wait for the next byte of a stream, and connect timeout.
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S
    connect_timeout_s: float = 30.0


def payload_hook_active(hook: Callable[..., Any] | None) -> bool:
    """Whether ``on_payload`` will look at the request body at all.

    A hook may answer for itself with a ``wants_payload()`` attribute (the extensions' chain has nothing to
    run while no extension handles ``before_provider_request``); a provider can then build a body no
    hook sees: encoded as it is built, without ever holding the transcript as plain dicts and lists.
    """
    if hook is None:
        return False
    probe = getattr(hook, "wants_payload", None)
    return bool(probe()) if callable(probe) else True
