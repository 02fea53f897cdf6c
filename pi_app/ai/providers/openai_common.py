"""Plumbing shared by the two OpenAI wire adapters (Chat Completions and Responses).

Client construction, request splitting, abort-aware stream reading and turning SDK exceptions into the
error text pi shows. The ``openai`` SDK is imported inside functions only: importing ``pi_app.ai`` must
stay SDK-free.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import AsyncGenerator, Callable
from typing import Any

from pi_app.ai.abort import AbortError, race_abort
from pi_app.ai.env_keys import get_env_api_key
from pi_app.ai.models import provider_thinking_value, supports_xhigh
from pi_app.ai.options import StreamOptions, payload_hook_active
from pi_app.ai.providers.http_common import http_client_options
from pi_app.ai.providers.json_body import StreamedBody
from pi_app.ai.providers.sdk_import import defer_sdk_packages
from pi_app.ai.types import Context, Model, short_lived_models

# Before this module's first ``import openai``: the SDK's type catalogue loads only where it is used.
defer_sdk_packages()

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def sanitize(text: str) -> str:
    """Drop lone UTF-16 surrogates (they cannot be encoded as UTF-8 and make the request fail)."""
    # ASCII text (most of it) cannot hold a surrogate: skip the regex scan.
    return _LONE_SURROGATE.sub("", text) if text and not text.isascii() else text


def resolve_api_key(model: Model, options: StreamOptions) -> str:
    key = options.api_key or get_env_api_key(model.provider)
    if not key:
        raise ValueError(f"No API key for provider: {model.provider}")
    return key


def default_max_tokens(model: Model, options: StreamOptions) -> int:
    """pi's buildBaseOptions: an explicit limit wins, else the model's limit capped at 32000."""
    return options.max_tokens or min(model.maxTokens, 32000)


def reasoning_effort(model: Model, level: str | None) -> str | None:
    """The effort to request for a thinking level: None when off; the model's own value where its
    ``thinkingLevelMap`` names one; xhigh/max only where supported."""
    if not level or level == "off":
        return None
    if (mapped := provider_thinking_value(model, level)) is not None:
        return mapped
    if level in ("xhigh", "max"):
        return "xhigh" if supports_xhigh(model) else "high"
    return level


def cache_retention(options: StreamOptions) -> str:
    if options.cache_retention:
        return options.cache_retention
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


async def apply_on_payload(options: StreamOptions, params: dict[str, Any], model: Model) -> dict[str, Any]:
    """Let the caller inspect or replace the request body (sync or async hook)."""
    if options.on_payload is None:
        return params
    replaced = options.on_payload(params, model)
    if inspect.isawaitable(replaced):
        replaced = await replaced
    return replaced if replaced is not None else params


BodyBuilder = Callable[[Model, Context, StreamOptions], dict[str, Any]]


async def request_params(
    model: Model, context: Context, options: StreamOptions, one_pass: BodyBuilder, as_dicts: BodyBuilder
) -> dict[str, Any]:
    """The body to send: for a payload hook as plain dicts (``as_dicts``); without one encoded as it is
    built (``one_pass``), so the transcript is never held as dicts and lists."""
    if not payload_hook_active(options.on_payload):
        try:
            with short_lived_models():  # each message is typed, encoded and dropped
                return one_pass(model, context, options)
        except ValueError:
            pass  # something pydantic-core cannot encode: plain dicts, which the SDK's way may still send
    return await apply_on_payload(options, as_dicts(model, context, options), model)


def make_client(model: Model, options: StreamOptions, api_key: str) -> Any:
    """An AsyncOpenAI client for one request (close it when done)."""
    import httpx2
    import openai

    headers = dict(model.headers or {})
    headers.update(options.headers or {})  # request headers override the model's
    idle = options.idle_timeout_s
    timeout = httpx2.Timeout(connect=options.connect_timeout_s, read=idle, write=idle, pool=idle)
    http_client = openai.DefaultAsyncHttpxClient(timeout=timeout, **http_client_options(model.baseUrl))
    return openai.AsyncOpenAI(
        http_client=http_client,
        api_key=api_key,
        base_url=model.baseUrl or None,
        default_headers=headers,
        # The read timeout is the idle timeout: a stream with no byte for `idle` seconds fails instead of
        # hanging for the SDK default of 10 minutes.
        timeout=timeout,
        # No SDK retries: the session layer retries visibly; stacking silent retries under it would
        # multiply attempts and hide rate limits from the user.
        max_retries=0,
    )


async def open_stream(
    client: Any, path: str, params: dict[str, Any], cast_to: type, event_type: Any, options: StreamOptions
) -> Any:
    """POST the already-built JSON body and return the SDK's AsyncStream of ``event_type`` items.

    ``client.post`` rather than ``chat.completions.create(**kwargs)``/``responses.create``: ``create``
    runs the SDK's request-parameter transform, which walks every message and content part with
    typing introspection (seconds for a 50,000-entry session). The body is plain JSON already, and
    provider extensions (enable_thinking, routing, ...) need no ``extra_body`` split this way. The SDK
    still supplies auth, headers, error mapping and SSE parsing. The body streams (:class:`StreamedBody`)
    with an explicit Content-Length (no chunked encoding, which some servers refuse).
    """
    from openai import AsyncStream

    try:
        body = StreamedBody(params)
        payload: dict[str, Any] = {
            "content": body,  # the body itself (not one pass over it): a redirect sends it again
            "options": {"headers": {"Content-Length": str(body.length)}},
        }
    except ValueError:  # something pydantic-core cannot encode (a hook put an odd object in): the SDK's way
        payload = {"body": params}
    request = client.post(path, cast_to=cast_to, stream=True, stream_cls=AsyncStream[event_type], **payload)
    return await race_abort(request, options.signal)


async def iterate_stream(sdk_stream: Any, options: StreamOptions) -> AsyncGenerator[Any, None]:
    """Yield parsed events; an abort cancels the pending read. The HTTP response is always closed."""
    try:
        while True:
            try:
                event = await race_abort(sdk_stream.__anext__(), options.signal)
            except StopAsyncIteration:
                return
            yield event
    finally:
        try:
            await sdk_stream.close()
        except Exception:  # closing a broken connection may fail again; the real error is already known
            pass


def _body_message(body: Any) -> str | None:
    if isinstance(body, dict):
        msg = body.get("message")
        if isinstance(msg, str) and msg:
            return msg
        err = body.get("error")
        if isinstance(err, dict) and isinstance(err_msg := err.get("message"), str):
            return err_msg
        if isinstance(err, str) and err:
            return err
        return json.dumps(body) if body else None
    if isinstance(body, str) and body.strip():
        return body.strip()
    return None


def error_text(exc: BaseException, options: StreamOptions) -> str:
    """The errorMessage for a failed request, shaped like pi's: "<status> <server message>".

    The server's own text is kept so context-overflow patterns (pi_app/ai/overflow.py) can match it.
    """
    import openai

    if isinstance(exc, openai.APIStatusError):
        msg = _body_message(exc.body)
        text = f"{exc.status_code} {msg}" if msg else f"{exc.status_code} status code (no body)"
        raw = exc.body.get("metadata", {}).get("raw") if isinstance(exc.body, dict) else None
        if raw and not isinstance(raw, str):
            raw = json.dumps(raw)
        if raw:  # OpenRouter forwards the upstream provider's error here
            text += f"\n{raw}"
        return text
    if isinstance(exc, openai.APITimeoutError):
        return f"Request timed out: no data from the server for {options.idle_timeout_s:g} s (idle timeout)"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        return f"Connection error: {cause}" if cause else "Connection error"
    if isinstance(exc, openai.APIError):  # an error frame inside a 200 stream
        code = exc.code
        return f"{code}: {exc.message}" if code else exc.message
    if isinstance(exc, json.JSONDecodeError):
        return f"Malformed server-sent event (invalid JSON): {exc}"
    if isinstance(exc, AbortError):
        return "Request was aborted"
    return str(exc) or type(exc).__name__


async def close_client(client: Any) -> None:
    if client is not None:
        try:
            await client.close()
        except Exception:  # the connection may already be gone
            pass


# Streamed chunks and events are read as their parsed JSON (dicts and lists), not as the SDK's typed models
# (whose schemas cost ~55 ms for completions and ~1 s for responses on a run's first chunk); these read a
# field the way those models did.
def opt_field(obj: Any, key: str) -> Any:
    """A field read leniently: None when absent (as the SDK's models give a declared field the server left
    out, and as ``getattr(model, key, None)`` gives any other)."""
    return obj.get(key) if type(obj) is dict else getattr(obj, key, None)


def req_field(obj: Any, key: str) -> Any:
    """A field read as the SDK's models read it: an absent key of an object is None, but a value that is no
    JSON object (a server's oddity) fails as attribute access on it does."""
    return obj.get(key) if type(obj) is dict else getattr(obj, key)
