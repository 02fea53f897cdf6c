"""Manual /compact within keepRecentTokens: everything before the last exchange is summarised, the exchange
is kept; automatic compaction keeps its thresholds (issue 17)."""

from __future__ import annotations

import pytest

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.session.compaction.cut_point import prepare_compaction, prepare_manual_compaction
from pi_app.session.results import CompactionError
from tests.agent_session.helpers import Recorder, Script, entries, make_session, reopen, texts


def _path(session) -> list[dict]:
    return [e if isinstance(e, dict) else e.data for e in session.session_manager.get_branch()]


async def test_manual_compact_keeps_the_last_exchange(tmp_path, faux):
    s = await make_session(tmp_path)  # default keepRecentTokens (20k) holds all of it
    script = Script(faux, faux_text("A1"), faux_text("A2"), faux_text("A3"))
    for q in ("Q1", "Q2", "Q3"):
        await s.prompt(q)
    assert prepare_compaction(_path(s), 20_000) is not None  # automatic: nothing worth summarising
    result = await s.compact()
    assert len(script.summary_requests) == 1
    sent = texts(script.summary_requests[0].messages)[0]
    assert "Q1" in sent and "A2" in sent and "Q3" not in sent
    compaction = [e for e in entries(s.session_file) if e["type"] == "compaction"][-1]
    kept_entry = next(e for e in entries(s.session_file) if e.get("id") == compaction["firstKeptEntryId"])
    assert kept_entry["message"]["role"] == "user"
    assert result.first_kept_entry_id == kept_entry["id"]
    rebuilt = reopen(s.session_file).build_session_context().messages
    assert texts([m for m in rebuilt if m.role in ("user", "assistant")]) == ["user:Q3", "assistant:A3"]
    assert rebuilt[0].role == "compactionSummary"


async def test_manual_compact_keeps_a_tool_exchange_whole(tmp_path, faux):
    s = await make_session(tmp_path)
    Script(faux, faux_text("A1"), faux_tool("ls", {"path": "."}, call_id="c1"), faux_text("listed"))
    await s.prompt("Q1")
    await s.prompt("list it")
    await s.compact()
    rebuilt = reopen(s.session_file).build_session_context().messages
    roles = [m.role for m in rebuilt if m.role != "system"]
    assert roles == ["compactionSummary", "user", "assistant", "toolResult", "assistant"]


async def test_manual_compact_of_one_exchange_says_nothing_to_compact(tmp_path, faux):
    s = await make_session(tmp_path)
    script = Script(faux, faux_text("A1"))
    await s.prompt("Q1")
    rec = Recorder()
    s.subscribe(rec)
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await s.compact()
    assert script.summary_requests == []
    assert rec.of("compaction_end")[-1].error_message == "Nothing to compact (session too small)"
    assert prepare_manual_compaction(_path(s), 20_000) is None


async def test_automatic_compaction_keeps_its_threshold(tmp_path, faux):
    s = await make_session(tmp_path, context_window=200_000)
    script = Script(faux, faux_text("A1"), faux_text("A2"), faux_text("A3"))
    for q in ("Q1", "Q2", "Q3"):
        await s.prompt(q)
    assert script.summary_requests == []
    assert "compaction" not in [e["type"] for e in entries(s.session_file)]


async def test_second_manual_compact_right_after_one_is_already_compacted(tmp_path, faux):
    s = await make_session(tmp_path)
    Script(faux, faux_text("A1"), faux_text("A2"))
    await s.prompt("Q1")
    await s.prompt("Q2")
    await s.compact()
    # the kept exchange is now the only one after the summary: nothing before it
    with pytest.raises(CompactionError):
        await s.compact()
