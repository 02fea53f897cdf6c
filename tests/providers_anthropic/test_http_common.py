"""The shared HTTP/SSE helpers used by the streaming providers."""

from __future__ import annotations

import asyncio

import pytest

from pi_app.ai.abort import AbortController, AbortError
from pi_app.ai.providers.http_common import (
    MalformedStreamError,
    SseDecoder,
    StreamStalledError,
    aiter_sse,
    describe_transport_error,
    format_http_error,
    merge_headers,
    next_item,
)


def _decode_all(chunks: list[bytes]) -> list[tuple[str | None, str]]:
    dec = SseDecoder()
    out = []
    for c in chunks:
        out += [(e.event, e.data) for e in dec.feed(c)]
    out += [(e.event, e.data) for e in dec.finish()]
    return out


def test_sse_decoder_handles_split_lines_crlf_comments_and_multiline_data():
    raw = b': keep-alive\r\nevent: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\ndata: second\n\nevent: b\rdata: third\r\r'
    expected = [("a", '{"x":\n1}'), (None, "second"), ("b", "third")]
    assert _decode_all([raw]) == expected
    # byte-by-byte delivery (including a \r\n split across chunks) gives the same events
    assert _decode_all([raw[i : i + 1] for i in range(len(raw))]) == expected


def test_sse_decoder_flushes_a_final_event_without_blank_line():
    assert _decode_all([b"data: tail"]) == [(None, "tail")]


async def test_aiter_sse_and_malformed_json():
    async def chunks():
        yield b"data: {not json}\n\n"

    events = [e async for e in aiter_sse(chunks())]
    with pytest.raises(MalformedStreamError, match="Malformed stream data"):
        events[0].json()


def test_format_http_error_shapes():
    anthropic = (
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 2 > 1"}}'
    )
    assert format_http_error(400, anthropic) == "400 invalid_request_error: prompt is too long: 2 > 1"
    google = {"error": {"code": 400, "message": "The input token count exceeds the maximum", "status": "X"}}
    assert format_http_error(400, google) == "400 X: The input token count exceeds the maximum"
    assert format_http_error(502, b"<html>bad gateway</html>") == "502 <html>bad gateway</html>"
    assert format_http_error(413, "") == "413 status code (no body)"
    assert format_http_error(429, {"error": {"message": "slow"}}, "30").endswith("(retry-after: 30)")


def test_describe_transport_error():
    import httpx2

    assert describe_transport_error(httpx2.ReadTimeout("x"), 0.5).startswith(
        "Stream stalled: no data for 0.5 s"
    )
    assert describe_transport_error(httpx2.RemoteProtocolError("peer closed")).startswith("Connection error:")
    assert describe_transport_error(ValueError("x")) is None


def test_merge_headers_is_case_insensitive():
    assert merge_headers({"X-A": "1", "b": "2"}, None, {"x-a": "3"}) == {"b": "2", "x-a": "3"}


async def _slow_items(delay: float):
    yield 1
    await asyncio.sleep(delay)
    yield 2


async def test_next_item_idle_timeout_and_abort():
    it = _slow_items(5).__aiter__()
    assert await next_item(it, idle_timeout_s=0.2) == 1
    with pytest.raises(StreamStalledError, match="no data for 0.2 s"):
        await next_item(it, idle_timeout_s=0.2)  # the item is 5 s away: only the idle timeout ends this

    ctrl = AbortController()
    it = _slow_items(5).__aiter__()
    await next_item(it, signal=ctrl.signal)
    asyncio.get_running_loop().call_later(0.05, ctrl.abort)
    with pytest.raises(AbortError):
        await next_item(it, signal=ctrl.signal)
