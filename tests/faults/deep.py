"""Hostile inputs shared by the fault-injection tests: deep linear sessions and deep JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|([\[\]{},:])|(-?[0-9][0-9.eE+-]*|true|false|null|NaN|-?Infinity))'
)


def write_linear_session(path: Path, cwd: str, n: int, *, text: str = "message") -> list[str]:
    """A session file whose ``n`` entries form one chain (user/assistant alternating); returns the ids."""
    ids = [f"e{i:07d}" for i in range(n)]
    lines = [
        json.dumps({"type": "session", "version": 3, "id": "deep-session", "timestamp": _ts(0), "cwd": cwd})
    ]
    for i, eid in enumerate(ids):
        if i % 2 == 0:
            message: dict[str, Any] = {
                "role": "user",
                "content": f"{text} {i}",
                "timestamp": 1_700_000_000_000 + i,
            }
        else:
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": f"answer {i}"}],
                "api": "faux",
                "provider": "faux",
                "model": "faux-1",
                "usage": {
                    "input": 10,
                    "output": 5,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 15,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": 1_700_000_000_000 + i,
            }
        entry = {
            "type": "message",
            "id": eid,
            "parentId": ids[i - 1] if i else None,
            "timestamp": _ts(i),
            "message": message,
        }
        lines.append(json.dumps(entry))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ids


def _ts(i: int) -> str:
    return f"2026-01-01T00:00:{i % 60:02d}.{i % 1000:03d}Z"


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def parse_iteratively(text: str) -> Any:
    """A JSON parser with no recursion (the stdlib one gives up near 1000 levels), for checking output."""
    stack: list[Any] = []
    keys: list[Any] = []
    result: Any = None
    pos = 0

    def put(value: Any) -> None:
        nonlocal result
        if not stack:
            result = value
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        elif keys[-1] is None:
            keys[-1] = value
        else:
            stack[-1][keys[-1]] = value
            keys[-1] = None

    end = len(text.rstrip())
    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"bad JSON at {pos}: {text[pos : pos + 40]!r}")
        pos = m.end()
        string, punct, literal = m.groups()
        if string is not None:
            put(json.loads(string))
        elif literal is not None:
            put(json.loads(literal))
        elif punct in "[{":
            container: Any = [] if punct == "[" else {}
            put(container)
            stack.append(container)
            keys.append(None)
        elif punct in "]}":
            stack.pop()
            keys.pop()
    return result
