"""``parse_message`` validates a message with its role's own model (no union adapter to build: ~45 ms at
start), and gives exactly what the role-discriminated union gives: the same model, fields and errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pi_app.ai import types

UNION: TypeAdapter[Any] = TypeAdapter(types.Message)

VALID: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief", "timestamp": 1},
    {"role": "user", "content": "hi", "timestamp": 2, "fromNewerPi": {"kept": True}},
    {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "p"}],
        "timestamp": 4,  # (without one, each parse stamps its own "now": two parses may differ by a ms)
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hm"},
            {"type": "text", "text": "ok"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
        ],
        "usage": {"input": 3, "output": 4, "cost": {"total": 0.5}},
        "stopReason": "toolUse",
        "timestamp": 3,
    },
    {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "read",
        "content": [],
        "isError": True,
        "timestamp": 5,
    },
    {"role": "user", "content": "no timestamp of its own"},
]

INVALID: list[dict[str, Any]] = [
    {"role": "user"},  # content missing
    {"role": "assistant", "content": [{"type": "nope"}]},
    {"role": "toolResult", "toolCallId": 1},
    {"role": "somebody"},
    {},
]


@pytest.mark.parametrize("data", VALID)
def test_a_valid_message_is_what_the_union_makes_of_it(data: dict[str, Any]) -> None:
    ours, union = types.parse_message(data), UNION.validate_python(data)
    assert type(ours) is type(union)
    stamped = "timestamp" not in data  # then both stamp "now" (in ms), each at its own moment
    if stamped:
        assert abs(ours.timestamp - union.timestamp) < 60_000
    skip = {"timestamp"} if stamped else set()
    assert ours.model_dump(exclude=skip) == union.model_dump(exclude=skip)
    assert ours.model_fields_set == union.model_fields_set
    assert ours.model_extra == union.model_extra


@pytest.mark.parametrize("data", INVALID)
def test_an_invalid_message_fails_with_the_unions_error(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as union:
        UNION.validate_python(data)
    with pytest.raises(ValidationError) as ours:
        types.parse_message(data)
    assert str(ours.value) == str(union.value)
