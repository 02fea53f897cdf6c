"""Files this port appends to, or writes from scratch, are what pi 0.73.1 reads (requests pi sent are stored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.session.store import ModelRef, SessionManager

from .helpers import FIXTURES, NAMES, check_pi_file, copy_fixture, our_request, semantic
from .sample import append_sample, scratch_session, user


def _pi_request(path) -> dict:
    return json.loads(path.read_text("utf-8"))


def _continue_request(mgr: SessionManager) -> dict:
    """What we would send after the user types "continue" at the current leaf (as pi was asked to)."""
    ctx = mgr.build_session_context()
    assert ctx.model is not None
    return our_request([*ctx.messages, user("continue")], ctx.model.model_id)


@pytest.mark.parametrize("name", NAMES)
def test_append_keeps_pi_file_valid_and_pi_reads_the_same_context(tmp_path, name):
    path = copy_fixture(name, tmp_path)
    original = path.read_bytes()
    mgr = SessionManager.open(path)
    pi_leaf = mgr.get_leaf_id()
    ids = append_sample(mgr)
    entries = check_pi_file(
        path, original
    )  # header and pi's lines byte-identical, new ids 8-hex, chain valid
    new = entries[len(original.split(b"\n")) - 2 :]
    assert [e["type"] for e in new] == [
        "thinking_level_change",
        *["message"] * 4,
        "label",
        "session_info",
        "branch_summary",
        "message",
        "message",
    ]
    summary = next(e for e in new if e["type"] == "branch_summary")
    assert summary["parentId"] == summary["fromId"] == pi_leaf  # as pi 0.73 writes it
    reopened = SessionManager.open(path)
    assert reopened.warnings == [] and reopened.get_leaf_id() == ids["answer2"]
    assert reopened.get_label(ids["user"]) == "py-label"
    assert reopened.get_session_name() == "Continued in Python"
    # pi, run on this file with "continue", sent this request (tests/interop/README.md)
    pi = _pi_request(FIXTURES / "after_append" / f"{name}.request.json")
    ours = _continue_request(reopened)
    assert ours["model"] == pi["model"]
    assert reopened.build_session_context().thinking_level == pi.get("reasoning_effort", "off")
    assert semantic(ours["messages"]) == semantic(pi["messages"])


@pytest.mark.parametrize("name", NAMES)
def test_pi_continuation_of_our_append_loads_here(name):
    path = FIXTURES / "after_append" / f"{name}.continued-by-pi.jsonl"
    check_pi_file(path)
    mgr = SessionManager.open(path)
    assert mgr.warnings == []
    branch = mgr.get_branch()
    assert [e["message"]["role"] for e in branch[-2:]] == ["user", "assistant"]
    assert branch[-2]["message"]["content"][0]["text"] == "continue"
    assert branch[-3]["message"]["content"][0]["text"] == "PY-ANSWER-2: ok."


def test_scratch_session_is_read_by_pi_as_we_read_it(tmp_path):
    mgr, ids = scratch_session(tmp_path / "sessions", "/work/proj")
    assert mgr.session_file is not None
    path = Path(mgr.session_file)
    entries = check_pi_file(path)
    assert entries[0]["type"] == "model_change" and entries[0]["parentId"] is None
    assert {e["type"] for e in entries} >= {"branch_summary", "label", "compaction", "session_info"}
    reopened = SessionManager.open(path)
    assert reopened.warnings == []
    ctx = reopened.build_session_context()
    assert ctx.model == ModelRef("loop", "loop-other") and ctx.thinking_level == "off"
    assert ctx.entry_ids[:2] == [ids["compaction"], ids["u3"]]
    pi = _pi_request(FIXTURES / "scratch.request.json")
    ours = _continue_request(reopened)
    assert ours["model"] == pi["model"]
    assert semantic(ours["messages"]) == semantic(pi["messages"])
    # the abandoned path and the branch summary are where pi saw them
    before = reopened.build_session_context(ids["a2"])
    assert [m["role"] for m in before.raw_messages][-1] == "assistant" and len(before.raw_messages) == 8


def test_pi_continuation_of_scratch_session_loads_here():
    path = FIXTURES / "scratch.continued-by-pi.jsonl"
    check_pi_file(path)
    mgr = SessionManager.open(path)
    assert mgr.warnings == [] and mgr.get_session_name() == "Written in Python"
    assert mgr.labels() and "py-fork" in mgr.labels().values()
    ctx = mgr.build_session_context()
    assert ctx.raw_messages[-1]["content"][0]["text"] == "Reply 32 to: continue"
    assert ctx.raw_messages[0]["role"] == "compactionSummary"
