"""Best-effort parsing of a JSON object that is still streaming (tool-call arguments)."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_json as _to_json


def _complete(text: str) -> str:
    """Close open strings, arrays and objects of a truncated JSON text."""
    stack: list[str] = []
    in_str = False
    esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if stack:
                stack.pop()
    out = text
    if in_str:
        if esc:
            out = out[:-1]
        out += '"'
    out = out.rstrip()
    # drop a dangling separator or an incomplete literal so the closers make valid JSON
    while out and out[-1] in ",:":
        out = out[:-1].rstrip()
    return out + "".join(reversed(stack))


def parse_streaming_json(text: str) -> dict[str, Any]:
    """Parse possibly-incomplete JSON; returns ``{}`` when nothing usable is there yet."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
        return value if isinstance(value, dict) else {}
    except ValueError:
        pass
    candidate = _complete(text)
    for _ in range(8):
        try:
            value = json.loads(candidate)
            return value if isinstance(value, dict) else {}
        except ValueError:
            pass
        # an unfinished key ("ke) or literal (tru) at the end: cut back to the last separator
        cut = max(candidate.rfind(","), candidate.rfind("{"), candidate.rfind("["))
        if cut <= 0:
            return {}
        head = candidate[: cut + 1] if candidate[cut] in "{[" else candidate[:cut]
        candidate = _complete(head)
    return {}


# One encoder: ``json.dumps`` with non-default options builds a new one per call.
_JS_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def js_json(value: Any) -> str:
    """JSON text as JavaScript's ``JSON.stringify`` writes it (compact, non-ASCII kept), so requests and
    stored signatures match pi's byte for byte.

    pydantic-core's encoder is 5x the stdlib's (every tool call of a resumed transcript is encoded, ~2 µs
    each) and nearer to JavaScript: NaN and Infinity become null and ``1e-7`` keeps its short form. A lone
    surrogate, which it refuses, takes the stdlib's way."""
    try:
        return _to_json(value, inf_nan_mode="null").decode()
    except ValueError:  # pydantic-core's serialization error is a ValueError
        return _JS_ENCODER.encode(value)
