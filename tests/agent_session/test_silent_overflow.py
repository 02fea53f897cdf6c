"""Overflow recovery never discards a good answer, never ends silently, never leaves an unusable session.

A provider may report ``usage.input`` above the model's context window on a successful answer (z.ai's silent
overflow). That answer is kept, shown and continued from; the context is compacted without a retry.
"""

from __future__ import annotations

from pi_app.ai.providers.faux import faux_error, faux_text

from .helpers import Recorder, Script, entries, make_session, reopen

WINDOW = 2000
SETTINGS = {"compaction": {"enabled": True, "reserveTokens": 500, "keepRecentTokens": 3}}
OVER = {"input": 5000, "output": 10}  # the provider says the prompt was bigger than the window
OVERFLOW = "prompt is too long: 250000 tokens > 200000 maximum"


def answer(text: str):
    return faux_text(text, usage=OVER)


async def test_answers_over_the_window_are_kept_across_prompts(tmp_path, faux):
    s = await make_session(tmp_path, settings=SETTINGS, context_window=WINDOW)
    rec = Recorder()
    s.subscribe(rec)
    script = Script(faux, answer("A1"), answer("A2"), answer("A3"))
    for i in (1, 2, 3):
        await s.prompt(f"Q{i}")
        assert s.get_last_assistant_text() == f"A{i}"
        last = s.messages[-1]
        assert last.role == "assistant" and last.stopReason == "stop"
    # No retry of a request that already succeeded: one request per prompt.
    assert len(script.agent_requests) == 3
    # Every answer is in the file, and the context was compacted (as a threshold compaction, no retry).
    answers = [
        e["message"] for e in entries(s.session_file) if e.get("message", {}).get("role") == "assistant"
    ]
    assert [a["content"][0]["text"] for a in answers] == ["A1", "A2", "A3"]
    ends = rec.of("compaction_end")
    assert ends and all(not e.will_retry for e in ends)
    assert all(e.reason != "overflow" for e in ends)


async def test_resumed_session_after_silent_overflow_continues(tmp_path, faux):
    """Each run a new process over the same file (print mode with --continue)."""
    s = await make_session(tmp_path, settings=SETTINGS, context_window=WINDOW)
    Script(faux, answer("A1"))
    await s.prompt("Q1")
    path = s.session_file
    for i in (2, 3):
        s = await make_session(tmp_path, settings=SETTINGS, context_window=WINDOW, session=reopen(path))
        Script(faux, answer(f"A{i}"))
        await s.prompt(f"Q{i}")
        assert s.get_last_assistant_text() == f"A{i}"
        assert s.messages[-1].role == "assistant" and s.messages[-1].stopReason == "stop"


async def test_overflow_error_then_retry_over_the_window_keeps_the_answer(tmp_path, faux):
    """An overflow error is compacted and retried; the retried answer reports usage over the window too.
    It is the answer: kept, and no second recovery that would continue from it."""
    s = await make_session(tmp_path, settings=SETTINGS, context_window=WINDOW)
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_text("earlier"), faux_error(OVERFLOW), answer("recovered"))
    await s.prompt("first")
    await s.prompt("second")
    assert s.get_last_assistant_text() == "recovered"
    assert s.messages[-1].role == "assistant" and s.messages[-1].stopReason == "stop"
    assert not any(
        e.error_message == "Cannot continue from message role: assistant" for e in rec.of("compaction_end")
    )
    Script(faux, faux_text("next"))
    await s.prompt("third")
    assert s.get_last_assistant_text() == "next"


async def test_print_mode_prints_every_run_over_the_window(tmp_path, faux):
    """pi -p three times with --continue: each run prints its answer and exits 0."""
    import io

    from pi_app.modes.print_mode import run_print_mode

    path = None
    for i in (1, 2, 3):
        kw = {"session": reopen(path)} if path else {}
        s = await make_session(tmp_path, settings=SETTINGS, context_window=WINDOW, **kw)
        path = s.session_file
        Script(faux, answer(f"A{i}"))
        out, err = io.StringIO(), io.StringIO()
        code = await run_print_mode(s, initial_message=f"Q{i}", stdout=out, stderr=err)
        assert (code, out.getvalue(), err.getvalue()) == (0, f"A{i}\n", "")
