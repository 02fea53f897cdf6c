"""A redirected request sends its body again (found in review): the body is streamed from the pieces it was
encoded to, and what the SDK is given must be iterable more than once, or a 307/308 from a proxy or gateway
ends in "Connection error". Redirects are followed for https endpoints only (``http_client_options``); here
the loopback server is reached over http with them switched on, as for https.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_app.ai.providers import anthropic as anthropic_provider
from pi_app.ai.providers import openai_common
from pi_app.ai.types import Context, UserMessage
from tests.loopback.server import Scripted
from tests.modes import scripts
from tests.providers_openai.helpers import make_model, run

PATHS = {
    "openai-completions": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic-messages": "/v1/messages",
}


@pytest.mark.parametrize("api", list(PATHS))
async def test_a_redirected_request_sends_its_body_again(
    api: str, loopback: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def follow(_url: str | None) -> dict[str, Any]:
        return {"verify": False}  # as for https: the SDK's client follows redirects

    monkeypatch.setattr(openai_common, "http_client_options", follow)
    monkeypatch.setattr(anthropic_provider, "http_client_options", follow)
    path = PATHS[api]
    loopback.add(
        Scripted(status=307, headers={"location": loopback.url + path}, chunks=[b""]),
        scripts.text(api, "hello"),
    )
    base = loopback.url if api == "anthropic-messages" else loopback.url + "/v1"
    model = make_model(loopback.url, api=api, baseUrl=base)
    ctx = Context(systemPrompt="sys", messages=[UserMessage(content="héllo 😀")])
    _, message = await run(model, ctx)
    assert message.stopReason == "stop", message.errorMessage
    first, second = loopback.requests[-2:]
    assert first.path == second.path == path
    assert second.body == first.body and len(first.body) == int(first.headers["content-length"])
