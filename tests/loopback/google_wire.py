"""Gemini ``streamGenerateContent?alt=sse`` bodies in real wire format, for the loopback server.

Each SSE event is a ``data:`` line holding one ``GenerateContentResponse`` chunk. Build parts with
:func:`text_part`, :func:`thought_part`, :func:`call_part`, chunks with :func:`chunk`, whole responses
with :func:`gemini_stream` (or :func:`gemini_text_stream`); :func:`gemini_error` is an HTTP error body.
"""

from __future__ import annotations

from typing import Any

from tests.loopback.server import Scripted, json_response, sse

Part = dict[str, Any]


def text_part(text: str, signature: str | None = None) -> Part:
    part: Part = {"text": text}
    if signature:
        part["thoughtSignature"] = signature
    return part


def thought_part(text: str, signature: str | None = None) -> Part:
    return {**text_part(text, signature), "thought": True}


def call_part(
    name: str, args: dict[str, Any], call_id: str | None = None, signature: str | None = None
) -> Part:
    call: dict[str, Any] = {"name": name, "args": args}
    if call_id:
        call["id"] = call_id
    part: Part = {"functionCall": call}
    if signature:
        part["thoughtSignature"] = signature
    return part


def usage(prompt: int = 10, candidates: int = 5, thoughts: int = 0, cached: int = 0) -> dict[str, int]:
    meta = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates,
    }
    if thoughts:
        meta["thoughtsTokenCount"] = thoughts
        meta["totalTokenCount"] += thoughts
    if cached:
        meta["cachedContentTokenCount"] = cached
    return meta


def chunk(
    *parts: Part,
    finish: str | None = None,
    usage_meta: dict[str, int] | None = None,
    response_id: str = "resp_loopback_1",
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0}
    if parts:
        candidate["content"] = {"role": "model", "parts": list(parts)}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {
        "candidates": [candidate],
        "modelVersion": "gemini-test",
        "responseId": response_id,
    }
    if usage_meta:
        out["usageMetadata"] = usage_meta
    return out


def gemini_stream(*chunks: dict[str, Any]) -> list[bytes]:
    """One SSE frame per chunk (no event names, like Gemini)."""
    return sse(*[(None, c) for c in chunks])


def gemini_text_stream(text: str, finish: str = "STOP", **usage_kw: int) -> list[bytes]:
    half = max(1, len(text) // 2)
    return gemini_stream(
        chunk(text_part(text[:half])),
        chunk(text_part(text[half:]), finish=finish, usage_meta=usage(**usage_kw)),
    )


def gemini_ok(*chunks: dict[str, Any]) -> Scripted:
    return Scripted(chunks=gemini_stream(*chunks))


def gemini_error(
    status: int, message: str, status_name: str = "INVALID_ARGUMENT", **headers: str
) -> Scripted:
    return json_response(
        status, {"error": {"code": status, "message": message, "status": status_name}}, headers or None
    )
