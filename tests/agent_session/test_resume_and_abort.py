"""Resume restoring the thinking level, and abort while the pre-prompt compaction runs (pi's behaviour)."""

from __future__ import annotations

from pi_app.ai.providers.faux import faux_text

from .helpers import Script, entries, make_session


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
