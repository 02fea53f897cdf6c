"""Entry points (``stream``/``complete``) and the API registry that dispatches on ``model.api``.

Providers are registered as "module:function" strings and imported on first use, so importing
``pi_app.ai`` never imports an SDK.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable

from pi_app.ai.builder import MessageBuilder
from pi_app.ai.events import AssistantMessageEvent, AssistantMessageEventStream, ErrorEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import AssistantMessage, Context, Model

# A provider: async generator of events for one request. It should end with done/error itself; any
# exception it raises is turned into an error event by the stream wrapper.
ProviderFn = Callable[[Model, Context, StreamOptions], AsyncIterator[AssistantMessageEvent]]

_REGISTRY: dict[str, ProviderFn | str] = {
    "anthropic-messages": "pi_app.ai.providers.anthropic:stream_anthropic",
    "openai-completions": "pi_app.ai.providers.openai_completions:stream_openai_completions",
    "openai-responses": "pi_app.ai.providers.openai_responses:stream_openai_responses",
    "google-generative-ai": "pi_app.ai.providers.google:stream_google",
    "faux": "pi_app.ai.providers.faux:stream_faux",
}


def register_api_provider(api: str, fn: ProviderFn | str) -> None:
    """Add or replace the adapter for a wire API (extensions use this)."""
    _REGISTRY[api] = fn


def unregister_api_provider(api: str) -> None:
    _REGISTRY.pop(api, None)


def registered_apis() -> list[str]:
    return sorted(_REGISTRY)


def get_provider(api: str) -> ProviderFn:
    entry = _REGISTRY.get(api)
    if entry is None:
        raise KeyError(f"No API provider registered for api: {api}")
    if isinstance(entry, str):
        mod_name, _, attr = entry.partition(":")
        entry = getattr(importlib.import_module(mod_name), attr)
        _REGISTRY[api] = entry
    return entry


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Start a streaming request. Never raises: failures arrive as an ``error`` event."""
    opts = options or StreamOptions()
    builder_for_errors = MessageBuilder(model)

    def on_exception(exc: BaseException) -> ErrorEvent:
        aborted = bool(opts.signal and opts.signal.aborted)
        return builder_for_errors.from_exception(exc, aborted=aborted)

    async def gen() -> AsyncIterator[AssistantMessageEvent]:
        provider = get_provider(model.api)
        async for ev in provider(model, context, opts):
            yield ev

    return AssistantMessageEventStream(gen(), on_exception)


# pi names the reasoning-aware entry point streamSimple; options already carry ``reasoning``.
stream_simple = stream


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessage:
    return await stream(model, context, options).result()


complete_simple = complete

StreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]


def default_stream_fn() -> StreamFn:
    return stream
