"""Thinking level "off" as pi 1.6 sends it: the model's own value from its thinkingLevelMap, per thinking
format, over the wire to a loopback server; catalogue models carry the values."""

from __future__ import annotations

from typing import Any

import pytest

from pi_app.ai.models import get_model
from pi_app.ai.types import Model
from tests.loopback.openai_wire import ResponsesWire, chat_text_stream
from tests.providers_openai.helpers import make_model, run


def at(model: Model | None, url: str) -> Model:
    """A catalogue model pointed at the loopback server."""
    assert model is not None
    return model.model_copy(update={"baseUrl": url + "/v1"})


async def body_for(loopback: Any, model: Model, level: str | None) -> dict[str, Any]:
    loopback.add(chat_text_stream("ok"))
    await run(model, reasoning=level)
    return loopback.requests[-1].json


async def test_completions_off_sends_the_models_value(loopback: Any) -> None:
    qwen = at(get_model("cerebras", "qwen-3.8-27b"), loopback.url)  # catalogue: "off": "none"
    assert (qwen.thinkingLevelMap or {})["off"] == "none"
    assert (await body_for(loopback, qwen, None))["reasoning_effort"] == "none"
    assert (await body_for(loopback, qwen, "high"))["reasoning_effort"] == "high"
    # no value for off in the map: nothing is said, as before
    plain = make_model(loopback.url, reasoning=True)
    assert "reasoning_effort" not in await body_for(loopback, plain, None)
    # a server without reasoning_effort gets no value either
    no_effort = make_model(
        loopback.url,
        reasoning=True,
        thinkingLevelMap={"off": "none"},
        compat={"supportsReasoningEffort": False},
    )
    assert "reasoning_effort" not in await body_for(loopback, no_effort, None)


async def test_openrouter_format(loopback: Any) -> None:
    model = at(get_model("openrouter", "~deepseek/deepseek-flash-latest"), loopback.url)
    assert (model.compat or {})["thinkingFormat"] == "openrouter"
    body = await body_for(loopback, model, "high")
    assert body["reasoning"] == {"effort": "high"} and "reasoning_effort" not in body
    assert (await body_for(loopback, model, None))["reasoning"] == {"effort": "none"}
    unmapped = make_model(loopback.url, reasoning=True, compat={"thinkingFormat": "openrouter"})
    assert (await body_for(loopback, unmapped, None))["reasoning"] == {"effort": "none"}
    always_thinks = make_model(
        loopback.url, reasoning=True, thinkingLevelMap={"off": None}, compat={"thinkingFormat": "openrouter"}
    )
    assert "reasoning" not in await body_for(loopback, always_thinks, None)


@pytest.mark.parametrize(
    ("fmt", "level", "expected"),
    [
        ("deepseek", "high", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
        ("deepseek", None, {"thinking": {"type": "disabled"}}),
        ("together", "low", {"reasoning": {"enabled": True}, "reasoning_effort": "low"}),
        ("together", None, {"reasoning": {"enabled": False}}),
    ],
)
async def test_deepseek_and_together_formats(
    loopback: Any, fmt: str, level: str | None, expected: dict[str, Any]
) -> None:
    body = await body_for(
        loopback, make_model(loopback.url, reasoning=True, compat={"thinkingFormat": fmt}), level
    )
    assert {k: body[k] for k in ("thinking", "reasoning", "reasoning_effort") if k in body} == expected


async def test_responses_off_sends_the_models_value(loopback: Any) -> None:
    gpt = at(get_model("openai", "gpt-5.1"), loopback.url)  # catalogue: "off": "none"
    loopback.add(ResponsesWire().message("a").completed().scripted())
    await run(gpt)
    body = loopback.requests[-1].json
    assert body["reasoning"] == {"effort": "none"} and "include" not in body
    assert "Juice" not in str(body["input"])  # the value replaces the older developer-message rule
