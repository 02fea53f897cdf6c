"""Helpers for the pi 0.73.1 interop tests: fixtures, the requests pi sent, and a strict file checker."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.openai_completions_request import build_completions_params
from pi_app.ai.types import Context, Model, ModelCost
from pi_app.session.messages import convert_to_llm

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pi073"
NAMES = ("linear", "branched", "compacted")
HEX8 = re.compile(r"^[0-9a-f]{8}$")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

# The two models of the models.json the fixtures were generated with (provider "loop", see README.md).
MODELS = {
    "loop-model": Model(
        id="loop-model",
        name="Loop Model",
        api="openai-completions",
        provider="loop",
        baseUrl="http://127.0.0.1:18731/v1",
        reasoning=True,
        contextWindow=128000,
        maxTokens=16000,
        cost=ModelCost(input=1, output=2, cacheRead=0.1),
    ),
    "loop-other": Model(
        id="loop-other",
        name="Loop Other",
        api="openai-completions",
        provider="loop",
        baseUrl="http://127.0.0.1:18731/v1",
        contextWindow=64000,
        maxTokens=8000,
    ),
}

# Required fields per entry type, as pi's loader and tree code read them.
REQUIRED = {
    "message": ("message",),
    "thinking_level_change": ("thinkingLevel",),
    "model_change": ("provider", "modelId"),
    "compaction": ("summary", "firstKeptEntryId", "tokensBefore"),
    "branch_summary": ("fromId", "summary"),
    "custom": ("customType",),
    "custom_message": ("customType", "content", "display"),
    "label": ("targetId",),
    "session_info": (),
}


def copy_fixture(name: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / f"{name}.jsonl"
    shutil.copy(FIXTURES / f"{name}.jsonl", target)
    return target


def pi_requests(name: str) -> list[dict[str, Any]]:
    """[{leafId, request}] — each request body pi sent with the session leaf at ``leafId``."""
    return json.loads((FIXTURES / f"{name}.requests.json").read_text("utf-8"))


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text"
    )


def semantic(wire: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Chat Completions messages reduced to what matters: role, text, tool calls (id, name, args), result ids."""
    out: list[tuple[Any, ...]] = []
    for m in wire:
        role = m["role"]
        if role in ("system", "developer"):
            continue
        calls = tuple(
            (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"] or "{}"))
            for c in m.get("tool_calls") or []
        )
        out.append(
            (role, text_of(m.get("content")), m.get("reasoning_content"), calls, m.get("tool_call_id"))
        )
    return out


def our_request(messages: list[Any], model_id: str) -> dict[str, Any]:
    """The Chat Completions body this port builds from agent messages (system prompt stubbed)."""
    model = MODELS[model_id]
    context = Context(systemPrompt="<system prompt omitted>", messages=convert_to_llm(messages))
    return build_completions_params(model, context, StreamOptions())


def check_pi_file(path: Path, original: bytes | None = None) -> list[dict[str, Any]]:
    """Assert ``path`` is a v3 session file pi 0.73 loads as written; returns the entries.

    With ``original`` (the file before we appended), the file must start with exactly those bytes, and every
    entry after them must have a fresh 8-hex id whose parent is an earlier entry.
    """
    data = path.read_bytes()
    assert data.endswith(b"\n"), "file must end with a newline"
    if original is not None:
        assert data.startswith(original), "appending changed existing bytes"
    lines = data.decode("utf-8").split("\n")[:-1]
    header = json.loads(lines[0])
    assert list(header)[:5] == ["type", "version", "id", "timestamp", "cwd"], header
    assert header["type"] == "session" and header["version"] == 3 and ISO.match(header["timestamp"])
    first_new = len(original.split(b"\n")) - 1 if original is not None else 1
    seen: set[str] = set()
    entries: list[dict[str, Any]] = []
    for n, line in enumerate(lines[1:], 1):
        e = json.loads(line)
        assert list(e)[:4] == ["type", "id", "parentId", "timestamp"], (
            f"line {n + 1}: key order {list(e)[:4]}"
        )
        assert e["id"] not in seen, f"duplicate id {e['id']}"
        if n >= first_new:
            assert HEX8.match(e["id"]), e["id"]
        assert e["parentId"] is None or e["parentId"] in seen, f"line {n + 1}: parent {e['parentId']} unknown"
        assert ISO.match(e["timestamp"]), e["timestamp"]
        for key in REQUIRED.get(e["type"], ()):
            assert key in e, f"line {n + 1}: {e['type']} misses {key}"
        if e["type"] == "message":
            msg = e["message"]
            assert isinstance(msg.get("role"), str) and isinstance(msg.get("timestamp"), int)
        if e["type"] == "compaction":
            assert e["firstKeptEntryId"] in seen
        if e["type"] == "label":
            assert e["targetId"] in seen
        seen.add(e["id"])
        entries.append(e)
    return entries
