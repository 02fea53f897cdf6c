"""The ``google-generative-ai`` provider: Gemini's streaming REST API over ``httpx2`` (no Google SDK).

``POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`` with the ``x-goog-api-key`` header; each SSE
``data`` line is one ``GenerateContentResponse`` whose parts are folded into a :class:`MessageBuilder`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from pi_app.ai.abort import AbortError, race_abort
from pi_app.ai.builder import MessageBuilder
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.google_request import (
    build_encoded_payload,
    build_headers,
    build_payload,
    build_url,
    normalize_tool_call_id,
)
from pi_app.ai.providers.http_common import (
    HttpStatusError,
    MalformedStreamError,
    ProviderError,
    aiter_sse,
    client_warm_up,
    close_quietly,
    describe_transport_error,
    format_http_error,
    http_client_options,
    make_timeout,
    next_item,
    request_body,
    resolve_api_key,
)
from pi_app.ai.providers.json_body import StreamedBody
from pi_app.ai.transcript import resolve_transcript, supports_mid_convo_system
from pi_app.ai.transform import transform_messages
from pi_app.ai.types import Context, Model, now_ms

_tool_call_counter = itertools.count(1)


def map_finish_reason(reason: str) -> str:
    """Gemini finishReason → pi StopReason (safety/recitation/malformed calls etc. are errors)."""
    if reason == "STOP":
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    return "error"


class _GeminiState:
    __slots__ = ("current", "finish_reason", "stop_reason")

    def __init__(self) -> None:
        self.current: int | None = None  # builder index of the open text/thinking block
        self.finish_reason: str | None = None
        self.stop_reason: str | None = None


def _close_current(b: MessageBuilder, st: _GeminiState) -> list[AssistantMessageEvent]:
    if st.current is None:
        return []
    idx, st.current = st.current, None
    block = b.msg.content[idx]
    return [b.end_text(idx) if block.type == "text" else b.end_thinking(idx)]


def _text_part(b: MessageBuilder, st: _GeminiState, part: dict[str, Any]) -> list[AssistantMessageEvent]:
    out: list[AssistantMessageEvent] = []
    thinking = part.get("thought") is True
    wanted = "thinking" if thinking else "text"
    if st.current is None or b.msg.content[st.current].type != wanted:
        out += _close_current(b, st)
        st.current, ev = b.begin_thinking() if thinking else b.begin_text()
        out.append(ev)
    idx = st.current
    block = b.msg.content[idx]
    signature = part.get("thoughtSignature")
    # Some backends send the signature only on one delta of a block: keep the last non-empty one.
    if thinking:
        if signature:
            block.thinkingSignature = signature  # type: ignore[union-attr]
        out.append(b.thinking_delta(idx, part["text"]))
    else:
        if signature:
            block.textSignature = signature  # type: ignore[union-attr]
        out.append(b.text_delta(idx, part["text"]))
    return out


def _function_call(b: MessageBuilder, st: _GeminiState, part: dict[str, Any]) -> list[AssistantMessageEvent]:
    out = _close_current(b, st)
    call = part["functionCall"] or {}
    name = call.get("name") or ""
    call_id = call.get("id")
    taken = {c.id for c in b.msg.content if c.type == "toolCall"}
    if not call_id or call_id in taken:
        call_id = f"{name}_{now_ms()}_{next(_tool_call_counter)}"
    args = call.get("args")
    if not isinstance(args, dict):
        args = {}
    idx, ev = b.begin_tool_call(call_id, name)
    if part.get("thoughtSignature"):
        b.msg.content[idx].thoughtSignature = part["thoughtSignature"]  # type: ignore[union-attr]
    out.append(ev)
    out.append(b.tool_delta(idx, json.dumps(args)))
    out.append(b.end_tool_call(idx, dict(args)))
    return out


def _apply_usage(b: MessageBuilder, meta: dict[str, Any]) -> None:
    cached = int(meta.get("cachedContentTokenCount") or 0)
    u = b.usage
    # promptTokenCount includes the cached tokens; pi counts them only as cacheRead.
    u.input = max(0, int(meta.get("promptTokenCount") or 0) - cached)
    u.output = int(meta.get("candidatesTokenCount") or 0) + int(meta.get("thoughtsTokenCount") or 0)
    u.cacheRead = cached
    u.cacheWrite = 0
    b.finish_usage()


def _handle_chunk(b: MessageBuilder, st: _GeminiState, chunk: Any) -> list[AssistantMessageEvent]:
    if not isinstance(chunk, dict):
        raise MalformedStreamError(f"Malformed stream data: unexpected chunk {chunk!r}"[:300])
    if "error" in chunk:
        # An error reported inside the stream (the HTTP status was already 200).
        err = chunk["error"]
        status = err.get("code") if isinstance(err, dict) else None
        text = format_http_error(int(status) if isinstance(status, int) else 0, chunk)
        raise ProviderError(text.removeprefix("0 "))
    out: list[AssistantMessageEvent] = []
    if chunk.get("responseId") and not b.msg.responseId:
        b.msg.responseId = chunk["responseId"]
    candidates = chunk.get("candidates") or []
    candidate = candidates[0] if candidates else {}
    for part in (candidate.get("content") or {}).get("parts") or []:
        if isinstance(part.get("text"), str):
            out += _text_part(b, st, part)
        if part.get("functionCall") is not None:
            out += _function_call(b, st, part)
    if candidate.get("finishReason"):
        st.finish_reason = candidate["finishReason"]
        st.stop_reason = map_finish_reason(st.finish_reason)
        if any(c.type == "toolCall" for c in b.msg.content) and st.stop_reason != "error":
            st.stop_reason = "toolUse"
    if isinstance(chunk.get("usageMetadata"), dict):
        _apply_usage(b, chunk["usageMetadata"])
    return out


def _error_text(exc: BaseException, options: StreamOptions) -> str:
    if isinstance(exc, ProviderError):
        return str(exc)
    return describe_transport_error(exc, options.idle_timeout_s) or str(exc) or type(exc).__name__


async def stream_google(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    b = MessageBuilder(model)
    yield b.start()
    signal = options.signal
    client: Any = None
    response: Any = None
    try:
        api_key = resolve_api_key(model, options)
        if not api_key:
            raise ProviderError(f"No API key for provider: {model.provider}")
        transcript = resolve_transcript(context, supports_mid_convo_system(model.api, model.compat))
        body = await request_body(
            model,
            options,
            lambda: build_encoded_payload(model, transcript, options, client_warm_up(model.baseUrl, 0.53)),
            lambda: build_payload(
                model,
                transcript,
                transform_messages(transcript.messages, model, normalize_tool_call_id),
                options,
            ),
        )

        import httpx2

        # read = idle bound: no byte for that long fails the stream. No retries here; the session
        # layer retries visibly.
        client = httpx2.AsyncClient(timeout=make_timeout(options), **http_client_options(model.baseUrl))
        headers = build_headers(model, options, api_key)
        if isinstance(body, StreamedBody):
            # the body itself (not one pass over it): a redirect sends it again; its length is known
            headers["content-length"] = str(body.length)
            request = client.build_request("POST", build_url(model), content=body, headers=headers)
        else:
            request = client.build_request("POST", build_url(model), json=body, headers=headers)
        response = await race_abort(client.send(request, stream=True), signal)
        if response.status_code >= 400:
            error_body = await race_abort(response.aread(), signal)
            raise HttpStatusError(response.status_code, error_body, response.headers.get("retry-after"))

        st = _GeminiState()
        events = aiter_sse(response.aiter_bytes()).__aiter__()
        while True:
            try:
                sse_event = await next_item(events, signal=signal)
            except StopAsyncIteration:
                break
            if not sse_event.data.strip() or sse_event.data.strip() == "[DONE]":
                continue
            for ev in _handle_chunk(b, st, sse_event.json()):
                yield ev

        if signal is not None and signal.aborted:
            raise AbortError()
        for ev in _close_current(b, st):
            yield ev
        for ev in b.close_open_blocks():
            yield ev
        if st.stop_reason is None:
            raise ProviderError(
                "Connection error: stream ended without a finish reason (connection terminated)"
            )
        if st.stop_reason == "error":
            yield b.error(f"Model stopped with finish reason: {st.finish_reason}")
            return
        yield b.done(st.stop_reason)
    except BaseException as exc:  # noqa: BLE001 - provider contract: failures become an error event
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)):
            raise  # the consumer went away or cancelled us; the stream wrapper reports it
        yield b.fail(exc, signal, lambda e: _error_text(e, options))
    finally:
        await close_quietly(response, client)
