"""Shared helpers for the OpenAI adapter tests: loopback-backed models and a stream runner."""

from __future__ import annotations

from typing import Any

from pi_app.ai import stream
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import AssistantMessage, Context, Model, UserMessage


def make_model(url: str, api: str = "openai-completions", **kw: Any) -> Model:
    data: dict[str, Any] = {
        "id": "test-model",
        "api": api,
        "provider": "custom",
        "baseUrl": url + "/v1",
        "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.5, "cacheWrite": 0.0},
    }
    data.update(kw)
    return Model.model_validate(data)


def user_ctx(text: str = "hi", **kw: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kw)


async def run(
    model: Model, ctx: Context | None = None, **opts: Any
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    opts.setdefault("api_key", "test-key")
    s = stream(model, ctx or user_ctx(), StreamOptions(**opts))
    events = [ev async for ev in s]
    return events, await s.result()


def types(events: list[AssistantMessageEvent]) -> list[str]:
    return [e.type for e in events]
