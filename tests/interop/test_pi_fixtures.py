"""Sessions written by the real pi 0.73.1 load here and rebuild exactly the context pi sent to the model."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_app.session.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage
from pi_app.session.store import ModelRef, SessionManager

from .helpers import FIXTURES, NAMES, check_pi_file, copy_fixture, our_request, pi_requests, semantic


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [(name, item) for name in NAMES for item in pi_requests(name)]


def _args_parsed(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wire messages with tool-call arguments parsed (JSON spacing is not part of the contract)."""
    out = json.loads(json.dumps(wire))
    for m in out:
        for call in m.get("tool_calls") or []:
            call["function"]["arguments"] = json.loads(call["function"]["arguments"] or "{}")
    return out


def test_fixtures_are_strictly_valid():
    for name in NAMES:
        entries = check_pi_file(FIXTURES / f"{name}.jsonl")
        assert len(entries) > 10


@pytest.mark.parametrize(("name", "item"), _cases(), ids=lambda v: v if isinstance(v, str) else v["leafId"])
def test_context_at_leaf_matches_what_pi_sent(tmp_path, name, item):
    path = copy_fixture(name, tmp_path)
    before = path.read_bytes()
    mgr = SessionManager.open(path)
    assert mgr.warnings == []
    request = item["request"]
    ctx = mgr.build_session_context(item["leafId"])
    # model and thinking level at that leaf are what pi used for that request
    assert ctx.model == ModelRef("loop", request["model"])
    assert ctx.thinking_level == request.get("reasoning_effort", "off")
    ours = our_request(ctx.messages, request["model"])
    # roles, texts, reasoning, tool-call ids/names/arguments and tool-result ids, message for message
    assert semantic(ours["messages"]) == semantic(request["messages"])
    # and the wire messages themselves, up to JSON spacing inside tool-call arguments
    assert _args_parsed(ours["messages"][1:]) == _args_parsed(request["messages"][1:])
    assert path.read_bytes() == before  # loading never rewrites a v3 file


def test_linear_has_bash_execution_and_model_switch():
    mgr = SessionManager.open(FIXTURES / "linear.jsonl")
    ctx = mgr.build_session_context()
    bash = [m for m in ctx.messages if isinstance(m, BashExecutionMessage)]
    assert [b.command for b in bash] == ["echo from-bang; ls"] and bash[0].exitCode == 0
    assert ctx.model == ModelRef("loop", "loop-other") and ctx.thinking_level == "off"
    assert [e["type"] for e in mgr.get_branch()].count("thinking_level_change") == 3


def test_branched_tree_summary_label_and_name():
    mgr = SessionManager.open(FIXTURES / "branched.jsonl")
    assert mgr.get_session_name() == "Branch demo"
    assert mgr.labels() == {"ebb2a94d": "decision-point"}
    # the branch point has two children: plan A's user message and pi's branch summary
    kids = [e["id"] for e in mgr.get_children("ebb2a94d")]
    assert kids == ["4b030688", "3e2de91c"]
    summary_entry = mgr.get_raw_entry("3e2de91c")
    assert summary_entry["fromId"] == summary_entry["parentId"] == "ebb2a94d"  # 0.73: fromId = branch point
    plan_b = mgr.build_session_context("eeb44540")
    summaries = [m for m in plan_b.messages if isinstance(m, BranchSummaryMessage)]
    assert len(summaries) == 1 and summaries[0].summary.startswith("The user explored a different")
    # the active leaf (plan A continued) never sees the summary of plan B's side
    leaf = mgr.build_session_context()
    assert mgr.get_leaf_id() == "3adec5c9"
    assert not any(isinstance(m, BranchSummaryMessage) for m in leaf.messages)
    assert leaf.raw_messages[-1]["content"][0]["type"] == "thinking"
    assert mgr.common_ancestor("eeb44540", "3adec5c9") == "ebb2a94d"


def test_compacted_latest_compaction_wins():
    mgr = SessionManager.open(FIXTURES / "compacted.jsonl")
    assert mgr.get_session_name() == "Compaction demo"
    ctx = mgr.build_session_context()
    first = ctx.messages[0]
    assert isinstance(first, CompactionSummaryMessage) and "COMPACTION-SUMMARY-26" in first.summary
    assert ctx.entry_ids[0] == "1cb41a3b"
    assert sum(isinstance(m, CompactionSummaryMessage) for m in ctx.messages) == 1
    # before the second compaction the first one's summary leads, split turn kept from an assistant message
    mid = mgr.build_session_context("d27f9b45")
    assert "COMPACTION-SUMMARY-21" in mid.messages[0].summary and mid.entry_ids[1] == "53cb89b0"
