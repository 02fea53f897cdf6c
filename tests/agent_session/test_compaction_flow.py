"""Compaction driven by AgentSession: mid-run threshold, overflow recovery, split turns, manual, disabled."""

from __future__ import annotations

import pytest

from pi_app.ai.providers.faux import faux_error, faux_text, faux_tool
from pi_app.session.auto_compaction import OVERFLOW_RETRY_FAILED
from pi_app.session.compaction.prompts import TURN_PREFIX_PROMPT
from pi_app.session.messages import COMPACTION_SUMMARY_PREFIX
from pi_app.session.results import CompactionError

from .helpers import Recorder, Script, entries, make_session, reopen, texts

# Window 2000, reserve 500: compaction once a request would carry more than 1500 tokens.
SMALL = {"compaction": {"enabled": True, "reserveTokens": 500, "keepRecentTokens": 3}}
OVERFLOW = "prompt is too long: 250000 tokens > 200000 maximum"


def summary_request_kind(ctx) -> str:
    text = ctx.messages[0].content[0].text
    return "prefix" if TURN_PREFIX_PROMPT in text else "history"


async def test_threshold_compaction_between_tool_turns(tmp_path, faux):
    s = await make_session(tmp_path, settings=SMALL, context_window=2000)
    rec = Recorder()
    s.subscribe(rec)
    script = Script(
        faux,
        faux_tool("bash", {"command": "echo one"}, usage={"input": 100, "output": 10}),
        faux_tool("bash", {"command": "echo two"}, usage={"input": 1600, "output": 10}),
        faux_text("finished", usage={"input": 300, "output": 5}),
    )
    await s.prompt("do two things")
    assert len(script.agent_requests) == 3
    assert len(script.summary_requests) >= 1
    types = rec.types()
    start = types.index("compaction_start")
    # Compaction ran after the second tool result and before the third model request.
    assert types.index("tool_execution_end", types.index("tool_execution_end") + 1) < start
    assert start < max(i for i, t in enumerate(types) if t == "message_start")
    end = rec.of("compaction_end")[0]
    assert end.reason == "threshold" and end.result is not None and end.error_message is None
    assert rec.of("compaction_start")[0].to_json() == {"type": "compaction_start", "reason": "threshold"}
    third = script.agent_requests[2].messages
    assert third[0].content[0].text.startswith(COMPACTION_SUMMARY_PREFIX)
    sent = texts(third)
    assert sent[-1].startswith(
        "system:"
    )  # the tool set is declared again once its declaration was summarised
    assert any(t.startswith("toolResult:two") for t in sent)
    assert rec.types().count("agent_end") == 1
    # The file holds the compaction and everything else; rebuilt context == agent state.
    kinds = [e["type"] for e in entries(s.session_file)]
    assert kinds.count("compaction") == 1
    rebuilt = reopen(s.session_file).build_session_context().messages
    assert [m.role for m in rebuilt] == [m.role for m in s.messages]


async def test_split_turn_compaction_summarises_turn_prefix(tmp_path, faux):
    s = await make_session(tmp_path, settings=SMALL, context_window=2000)

    def summary(ctx):
        return faux_text("PREFIX-SUMMARY" if summary_request_kind(ctx) == "prefix" else "HISTORY-SUMMARY")

    script = Script(
        faux,
        faux_text("first answer", usage={"input": 50, "output": 5}),
        faux_tool("bash", {"command": "echo a"}, usage={"input": 100, "output": 10}),
        faux_tool("bash", {"command": "echo b"}, usage={"input": 1700, "output": 10}),
        faux_text("done", usage={"input": 200, "output": 5}),
        summary=summary,
    )
    await s.prompt("first question")
    await s.prompt("a long task")
    kinds = sorted(summary_request_kind(c) for c in script.summary_requests)
    assert kinds == ["history", "prefix"]
    comp = next(e for e in entries(s.session_file) if e["type"] == "compaction")
    assert "HISTORY-SUMMARY" in comp["summary"] and "PREFIX-SUMMARY" in comp["summary"]
    assert "**Turn Context (split turn):**" in comp["summary"]
    kept = next(e for e in entries(s.session_file) if e["id"] == comp["firstKeptEntryId"])
    assert kept["message"]["role"] == "assistant"  # cut inside the turn, not at its user message


async def test_overflow_recovery_compacts_and_retries_once(tmp_path, faux):
    s = await make_session(tmp_path, settings={"compaction": {"keepRecentTokens": 3}})
    rec = Recorder()
    s.subscribe(rec)
    script = Script(faux, faux_text("earlier"), faux_error(OVERFLOW), faux_text("after recovery"))
    await s.prompt("first")
    await s.prompt("second")
    end = rec.of("compaction_end")[0]
    assert rec.of("compaction_start")[0].reason == "overflow"
    assert end.reason == "overflow" and end.will_retry is True and end.result is not None
    assert s.get_last_assistant_text() == "after recovery"
    # The retried request carries the summary and no error message.
    retried = script.agent_requests[-1].messages
    assert retried[0].content[0].text.startswith(COMPACTION_SUMMARY_PREFIX)
    assert not any(m.role == "assistant" and m.stopReason == "error" for m in retried)
    assert not any(getattr(m, "stopReason", None) == "error" for m in s.messages)
    # The error stays in the file.
    errors = [e for e in entries(s.session_file) if e.get("message", {}).get("stopReason") == "error"]
    assert errors and errors[0]["message"]["errorMessage"] == OVERFLOW


async def test_second_overflow_in_same_prompt_gives_up(tmp_path, faux):
    s = await make_session(tmp_path, settings={"compaction": {"keepRecentTokens": 3}})
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_text("earlier"), faux_error(OVERFLOW), faux_error(OVERFLOW))
    await s.prompt("first")
    await s.prompt("second")
    ends = rec.of("compaction_end")
    assert len(ends) == 2 and ends[-1].error_message == OVERFLOW_RETRY_FAILED
    assert ends[-1].to_json()["errorMessage"] == OVERFLOW_RETRY_FAILED
    assert entries(s.session_file)[-1]["message"]["stopReason"] == "error"


async def test_compaction_disabled_on_every_auto_path(tmp_path, faux):
    settings = {"compaction": {"enabled": False, "reserveTokens": 500, "keepRecentTokens": 3}}
    s = await make_session(tmp_path, settings=settings, context_window=2000)
    rec = Recorder()
    s.subscribe(rec)
    script = Script(
        faux,
        faux_tool("bash", {"command": "echo x"}, usage={"input": 1900, "output": 10}),  # mid-run threshold
        faux_text("big", usage={"input": 1950, "output": 10}),  # post-run threshold
        faux_error(OVERFLOW),  # overflow (pre-prompt threshold also skipped)
    )
    await s.prompt("one")
    await s.prompt("two")
    assert script.summary_requests == []
    assert "compaction_start" not in rec.types() and "compaction_end" not in rec.types()
    assert not any(e["type"] == "compaction" for e in entries(s.session_file))
    assert not s.auto_compaction_enabled
    s.set_auto_compaction_enabled(True)
    assert s.auto_compaction_enabled


async def test_threshold_after_run_then_manual_compact(tmp_path, faux):
    s = await make_session(tmp_path, settings=SMALL, context_window=2000)
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_text("a"), faux_text("b", usage={"input": 1600, "output": 10}))
    await s.prompt("one")
    await s.prompt("two")
    assert [e.reason for e in rec.of("compaction_start")] == ["threshold"]
    # Right after a compaction the old usage is not trusted: context tokens are unknown.
    assert s.get_context_usage()[0] is None
    with pytest.raises(CompactionError, match="Already compacted"):
        await s.compact()
    Script(faux, faux_text("c"))
    await s.prompt("three")
    result = await s.compact("focus on tests")
    assert result.summary.startswith("SUMMARY")
    assert rec.of("compaction_end")[-1].reason == "manual"
    assert "Additional focus: focus on tests" in faux.requests[-1].messages[0].content[0].text


async def test_summarisation_error_leaves_file_valid(tmp_path, faux):
    s = await make_session(tmp_path, settings=SMALL, context_window=2000)
    rec = Recorder()
    s.subscribe(rec)
    script = Script(faux, faux_text("a"), faux_text("a2"), summary=faux_error("upstream exploded"))
    await s.prompt("one")
    await s.prompt("one more")  # a lone first exchange leaves nothing before the cut point to summarise
    with pytest.raises(CompactionError, match=r"^Summarization failed: upstream exploded"):
        await s.compact()
    assert rec.of("compaction_end")[-1].error_message.startswith("Summarization failed")
    # Automatic threshold compaction failing says so and the prompt still completes.
    script.add(faux_text("b", usage={"input": 1600, "output": 10}))
    await s.prompt("two")
    auto = rec.of("compaction_end")[-1]
    assert auto.reason == "threshold"
    assert auto.error_message == "Auto-compaction failed: Summarization failed: upstream exploded"
    assert not any(e["type"] == "compaction" for e in entries(s.session_file))
    assert len(reopen(s.session_file).build_session_context().messages) == len(s.messages)


async def test_manual_compact_with_tiny_session(tmp_path, faux):
    s = await make_session(tmp_path)
    with pytest.raises(CompactionError, match=r"Nothing to compact \(session too small\)"):
        await s.compact()
