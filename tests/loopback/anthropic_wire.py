"""Anthropic Messages API streaming bodies in real wire format, for the loopback server.

Build a response from blocks (``text_block``, ``thinking_block``, ``redacted_thinking_block``,
``tool_use_block``) with :func:`anthropic_stream`; each helper returns ``(event_name, data)`` pairs
that :func:`tests.loopback.server.sse` frames. Shortcuts: :func:`anthropic_text_stream`,
:func:`anthropic_error`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.loopback.server import Scripted, json_response, sse

Event = tuple[str, dict[str, Any]]


def _split(text: str, parts: int) -> list[str]:
    if parts <= 1 or len(text) <= 1:
        return [text]
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def message_start(
    msg_id: str = "msg_loopback_1", model: str = "claude-test", input_tokens: int = 10, **usage: int
) -> Event:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
            },
        },
    )


def text_block(index: int, text: str, parts: int = 2) -> list[Event]:
    events: list[Event] = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
    ]
    for piece in _split(text, parts):
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def thinking_block(index: int, thinking: str, signature: str, parts: int = 2) -> list[Event]:
    """Thinking deltas, then the signature split over several ``signature_delta`` events."""
    start = {"type": "thinking", "thinking": "", "signature": ""}
    events: list[Event] = [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
    ]
    for piece in _split(thinking, parts):
        delta = {"type": "thinking_delta", "thinking": piece}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
    for piece in _split(signature, 2):
        delta = {"type": "signature_delta", "signature": piece}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def redacted_thinking_block(index: int, data: str) -> list[Event]:
    block = {"type": "redacted_thinking", "data": data}
    return [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}),
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def tool_use_block(
    index: int, call_id: str, name: str, arguments: dict[str, Any], parts: int = 3
) -> list[Event]:
    """A tool_use block whose JSON input arrives split across ``input_json_delta`` events."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    events: list[Event] = [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
    ]
    for piece in _split(json.dumps(arguments), parts):
        delta = {"type": "input_json_delta", "partial_json": piece}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def message_delta(stop_reason: str = "end_turn", output_tokens: int = 5, **usage: int) -> Event:
    return (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens, **usage},
        },
    )


def message_stop() -> Event:
    return ("message_stop", {"type": "message_stop"})


def ping() -> Event:
    return ("ping", {"type": "ping"})


def anthropic_events(
    *blocks: list[Event],
    stop_reason: str = "end_turn",
    msg_id: str = "msg_loopback_1",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int = 0,
    cache_write: int = 0,
) -> list[Event]:
    start_usage = {"cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write}
    events: list[Event] = [message_start(msg_id, input_tokens=input_tokens, **start_usage), ping()]
    for block in blocks:
        events.extend(block)
    events.append(message_delta(stop_reason, output_tokens))
    events.append(message_stop())
    return events


def anthropic_stream(*blocks: list[Event], **kw: Any) -> list[bytes]:
    """SSE frames (one chunk per event) for a whole response."""
    return sse(*anthropic_events(*blocks, **kw))


def anthropic_text_stream(text: str, **kw: Any) -> list[bytes]:
    return anthropic_stream(text_block(0, text), **kw)


def anthropic_ok(*blocks: list[Event], **kw: Any) -> Scripted:
    return Scripted(chunks=anthropic_stream(*blocks, **kw))


def anthropic_error(
    status: int, message: str, kind: str = "invalid_request_error", **headers: str
) -> Scripted:
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_loopback"}
    return json_response(status, body, headers or None)
