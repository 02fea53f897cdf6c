"""The tree of a session opened from its file, where roles come from the loader's message heads (the line
prefixes), is the tree of the same entries as parsed dicts — and opening a big one parses no line."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from pi_app.session.store import SessionManager
from tests.tree.helpers import assistant, branchy_session, entry, user
from tests.tree.test_spine_pass import deep_session, state
from widgets.tree import TreeModel
from widgets.tree.model import FILTERS

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}


def write(path: Path, entries: list[dict[str, Any]], spaced: bool = False) -> None:
    seps = (", ", ": ") if spaced else (",", ":")
    path.write_text("".join(json.dumps(e, separators=seps) + "\n" for e in [HEADER, *entries]), "utf-8")


def odd_messages(rng: random.Random, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages whose prefix does not settle their facts, and a tool-set log (bookkeeping)."""
    out: list[dict[str, Any]] = []
    for k, e in enumerate(entries):
        roll = rng.random()
        if roll < 0.05 and e["type"] == "message" and e["message"]["role"] == "assistant":
            e = assistant(e["id"], e["parentId"], "thought out", k)  # thinking first, text after
            e["message"]["content"].insert(0, {"type": "thinking", "thinking": "hm"})
        elif roll < 0.08 and e["type"] == "message" and e["message"]["role"] == "assistant":
            e = assistant(e["id"], e["parentId"], "", k, calls=[(f"c{k}", "ls", {})], stop="aborted")
        elif roll < 0.085 and e["type"] == "message" and e["message"]["role"] == "assistant":
            e = assistant(e["id"], e["parentId"], "", k, calls=[(f"c{k}", "ls", {})], stop="toolUse")
            e["message"]["content"].insert(0, {"type": "thinking", "thinking": 'say "{hi}"'})  # hidden
        elif roll < 0.09 and e["type"] == "message" and e["message"]["role"] == "assistant":
            texty = {"blocks": [{"type": "text", "text": "in the arguments"}]}
            e = assistant(e["id"], e["parentId"], "", k, calls=[(f"c{k}", "post", texty)], stop="toolUse")
        elif roll < 0.1:
            system = {"role": "system", "content": "", "toolsAdded": [{"name": "read"}], "timestamp": k}
            e = entry("message", e["id"], e["parentId"], k, message=system)
        out.append(e)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_loaded_session_lays_out_like_its_parsed_entries(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    entries = odd_messages(rng, deep_session(rng))
    path = tmp_path / "s.jsonl"
    write(path, entries, spaced=seed % 3 == 2)
    sm = SessionManager.open(str(path))
    leaf = sm.leaf_id
    for mode in FILTERS:
        loaded = TreeModel.from_session(sm, filter_mode=mode)
        parsed = TreeModel(json.loads(json.dumps(entries)), leaf, sm.labels(), filter_mode=mode)
        assert state(loaded) == state(parsed), mode


def test_opening_a_big_branchy_session_parses_no_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Structural guard (issue 18): pi's lines carry the role (and that an answer has text) in their prefix;
    the loader keeps it, so building the tree reads no message line again, let alone json-parses one."""
    path = tmp_path / "s.jsonl"
    entries = branchy_session(10_000, 10)  # the 50k bench session's shape, a fifth the size
    entries.append(user("late", "e9999", "a question after the last answer", 10_000))
    write(path, entries)
    sm = SessionManager.open(str(path))
    loads: list[object] = []
    real_loads = json.loads

    def counting(s: Any, *args: Any, **kwargs: Any) -> Any:
        loads.append(s)
        return real_loads(s, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    model = TreeModel.for_session(sm)
    assert model.spine and len(model) > 4_000
    assert loads == [], f"{len(loads)} lines parsed while opening"
    assert model._t.facts_read == 0, "facts read from lines the loader had already seen"
    assert not any(r.is_parsed for r in sm.raw_entries())


def test_an_agentic_session_opens_without_reading_its_answers(tmp_path: Path):
    """Answers that think first, then write or call tools (most turns of a real session): the loader tells
    from the bytes which have text and which are tool calls only (hidden), so the tree reads no line."""
    path = tmp_path / "s.jsonl"
    entries = branchy_session(6_000, 10)
    for k, e in enumerate(entries):
        if e["message"]["role"] == "assistant":
            if k % 3:
                e["message"] = assistant(e["id"], e["parentId"], "", k, [(f"c{k}", "bash", {})], "toolUse")[
                    "message"
                ]
            e["message"]["content"].insert(0, {"type": "thinking", "thinking": "first, {think} \\ it over"})
    write(path, entries)
    sm = SessionManager.open(str(path))
    model = TreeModel.for_session(sm)
    assert model._t.facts_read == 0, "answers read from their lines"
    parsed = TreeModel(json.loads(json.dumps(entries)), sm.leaf_id, sm.labels())
    assert state(model) == state(parsed)
