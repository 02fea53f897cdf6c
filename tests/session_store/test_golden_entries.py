"""Each entry type's JSON line, byte for byte, as pi writes it."""

from __future__ import annotations

import itertools
import json

import pytest

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.messages import BashExecutionMessage
from pi_app.session.store import SessionManager
from pi_app.session.store import manager as manager_mod
from pi_app.session.store.entries import parse_entry


@pytest.fixture
def fixed(monkeypatch):
    ids = (f"{n:08x}" for n in itertools.count(0xA0))
    monkeypatch.setattr(manager_mod, "new_entry_id", lambda taken: next(ids))
    monkeypatch.setattr(manager_mod, "iso_now", lambda: "2025-11-12T10:00:00.000Z")
    monkeypatch.setattr(manager_mod, "uuid7", lambda: "019a7700-0000-7000-8000-000000000001")


def _lines(mgr: SessionManager) -> list[str]:
    return open(mgr.session_file, encoding="utf-8").read().splitlines()


def test_golden_lines(tmp_path, fixed):
    mgr = SessionManager.create("/work/p", tmp_path)
    assert mgr.session_file == str(
        tmp_path / "2025-11-12T10-00-00-000Z_019a7700-0000-7000-8000-000000000001.jsonl"
    )
    mgr.append_model_change("anthropic", "claude-sonnet-4-5")
    mgr.append_thinking_level_change("off")
    mgr.append_message(UserMessage(content=[TextContent(text="héllo")], timestamp=1))
    mgr.append_message(
        AssistantMessage(content=[TextContent(text="hi")], api="a", provider="p", model="m", timestamp=2)
    )
    mgr.append_message(BashExecutionMessage(command="ls", output="x", exitCode=0, timestamp=3))
    mgr.append_compaction("sum", "000000a2", 1234, {"readFiles": [], "modifiedFiles": ["a.py"]}, False)
    mgr.branch_with_summary("000000a3", "branch sum")
    mgr.append_custom_entry("ext", {"k": None})
    mgr.append_custom_message_entry("ext", "shown", True)
    mgr.append_label_change("000000a2", "mark")
    mgr.append_label_change("000000a2", None)
    mgr.append_session_info("  My name  ")
    assert _lines(mgr) == [
        '{"type":"session","version":3,"id":"019a7700-0000-7000-8000-000000000001",'
        '"timestamp":"2025-11-12T10:00:00.000Z","cwd":"/work/p"}',
        '{"type":"model_change","id":"000000a0","parentId":null,"timestamp":"2025-11-12T10:00:00.000Z",'
        '"provider":"anthropic","modelId":"claude-sonnet-4-5"}',
        '{"type":"thinking_level_change","id":"000000a1","parentId":"000000a0",'
        '"timestamp":"2025-11-12T10:00:00.000Z","thinkingLevel":"off"}',
        '{"type":"message","id":"000000a2","parentId":"000000a1","timestamp":"2025-11-12T10:00:00.000Z",'
        '"message":{"role":"user","content":[{"type":"text","text":"héllo"}],"timestamp":1}}',
        '{"type":"message","id":"000000a3","parentId":"000000a2","timestamp":"2025-11-12T10:00:00.000Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"a","provider":"p","model":"m",'
        '"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0.0,'
        '"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}},"stopReason":"stop","timestamp":2}}',
        '{"type":"message","id":"000000a4","parentId":"000000a3","timestamp":"2025-11-12T10:00:00.000Z",'
        '"message":{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,'
        '"truncated":false,"timestamp":3}}',
        '{"type":"compaction","id":"000000a5","parentId":"000000a4","timestamp":"2025-11-12T10:00:00.000Z",'
        '"summary":"sum","firstKeptEntryId":"000000a2","tokensBefore":1234,'
        '"details":{"readFiles":[],"modifiedFiles":["a.py"]},"fromHook":false}',
        '{"type":"branch_summary","id":"000000a6","parentId":"000000a3","timestamp":"2025-11-12T10:00:00.000Z",'
        '"fromId":"000000a3","summary":"branch sum"}',
        '{"type":"custom","id":"000000a7","parentId":"000000a6","timestamp":"2025-11-12T10:00:00.000Z",'
        '"customType":"ext","data":{"k":null}}',
        '{"type":"custom_message","id":"000000a8","parentId":"000000a7","timestamp":"2025-11-12T10:00:00.000Z",'
        '"customType":"ext","content":"shown","display":true}',
        '{"type":"label","id":"000000a9","parentId":"000000a8","timestamp":"2025-11-12T10:00:00.000Z",'
        '"targetId":"000000a2","label":"mark"}',
        '{"type":"label","id":"000000aa","parentId":"000000a9","timestamp":"2025-11-12T10:00:00.000Z",'
        '"targetId":"000000a2"}',
        '{"type":"session_info","id":"000000ab","parentId":"000000aa","timestamp":"2025-11-12T10:00:00.000Z",'
        '"name":"My name"}',
    ]
    assert mgr.get_label("000000a2") is None and mgr.get_session_name() == "My name"


def test_typed_entries_roundtrip(tmp_path):
    for name in ("linear.jsonl", "branched.jsonl", "compacted.jsonl"):
        from .helpers import FIXTURES

        for line in (FIXTURES / name).read_text().splitlines()[1:]:
            raw = json.loads(line)
            typed = parse_entry(raw)
            from pi_app.session.store import dump_entry

            assert dump_entry(typed) == raw, raw["type"]


def test_parse_entry_unknown_type_is_raw():
    raw = {"type": "future_thing", "id": "12345678", "parentId": None, "timestamp": "t", "x": [1]}
    assert parse_entry(raw) is raw


def test_append_refuses_summary_roles():
    mgr = SessionManager.in_memory("/w")
    with pytest.raises(ValueError):
        mgr.append_message({"role": "compactionSummary", "summary": "s", "tokensBefore": 1, "timestamp": 1})
    with pytest.raises(KeyError):
        mgr.append_label_change("missing", "x")
    with pytest.raises(KeyError):
        mgr.branch("missing")
