"""Generators of large pi-format (v3) session files for the scaling tests and the resume benchmarks.

``linear_session`` writes the worst case for ``--session FILE -p hi``: every entry on the active path, no
compaction, so every message is sent to the model. ``branch_every`` adds abandoned side branches (entries
off the active path) and ``pad_bytes`` fattens tool results, for the big-file memory bench.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

WORDS = "the quick brown fox jumps over a lazy dog while refactoring module code tests".split()


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def _usage() -> dict[str, Any]:
    cost = {"input": 0.0012, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0015}
    return {"input": 900, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 920, "cost": cost}


def linear_session(
    path: Path,
    n: int,
    *,
    provider: str = "loop",
    model: str = "loop-model",
    api: str = "openai-completions",
    branch_every: int = 0,
    pad_bytes: int = 0,
    seed: int = 7,
    cwd: str = "/bench",
) -> int:
    """Write ``n`` entries (after the header); returns how many of them are on the active path."""
    rnd = random.Random(seed)
    ms = 1_762_766_102_114
    header = {"type": "session", "version": 3, "id": "019a6f2e-0000-7000-8000-0000000bench", "cwd": cwd}
    header["timestamp"] = _iso(ms)
    count = 0
    leaf: str | None = None
    pad = ("x" * pad_bytes) if pad_bytes else ""

    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(header, separators=(",", ":")) + "\n")

        def add(parent: str | None, kind: str, **body: Any) -> str:
            nonlocal count, ms
            ms += 1000
            eid = f"{count:08x}"
            entry = {"type": kind, "id": eid, "parentId": parent, "timestamp": _iso(ms), **body}
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")
            count += 1
            return eid

        leaf = add(None, "model_change", provider=provider, modelId=model)
        on_path = 1
        turn = 0
        while count < n:
            text = " ".join(rnd.choices(WORDS, k=rnd.randint(25, 80)))
            if branch_every and on_path % branch_every == 0 and count + 3 <= n and turn % 3 == 0:
                # An abandoned attempt: a user message and an answer nobody continues from.
                s = add(leaf, "message", message={"role": "user", "content": "side " + text, "timestamp": ms})
                add(s, "message", message=_assistant(text + pad, provider, model, api, ms, None))
            turn += 1
            role = turn % 3
            if role == 1:
                msg: dict[str, Any] = {
                    "role": "user",
                    "content": [{"type": "text", "text": text}],
                    "timestamp": ms,
                }
            elif role == 2:
                msg = _assistant(text, provider, model, api, ms, f"call_{count:06d}")
            else:
                msg = {
                    "role": "toolResult",
                    "toolCallId": f"call_{count - 1:06d}",
                    "toolName": "read",
                    "content": [{"type": "text", "text": text + pad}],
                    "isError": False,
                    "timestamp": ms,
                }
            leaf = add(leaf, "message", message=msg)
            on_path += 1
    return on_path


def _assistant(text: str, provider: str, model: str, api: str, ms: int, call: str | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text[:200]}]
    if call:
        content.append({"type": "toolCall", "id": call, "name": "read", "arguments": {"path": "src/m.py"}})
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": _usage(),
        "stopReason": "toolUse" if call else "stop",
        "timestamp": ms,
    }


def make_bad_line(path: Path, line: int) -> tuple[str, int]:
    """Make line ``line`` (1-based; an assistant message) unusable, its content a number: (its entry id,
    ``line``)."""
    lines = path.read_bytes().splitlines(keepends=True)
    text = lines[line - 1].decode()
    assert '"role":"assistant"' in text
    start = text.index('"content":[')
    end = text.index('],"api"')
    lines[line - 1] = (text[:start] + '"content":12' + text[end + 1 :]).encode()
    path.write_bytes(b"".join(lines))
    return text.split('"id":"', 1)[1].split('"', 1)[0], line
