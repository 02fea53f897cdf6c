"""Which body a provider's stream sends (issue 15): the one-pass encoded body when no payload hook wants
dicts, else the hook's dicts. Shared by the Anthropic and Gemini tests."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.stream import stream
from pi_app.ai.types import Context, Model
from tests.loopback.server import LoopbackServer, Recorded, Scripted


@dataclass
class Sent:
    """The request as the server got it, whether the one-pass builder ran, and what the hook was shown."""

    request: Recorded
    one_pass_built: bool
    hook_saw: list[dict[str, Any]] = field(default_factory=list)


async def send(
    provider: ModuleType,
    model: Model,
    ctx: Context,
    options: StreamOptions,
    hook: bool,
    loopback: LoopbackServer,
    reply: Scripted,
    monkeypatch: pytest.MonkeyPatch,
) -> Sent:
    """Stream one answer through ``provider`` (its ``build_encoded_payload`` spied on), with a payload hook
    that only looks when ``hook``; the answer must complete."""
    built: list[bool] = []
    real = provider.build_encoded_payload

    def spy(*args: Any) -> Any:
        built.append(True)
        return real(*args)

    monkeypatch.setattr(provider, "build_encoded_payload", spy)
    saw: list[dict[str, Any]] = []

    def on_payload(payload: dict[str, Any], _model: Any) -> None:
        saw.append(payload)

    if hook:
        options = dataclasses.replace(options, on_payload=on_payload)
    loopback.add(reply)
    events = [ev async for ev in stream(model, ctx, options)]
    assert events[-1].type == "done"
    request = loopback.requests[-1]
    assert int(request.headers["content-length"]) == len(request.body)
    return Sent(request, bool(built), saw)
