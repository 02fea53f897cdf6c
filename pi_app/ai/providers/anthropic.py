"""The ``anthropic-messages`` provider: streams Claude replies through the official ``anthropic`` SDK.

The SDK is imported inside :func:`stream_anthropic`, its type catalogue deferred (``sdk_import``). The request
body is built by :mod:`pi_app.ai.providers.anthropic_request` and, unless a payload hook wants to see it as
dicts, sent as the JSON bytes it was encoded to (``json_body``); this module drives the SSE events into a
:class:`MessageBuilder` and turns every failure (HTTP status, dropped connection, stall, abort) into the
final error event.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from pi_app.ai.abort import AbortError, race_abort
from pi_app.ai.builder import MessageBuilder
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.anthropic_request import (
    api_key_header,
    build_encoded_payload,
    build_headers,
    build_payload,
    from_claude_code_name,
    is_oauth_token,
    normalize_tool_call_id,
)
from pi_app.ai.providers.http_common import (
    MalformedStreamError,
    ProviderError,
    client_warm_up,
    close_quietly,
    describe_transport_error,
    format_http_error,
    http_client_options,
    make_timeout,
    malformed_data_message,
    next_item,
    request_body,
    resolve_api_key,
)
from pi_app.ai.providers.json_body import StreamedBody
from pi_app.ai.providers.sdk_import import defer_sdk_packages
from pi_app.ai.transcript import resolve_transcript, supports_mid_convo_system
from pi_app.ai.transform import transform_messages
from pi_app.ai.types import Context, Model

defer_sdk_packages()  # before the SDK is first imported (inside stream_anthropic)

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",  # the caller may resubmit; nothing is lost
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}


def map_stop_reason(reason: str) -> str:
    """Anthropic stop_reason → pi StopReason; unknown values are errors (never silently "stop")."""
    return _STOP_REASONS.get(reason, "error")


class _StreamState:
    """Maps Anthropic content-block indices to builder indices and tracks the message's ending."""

    __slots__ = ("blocks", "stop_reason", "raw_stop_reason", "finished")

    def __init__(self) -> None:
        self.blocks: dict[int, int] = {}
        self.stop_reason: str | None = None
        self.raw_stop_reason: str | None = None
        self.finished = False


def _apply_usage(b: MessageBuilder, usage: dict[str, Any] | None) -> None:
    """Copy the counts that are present (proxies omit some in message_delta; keep the earlier ones)."""
    if not usage:
        return
    u = b.usage
    if usage.get("input_tokens") is not None:
        u.input = int(usage["input_tokens"])
    if usage.get("output_tokens") is not None:
        u.output = int(usage["output_tokens"])
    if usage.get("cache_read_input_tokens") is not None:
        u.cacheRead = int(usage["cache_read_input_tokens"])
    if usage.get("cache_creation_input_tokens") is not None:
        u.cacheWrite = int(usage["cache_creation_input_tokens"])
    b.finish_usage()


def _handle_event(
    b: MessageBuilder, st: _StreamState, event: dict[str, Any], oauth: bool, context_tools: list[Any]
) -> list[AssistantMessageEvent]:
    kind = event.get("type")
    out: list[AssistantMessageEvent] = []
    if kind == "message_start":
        message = event.get("message") or {}
        if message.get("id"):
            b.msg.responseId = message["id"]
        _apply_usage(b, message.get("usage"))
    elif kind == "content_block_start":
        index = event.get("index", 0)
        block = event.get("content_block") or {}
        btype = block.get("type")
        ev: AssistantMessageEvent
        if btype == "text":
            idx, ev = b.begin_text(block.get("text") or "")
        elif btype == "thinking":
            idx, ev = b.begin_thinking(signature=block.get("signature") or None)
            if block.get("thinking"):
                b.msg.content[idx].thinking = block["thinking"]  # type: ignore[union-attr]
        elif btype == "redacted_thinking":
            # The encrypted payload travels in thinkingSignature and is replayed as redacted_thinking.
            idx, ev = b.begin_thinking(signature=block.get("data") or "", redacted=True)
            b.msg.content[idx].thinking = "[Reasoning redacted]"  # type: ignore[union-attr]
        elif btype == "tool_use":
            name = block.get("name") or ""
            if oauth:
                name = from_claude_code_name(name, context_tools)
            idx, ev = b.begin_tool_call(block.get("id") or "", name)
            if block.get("input"):
                b.msg.content[idx].arguments = dict(block["input"])  # type: ignore[union-attr]
        else:
            return out  # server_tool_use etc.: not part of pi's content model
        st.blocks[index] = idx
        out.append(ev)
    elif kind == "content_block_delta":
        idx_or_none = st.blocks.get(event.get("index", -1))
        delta = event.get("delta") or {}
        if idx_or_none is None:
            return out
        idx = idx_or_none
        dtype = delta.get("type")
        if dtype == "text_delta":
            out.append(b.text_delta(idx, delta.get("text") or ""))
        elif dtype == "thinking_delta":
            out.append(b.thinking_delta(idx, delta.get("thinking") or ""))
        elif dtype == "signature_delta":
            b.add_thinking_signature(idx, delta.get("signature") or "")
        elif dtype == "input_json_delta":
            out.append(b.tool_delta(idx, delta.get("partial_json") or ""))
    elif kind == "content_block_stop":
        idx_or_none = st.blocks.pop(event.get("index", -1), None)
        if idx_or_none is not None:
            block = b.msg.content[idx_or_none]
            if block.type == "text":
                out.append(b.end_text(idx_or_none))
            elif block.type == "thinking":
                out.append(b.end_thinking(idx_or_none))
            else:
                has_json = bool(b.tool_json(idx_or_none).strip())
                out.append(b.end_tool_call(idx_or_none, None if has_json else dict(block.arguments)))
    elif kind == "message_delta":
        reason = (event.get("delta") or {}).get("stop_reason")
        if reason:
            st.raw_stop_reason = reason
            st.stop_reason = map_stop_reason(reason)
        _apply_usage(b, event.get("usage"))
    elif kind == "message_stop":
        st.finished = True
    return out


def _error_text(exc: BaseException, options: StreamOptions) -> str:
    """Readable errorMessage for an SDK or transport exception."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        retry_after = exc.response.headers.get("retry-after") if exc.response is not None else None
        if exc.status_code == 200:
            # An ``event: error`` inside a 200 stream (e.g. overloaded_error): no meaningful status.
            return format_http_error(200, exc.body).removeprefix("200 ")
        return format_http_error(exc.status_code, exc.body, retry_after)
    if isinstance(exc, anthropic.APIConnectionError):  # includes APITimeoutError; the cause says more
        cause = exc.__cause__
        detail = describe_transport_error(cause, options.idle_timeout_s) if cause is not None else None
        return detail or f"Connection error: {exc}"
    if isinstance(exc, json.JSONDecodeError):  # the SDK's SSE decoder met a data line that is not JSON
        return malformed_data_message(exc.doc)
    return describe_transport_error(exc, options.idle_timeout_s) or str(exc) or type(exc).__name__


def _make_client(model: Model, api_key: str, options: StreamOptions, oauth: bool) -> Any:
    import anthropic

    common: dict[str, Any] = {
        "base_url": model.baseUrl or None,
        # No silent SDK retries: the session layer retries visibly (auto_retry events), and stacked
        # retries would multiply the wait on 429/5xx. One request per call.
        "max_retries": 0,
        # read = idle bound: a stream that sends no byte for that long fails instead of hanging.
        "timeout": make_timeout(options),
        "http_client": anthropic.DefaultAsyncHttpxClient(
            timeout=make_timeout(options), **http_client_options(model.baseUrl)
        ),
        "default_headers": {**api_key_header(api_key, oauth), **build_headers(model, options, oauth)},
    }
    if oauth:
        return anthropic.AsyncAnthropic(auth_token=api_key, **common)
    return anthropic.AsyncAnthropic(api_key=api_key, **common)


async def stream_anthropic(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    b = MessageBuilder(model)
    yield b.start()
    signal = options.signal
    client: Any = None
    sdk_stream: Any = None
    try:
        api_key = resolve_api_key(model, options)
        if not api_key:
            raise ProviderError(f"No API key for provider: {model.provider}")
        oauth = is_oauth_token(api_key)
        transcript = resolve_transcript(context, supports_mid_convo_system(model.api, model.compat))
        body = await request_body(
            model,
            options,
            lambda: build_encoded_payload(
                model,
                transcript,
                options,
                oauth,
                client_warm_up(model.baseUrl, 0.75, "anthropic", "AsyncAnthropic"),
            ),
            lambda: build_payload(
                model,
                transcript,
                transform_messages(transcript.messages, model, normalize_tool_call_id),
                options,
                oauth,
            ),
        )
        if isinstance(body, StreamedBody):
            # the body itself (not one pass over it): a redirect sends it again
            request: dict[str, Any] = {
                "content": body,
                "options": {"headers": {"Content-Length": str(body.length)}},
            }
        else:
            request = {"body": body}

        from anthropic import AsyncStream

        client = _make_client(model, api_key, options, oauth)
        # ``object`` as the item type: the SDK hands over each event's JSON as a dict, so unknown
        # event and block types pass through instead of failing validation.
        sdk_stream = await race_abort(
            client.post(
                "/v1/messages", cast_to=object, stream=True, stream_cls=AsyncStream[object], **request
            ),
            signal,
        )
        st = _StreamState()
        events = sdk_stream.__aiter__()
        while True:
            try:
                event = await next_item(events, signal=signal)
            except StopAsyncIteration:
                break
            if not isinstance(event, dict):
                raise MalformedStreamError(f"Malformed stream data: unexpected event {event!r}")
            for ev in _handle_event(b, st, event, oauth, transcript.tools):
                yield ev
            if st.finished:
                break

        if signal is not None and signal.aborted:
            raise AbortError()
        for ev in b.close_open_blocks():
            yield ev
        if not st.finished:
            raise ProviderError("Connection error: stream ended before message_stop (connection terminated)")
        if st.stop_reason == "error":
            yield b.error(f"Model stopped with reason: {st.raw_stop_reason}")
            return
        if st.stop_reason is None and any(c.type == "toolCall" for c in b.msg.content):
            st.stop_reason = "toolUse"
        yield b.done(st.stop_reason or "stop")
    except BaseException as exc:  # noqa: BLE001 - provider contract: failures become an error event
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)):
            raise  # the consumer went away or cancelled us; the stream wrapper reports it
        yield b.fail(exc, signal, lambda e: _error_text(e, options))
    finally:
        await close_quietly(sdk_stream, client)
