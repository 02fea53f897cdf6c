import httpx2
import pytest

from tests.loopback.server import DROP, Scripted, json_response, sse


def test_streams_chunks_and_records(loopback):
    loopback.add(Scripted(chunks=sse(("ping", {"a": 1}), (None, "[DONE]"))))
    r = httpx2.post(loopback.url + "/v1/x", json={"q": 1})
    assert r.status_code == 200
    assert r.text == 'event: ping\ndata: {"a": 1}\n\ndata: [DONE]\n\n'
    assert loopback.requests[0].json == {"q": 1}
    assert loopback.requests[0].path == "/v1/x"


def test_drop_is_an_incomplete_body(loopback):
    loopback.add(Scripted(chunks=[b"data: 1\n\n", DROP]))
    with pytest.raises(httpx2.HTTPError):
        httpx2.post(loopback.url, json={}).read()


def test_json_error(loopback):
    loopback.add(json_response(429, {"error": "slow down"}))
    assert httpx2.post(loopback.url, json={}).status_code == 429
