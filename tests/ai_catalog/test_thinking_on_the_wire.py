"""Catalogue models send the provider value their thinkingLevelMap names (loopback servers, real SDKs)."""

from __future__ import annotations

from pi_app.ai import models as M
from pi_app.ai.options import StreamOptions
from pi_app.ai.stream import stream
from pi_app.ai.types import Context, Model, UserMessage
from tests.loopback.anthropic_wire import anthropic_ok, text_block
from tests.loopback.google_wire import gemini_text_stream
from tests.loopback.openai_wire import chat_text_stream
from tests.loopback.server import Scripted


def _at(provider: str, model_id: str, url: str) -> Model:
    model = M.get_model(provider, model_id)
    assert model is not None
    model.baseUrl = url
    return model


async def _send(model: Model, level: str) -> None:
    ctx = Context(systemPrompt="sys", messages=[UserMessage(content="hi")])
    async for _ in stream(model, ctx, StreamOptions(api_key="test-key", reasoning=level)):
        pass


async def test_anthropic_adaptive_effort_from_the_map(loopback):
    loopback.add(*(anthropic_ok(text_block(0, "ok")) for _ in range(4)))
    opus = _at("anthropic", "claude-opus-5-5", loopback.url)
    for level in ("max", "xhigh", "low"):
        await _send(opus, level)
    await _send(_at("anthropic", "claude-haiku-4-5", loopback.url), "high")
    bodies = [r.json for r in loopback.requests]
    assert [b["thinking"]["type"] for b in bodies] == ["adaptive", "adaptive", "adaptive", "enabled"]
    assert [b["output_config"]["effort"] for b in bodies[:3]] == ["max", "xhigh", "low"]
    # compat.forceAdaptiveThinking: no interleaved-thinking beta for adaptive models
    assert "interleaved" not in loopback.requests[0].headers["anthropic-beta"]
    assert "interleaved" in loopback.requests[3].headers["anthropic-beta"]


async def test_openai_compatible_reasoning_effort_from_the_map(loopback):
    loopback.add(*(chat_text_stream("ok") for _ in range(2)))
    model = _at("mistral", "magistral-medium-latest", loopback.url + "/v1")  # high -> "high", only
    model.thinkingLevelMap = {**(model.thinkingLevelMap or {}), "high": "HIGH-VALUE"}
    await _send(model, "high")
    await _send(model, "medium")  # not mapped to a value (null): the level itself
    efforts = [r.json.get("reasoning_effort") for r in loopback.requests]
    assert efforts == ["HIGH-VALUE", "medium"]


async def test_gemini_discrete_level_from_the_map(loopback):
    loopback.add(*(Scripted(chunks=gemini_text_stream("ok")) for _ in range(3)))
    argon = _at("google", "gemini-4-argon", loopback.url)
    await _send(argon, "medium")
    await _send(_at("google", "gemma-4-31b-it", loopback.url), "minimal")
    await _send(_at("google", "gemini-2.5-flash", loopback.url), "low")  # no map: a token budget
    configs = [r.json["generationConfig"]["thinkingConfig"] for r in loopback.requests]
    assert configs[0] == {"includeThoughts": True, "thinkingLevel": "MEDIUM"}
    assert configs[1] == {"includeThoughts": True, "thinkingLevel": "MINIMAL"}
    assert "thinkingLevel" not in configs[2] and configs[2]["thinkingBudget"] > 0
