"""pi 1.6 entries: context_edit, usage, the compaction checkpoint, and the new message fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_app.session.stats import compute_stats, entry_usages
from pi_app.session.store import EntryRecord, SessionManager


def _usage(total: float = 0.0, **tokens: int) -> dict[str, Any]:
    base = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    base.update(tokens)
    return {**base, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total}}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "openai-completions",
        "provider": "loop",
        "model": "loop-model",
        "usage": _usage(0.5, input=10, output=5, totalTokens=15),
        "stopReason": "stop",
        "timestamp": 2,
        **extra,
    }


def tool_result(text: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 3,
    }


def _texts(ctx: Any) -> list[Any]:
    return [m["content"] for m in ctx.raw_messages]


def _session(tmp_path: Path) -> tuple[SessionManager, dict[str, str]]:
    mgr = SessionManager.create(str(tmp_path), tmp_path / "s")
    ids = {
        "u1": mgr.append_message(user("first question")),
        "a1": mgr.append_message(assistant("first answer")),
        "t1": mgr.append_message(tool_result("tool output " * 200)),  # a long line, left in the file
        "u2": mgr.append_message(user("second question")),
    }
    return mgr, ids


def test_null_omits_and_replacements_swap_only_the_content(tmp_path):
    mgr, ids = _session(tmp_path)
    mgr.append_context_edit(ids["u1"], "edited question")  # a user keeps a string
    mgr.append_context_edit(ids["a1"], "short answer")  # an assistant gets one text block
    mgr.append_context_edit(ids["t1"], None)
    ctx = mgr.build_session_context()
    assert _texts(ctx) == ["edited question", [{"type": "text", "text": "short answer"}], "second question"]
    assert ctx.entry_ids == [ids["u1"], ids["a1"], ids["u2"]]
    edited = ctx.messages[1]
    assert edited.provider == "loop" and edited.usage.cost.total == 0.5  # metadata kept
    # the raw history is untouched
    raw = mgr.build_session_context(context_edits=False)
    assert _texts(raw)[0] == "first question" and len(raw.raw_messages) == 4
    assert mgr.get_raw_entry(ids["a1"])["message"]["content"][0]["text"] == "first answer"


def test_tool_result_string_becomes_one_text_block_and_lists_stay(tmp_path):
    mgr, ids = _session(tmp_path)
    mgr.append_context_edit(ids["t1"], "[trimmed]")
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    mgr.append_context_edit(ids["u2"], blocks)
    ctx = mgr.build_session_context()
    assert ctx.messages[2].content[0].text == "[trimmed]" and len(ctx.messages[2].content) == 1
    assert _texts(ctx)[3] == blocks


def test_latest_edit_on_the_active_branch_wins_and_edits_are_branch_relative(tmp_path):
    mgr, ids = _session(tmp_path)
    mgr.append_context_edit(ids["u1"], "v1")
    second = mgr.append_context_edit(ids["u1"], "v2")
    assert _texts(mgr.build_session_context())[0] == "v2"
    # a later edit back to the original content is still an edit: the latest one wins
    mgr.branch(second)
    mgr.append_context_edit(ids["u1"], None)
    assert ids["u1"] not in mgr.build_session_context().entry_ids
    # before the edits: the original again
    assert _texts(mgr.build_session_context(ids["u2"]))[0] == "first question"
    # a sibling branch from before the edits never sees them
    mgr.branch(ids["u2"])
    mgr.append_message(assistant("other branch"))
    assert _texts(mgr.build_session_context())[0] == "first question"


def test_custom_message_targets_can_be_replaced(tmp_path):
    mgr, ids = _session(tmp_path)
    custom = mgr.append_custom_message_entry("ext", "injected", True)
    mgr.append_context_edit(custom, "replaced")
    ctx = mgr.build_session_context()
    assert ctx.raw_messages[-1]["role"] == "custom" and ctx.raw_messages[-1]["content"] == "replaced"


def test_context_edit_is_written_with_an_explicit_null_and_reloads_lazily(tmp_path):
    mgr, ids = _session(tmp_path)
    mgr.append_message(assistant("done"))  # the file is written from the first assistant message on
    mgr.append_context_edit(ids["t1"], None)
    line = Path(mgr.session_file or "").read_text("utf-8").splitlines()[-1]
    data = json.loads(line)
    assert list(data)[:4] == ["type", "id", "parentId", "timestamp"]
    assert data["type"] == "context_edit" and "replacement" in data and data["replacement"] is None
    again = SessionManager.open(mgr.session_file or "")
    ctx = again.build_session_context()
    assert ids["t1"] not in ctx.entry_ids
    # building the context parsed no message line: the long tool result was never read
    records = [again.get_raw_entry(i) for i in ids.values()]
    assert all(type(r) is EntryRecord and not r.is_parsed for r in records)


def test_usage_entries_count_in_totals_but_are_neither_context_nor_tree(tmp_path):
    mgr, ids = _session(tmp_path)
    warm = mgr.append_usage("cache_warm", "anthropic", "claude", _usage(0.015, cacheRead=50000))
    mgr.append_usage("some_future_kind", "loop", "loop-model", _usage(0.25, input=7))  # unknown kinds count
    after = mgr.append_message(user("after warming"))
    ctx = mgr.build_session_context()
    assert len(ctx.raw_messages) == 5 and warm not in ctx.entry_ids
    stats = compute_stats(ctx.messages, None, "s", entry_usages(mgr.raw_entries()))
    assert stats.tokens.cache_read == 50000 and stats.tokens.input == 17
    assert abs(stats.cost - (0.5 + 0.015 + 0.25)) < 1e-9
    # the tree hides usage entries; what followed them hangs on the nearest shown ancestor
    flat: list[tuple[str, str | None]] = []
    stack = [(n, None) for n in mgr.get_tree()]
    while stack:
        node, parent = stack.pop()
        flat.append((node.entry["id"], parent))
        stack.extend((c, node.entry["id"]) for c in node.children)
    assert all(e["type"] != "usage" for e in (mgr.get_raw_entry(i) for i, _ in flat))
    assert (after, ids["u2"]) in flat


def test_compaction_checkpoint_leads_and_drops_kept_system_messages(tmp_path):
    mgr, ids = _session(tmp_path)
    old_system = {"role": "system", "content": "", "toolsAdded": [], "timestamp": 4}
    kept = mgr.append_message(old_system)
    mgr.append_message(user("kept question"))
    comp = mgr.append_compaction("SUMMARY", kept, 1000)
    checkpoint = {"role": "system", "content": "checkpoint prompt", "timestamp": 5}
    # pi 1.6 writes the checkpoint into the compaction entry itself
    mgr.get_raw_entry(comp).data["systemMessage"] = checkpoint
    later_system = {"role": "system", "content": "later patch", "timestamp": 6}
    mgr.append_message(later_system)
    ctx = mgr.build_session_context()
    roles = [m["role"] for m in ctx.raw_messages]
    assert roles == ["system", "compactionSummary", "user", "system"]
    assert ctx.raw_messages[0] == checkpoint and ctx.raw_messages[-1] == later_system
    # without a checkpoint (0.73.1 and this port's compactions) the kept system message stays
    del mgr.get_raw_entry(comp).data["systemMessage"]
    roles = [m["role"] for m in mgr.build_session_context().raw_messages]
    assert roles == ["compactionSummary", "system", "user", "system"]


def test_new_message_fields_survive_a_round_trip(tmp_path):
    mgr, ids = _session(tmp_path)
    fields = {"durationMs": 812, "thinkingLevel": "high", "rawStopReason": "end_turn"}
    msg = assistant("with fields", **fields)
    msg["usage"]["reasoning"] = 3
    msg["usage"]["cost"]["totalFromProvider"] = True
    mgr.append_message(msg)
    result = {**tool_result("ok"), "durationMs": 11}
    mgr.append_message(result)
    again = SessionManager.open(mgr.session_file or "")
    typed = again.build_session_context().messages
    from pi_app.ai.types import dump

    out = dump(typed[-2])
    assert {k: out[k] for k in fields} == fields
    assert out["usage"]["reasoning"] == 3 and out["usage"]["cost"]["totalFromProvider"] is True
    assert dump(typed[-1])["durationMs"] == 11
    # and a re-append of the typed message writes them again
    again.append_message(typed[-2])
    line = json.loads(Path(again.session_file or "").read_text("utf-8").splitlines()[-1])
    assert line["message"]["durationMs"] == 812 and line["message"]["usage"]["reasoning"] == 3
