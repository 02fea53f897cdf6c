"""pi 0.73 sessions open, rebuild and continue here, and stay readable by pi after appending."""

from __future__ import annotations

import json

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.messages import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage
from pi_app.session.store import ModelRef, SessionManager, build_session_context, labels_of

from .helpers import FIXTURES, copy_fixture, pi_check


def test_fixtures_are_valid_pi_files():
    for name in ("linear.jsonl", "branched.jsonl", "compacted.jsonl"):
        pi_check(FIXTURES / name)


def test_linear_opens_and_rebuilds(tmp_path):
    path = copy_fixture("linear.jsonl", tmp_path)
    before = path.read_bytes()
    mgr = SessionManager.open(path)
    assert mgr.warnings == [] and path.read_bytes() == before  # v3: never rewritten on load
    assert mgr.session_id == "019a6f2e-3c41-7b2a-9d1e-5f0c8a7b6e21" and mgr.cwd == "/home/dev/proj"
    assert mgr.get_leaf_id() == "40d9e6aa" and mgr.get_session_name() == "Explain main.py"
    ctx = mgr.build_session_context()
    assert [m["role"] for m in ctx.raw_messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    assert ctx.thinking_level == "medium" and ctx.model == ModelRef("anthropic", "claude-sonnet-4-5")
    assert isinstance(ctx.messages[0], UserMessage) and ctx.messages[1].content[1].name == "read"
    # from an earlier leaf: before the tool result, thinking level already set
    early = mgr.build_session_context("e04b7a93")
    assert [m["role"] for m in early.raw_messages] == ["user", "assistant"]
    assert mgr.build_session_context(None).raw_messages == []
    only_model = mgr.build_session_context("3f9a1c2e")
    assert only_model.raw_messages == [] and only_model.thinking_level == "off"
    assert only_model.model == ModelRef("anthropic", "claude-sonnet-4-5")


def test_branched_context_follows_active_path(tmp_path):
    mgr = SessionManager.open(copy_fixture("branched.jsonl", tmp_path))
    assert mgr.get_label("b0b00001") == "start"
    ctx = mgr.build_session_context()  # leaf = label entry
    roles = [m["role"] for m in ctx.raw_messages]
    assert roles == ["user", "assistant", "branchSummary", "user", "assistant"]
    summary = ctx.messages[2]
    assert isinstance(summary, BranchSummaryMessage) and summary.fromId == "b0b00002"
    assert summary.timestamp == 1762783390000
    old = mgr.build_session_context("b0b00004")
    assert [m["content"][0]["text"] for m in old.raw_messages][-1] == "Done with argparse."
    assert "branchSummary" not in [m["role"] for m in old.raw_messages]
    assert ctx.thinking_level == "low" and ctx.model == ModelRef("openai", "gpt-5")
    # tree: one root, fork under b0b00002 with children ordered by timestamp, label attached
    (root,) = mgr.get_tree()
    node = root
    while len(node.children) == 1:
        node = node.children[0]
    assert node.entry["id"] == "b0b00002"
    assert [c.entry["id"] for c in node.children] == ["b0b00003", "5b5b5b01"]
    assert root.children[0].children[0].label == "start"
    assert mgr.common_ancestor("b0b00004", "b0b00006") == "b0b00002"
    assert [e["id"] for e in mgr.get_children("b0b00002")] == ["b0b00003", "5b5b5b01"]


def test_compacted_context(tmp_path):
    mgr = SessionManager.open(copy_fixture("compacted.jsonl", tmp_path))
    ctx = mgr.build_session_context()
    roles = [m["role"] for m in ctx.raw_messages]
    assert roles == [
        "compactionSummary",
        "user",  # kept from firstKeptEntryId c0000007
        "assistant",
        "bashExecution",
        "bashExecution",
        "custom",  # custom_message entry; the plain custom entry is not context
        "user",
        "assistant",
    ]
    assert ctx.entry_ids[:3] == ["c0000009", "c0000007", "c0000008"]
    assert isinstance(ctx.messages[0], CompactionSummaryMessage) and ctx.messages[0].tokensBefore == 40300
    custom = ctx.messages[5]
    assert (
        isinstance(custom, CustomMessage)
        and custom.details == {"count": 1}
        and custom.customType == "todo-ext"
    )
    from pi_app.session.messages import convert_to_llm

    llm = convert_to_llm(ctx.messages)
    assert len(llm) == 7  # the `!!` command is excluded
    assert ctx.thinking_level == "high"
    # before the compaction: the full history
    pre = mgr.build_session_context("c0000008")
    assert len(pre.raw_messages) == 6


def test_pure_rebuild_matches_manager(tmp_path):
    mgr = SessionManager.open(copy_fixture("compacted.jsonl", tmp_path))
    entries = mgr.raw_entries()
    assert build_session_context(entries).raw_messages == mgr.build_session_context().raw_messages
    assert build_session_context(entries, "nope").entry_ids == mgr.build_session_context().entry_ids
    assert build_session_context([]).raw_messages == []
    assert labels_of(entries) == {}


def test_continue_pi_session_and_pi_can_read_it(tmp_path):
    path = copy_fixture("branched.jsonl", tmp_path)
    original = path.read_bytes()
    mgr = SessionManager.open(path)
    uid = mgr.append_message(UserMessage(content=[TextContent(text="and tests")]))
    aid = mgr.append_message(
        AssistantMessage(
            content=[TextContent(text="added")], api="openai-responses", provider="openai", model="gpt-5"
        )
    )
    mgr.branch("b0b00004")
    bid = mgr.append_message(UserMessage(content=[TextContent(text="back on argparse")]))
    data = path.read_bytes()
    assert data.startswith(original)  # pure append: pi's lines untouched
    entries = pi_check(path)
    assert [e["id"] for e in entries[-3:]] == [uid, aid, bid]
    assert entries[-3]["parentId"] == "1abe1001" and entries[-1]["parentId"] == "b0b00004"
    reopened = SessionManager.open(path)
    assert reopened.get_leaf_id() == bid
    assert [m["role"] for m in reopened.build_session_context().raw_messages][-1] == "user"
    assert reopened.build_session_context(aid).raw_messages[-2]["content"][0]["text"] == "and tests"


def test_user_message_string_content_accepted(tmp_path):
    mgr = SessionManager.open(copy_fixture("v2.jsonl", tmp_path))
    ctx = mgr.build_session_context()
    assert ctx.messages[0].content == "hi"
    assert json.loads((tmp_path / "v2.jsonl").read_text().splitlines()[0])["version"] == 3
