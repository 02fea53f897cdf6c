"""Resume restoring the thinking level, and abort while the pre-prompt compaction runs (pi's behaviour)."""

from __future__ import annotations

import asyncio

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text
from tests.waits import HANG_GUARD_S, wait_until

from .helpers import Recorder, Script, entries, make_session, texts


def levels(path: str) -> list[str]:
    return [e["thinkingLevel"] for e in entries(path) if e["type"] == "thinking_level_change"]


async def test_resume_restores_thinking_level_like_set_thinking_level(tmp_path, faux):
    # pi's switchSession restores through setThinkingLevel: a change appends thinking_level_change to the
    # resumed session and becomes the default setting; no change writes nothing.
    s = await make_session(tmp_path)
    Script(faux, faux_text("a"), faux_text("b"))
    s.set_thinking_level("high")
    await s.prompt("one")
    original = s.session_file
    assert levels(original)[-1] == "high"
    await s.new_session()
    s.set_thinking_level("low")
    await s.prompt("two")
    second = s.session_file
    assert s.settings.default_thinking_level == "low"
    before = levels(original)

    await s.switch_session(original)
    assert s.thinking_level == "high"
    assert levels(original) == [*before, "high"]
    assert entries(original)[-1]["type"] == "thinking_level_change"
    assert s.settings.default_thinking_level == "high"

    # same level again: nothing is written
    await s.switch_session(original)
    assert levels(original) == [*before, "high"]
    assert s.settings.default_thinking_level == "high"

    await s.switch_session(second)
    assert s.thinking_level == "low" and levels(second)[-1] == "low"
    assert s.settings.default_thinking_level == "low"


async def test_resume_without_a_level_entry_writes_it_but_keeps_the_default_setting(tmp_path, faux):
    # pi: a session with no thinking_level_change gets the (clamped) default appended; the setting itself
    # is not rewritten (a default of xhigh stays xhigh though this model only goes up to high).
    from pi_app.ai.types import now_ms
    from pi_app.session.store import SessionManager

    s = await make_session(tmp_path)
    Script(faux, faux_text("a"))
    await s.prompt("one")
    bare = SessionManager.create(str(tmp_path / "proj"), tmp_path / "sessions")
    bare.append_message({"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": now_ms()})
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    bare.append_message(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "yo"}],
            "api": "faux",
            "provider": "faux",
            "model": "faux-1",
            "usage": usage,
            "stopReason": "stop",
            "timestamp": now_ms(),
        }
    )
    path = bare.session_file
    assert path and levels(path) == []
    s.settings.set_default_thinking_level("xhigh")
    assert s.thinking_level != "high"

    await s.switch_session(path)
    assert s.thinking_level == "high"
    assert levels(path) == ["high"]
    assert s.settings.default_thinking_level == "xhigh"


async def _prompt_during_pre_prompt_compaction(tmp_path, faux):
    """A session whose next prompt first compacts (slowly); returns it, the script, a recorder, the task."""
    s = await make_session(
        tmp_path,
        settings={"compaction": {"enabled": False, "reserveTokens": 500, "keepRecentTokens": 3}},
        context_window=2000,
    )
    script = Script(faux, faux_text("z"), faux_text("a", usage={"input": 1600, "output": 10}), faux_text("b"))
    # the summary stays open until the test aborts it (never released), however slow the machine
    script.summary = FauxResponse(
        steps=[FauxStep("text", text="S" * 400)], chunk_size=1, hold=asyncio.Event()
    )
    await s.prompt("zero")
    await s.prompt("one")
    s.set_auto_compaction_enabled(True)
    rec = Recorder()
    s.subscribe(rec)
    task = asyncio.create_task(s.prompt("two"))
    await wait_until(lambda: s.is_compacting, "compaction to start")
    assert s.is_compacting and len(script.agent_requests) == 2
    return s, script, rec, task


async def test_abort_during_pre_prompt_compaction_still_sends_the_prompt(tmp_path, faux):
    # pi: cancelling the compaction that runs before a prompt (Esc) ends it with aborted: true and the
    # prompt is sent on the uncompacted context; pi's abort() never drops the prompt either.
    s, script, rec, task = await _prompt_during_pre_prompt_compaction(tmp_path, faux)
    await asyncio.wait_for(s.abort(), HANG_GUARD_S)
    await asyncio.wait_for(task, HANG_GUARD_S)
    assert [e.aborted for e in rec.of("compaction_end")] == [True]
    assert "compaction" not in [e["type"] for e in entries(s.session_file)]
    assert len(script.agent_requests) == 3
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert sent == ["user:zero", "assistant:z", "user:one", "assistant:a", "user:two"]
    assert texts(s.messages)[-1] == "assistant:b" and not s.is_streaming


async def test_abort_compaction_before_a_prompt_sends_the_prompt(tmp_path, faux):
    s, script, rec, task = await _prompt_during_pre_prompt_compaction(tmp_path, faux)
    s.abort_compaction()
    await asyncio.wait_for(task, HANG_GUARD_S)
    assert [e.aborted for e in rec.of("compaction_end")] == [True]
    assert texts(script.agent_requests[-1].messages)[-1] == "user:two"


async def test_new_session_during_pre_prompt_compaction_drops_the_unsent_prompt(tmp_path, faux):
    # Navigation stops everything: the prompt must not go out into the session switched to.
    s, script, rec, task = await _prompt_during_pre_prompt_compaction(tmp_path, faux)
    await asyncio.wait_for(s.new_session(), HANG_GUARD_S)
    await asyncio.wait_for(task, HANG_GUARD_S)
    assert len(script.agent_requests) == 2
    assert [m for m in s.messages if m.role != "system"] == []
