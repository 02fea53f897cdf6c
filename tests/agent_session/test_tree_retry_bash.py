"""Tree navigation, fork/clone/new/switch, auto-retry and the user's ! commands."""

from __future__ import annotations

import asyncio

import pytest

from pi_app.ai.providers.faux import faux_error, faux_text
from pi_app.session.messages import BRANCH_SUMMARY_PREFIX
from pi_app.session.results import CloneResult, ForkResult, NavigationError
from tests.waits import HANG_GUARD_S, wait_until

from .helpers import Recorder, Script, entries, make_session, reopen, texts


async def three_turns(tmp_path, faux, **kw):
    s = await make_session(tmp_path, **kw)
    script = Script(faux, faux_text("A1"), faux_text("A2"), faux_text("A3"))
    for q in ("Q1", "Q2", "Q3"):
        await s.prompt(q)
    return s, script


def entry_text(e) -> str:
    content = e.get("message", {}).get("content", "")
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content if c.get("type") == "text")


def user_entry(s, text):
    return next(
        e
        for e in entries(s.session_file)
        if e.get("message", {}).get("role") == "user" and e["message"]["content"][0]["text"] == text
    )


async def test_navigate_to_user_message_without_summary(tmp_path, faux):
    s, script = await three_turns(tmp_path, faux)
    q2 = user_entry(s, "Q2")
    result = await s.navigate_tree(q2["id"])
    assert result.editor_text == "Q2" and result.moved
    assert s.session_manager.leaf_id == q2["parentId"]
    assert texts(s.messages)[-2:] == ["user:Q1", "assistant:A1"]
    script.add(faux_text("A2b"))
    await s.prompt("Q2b")
    assert texts(script.agent_requests[-1].messages)[-3:] == ["user:Q1", "assistant:A1", "user:Q2b"]
    # The old branch is still in the file; the new one hangs off A1.
    ctx = reopen(s.session_file).build_session_context()
    assert [t for t in texts(ctx.messages) if not t.startswith("system")] == [
        "user:Q1",
        "assistant:A1",
        "user:Q2b",
        "assistant:A2b",
    ]
    assert any(entry_text(e) == "A3" for e in entries(s.session_file))


async def test_navigate_with_branch_summary_and_label(tmp_path, faux):
    s, script = await three_turns(tmp_path, faux)
    q2 = user_entry(s, "Q2")
    script.summary = "Tried Q2 and Q3."
    result = await s.navigate_tree(
        q2["id"], summarize=True, custom_instructions="be short", label="checkpoint"
    )
    assert result.editor_text == "Q2" and result.summary_entry_id is not None
    summary_req = script.summary_requests[0].messages[0].content[0].text
    assert "Q3" in summary_req and "Additional focus: be short" in summary_req
    es = entries(s.session_file)
    summary = next(e for e in es if e["type"] == "branch_summary")
    assert summary["fromId"] == q2["parentId"] == summary["parentId"]
    assert "Tried Q2 and Q3." in summary["summary"]
    assert s.session_manager.get_label(summary["id"]) == "checkpoint"
    assert s.messages[-1].role == "branchSummary"
    script.add(faux_text("fresh"))
    await s.prompt("new direction")
    sent = script.agent_requests[-1].messages
    assert sent[-2].content[0].text.startswith(BRANCH_SUMMARY_PREFIX)


async def test_navigate_to_assistant_and_errors(tmp_path, faux):
    s, _ = await three_turns(tmp_path, faux)
    a1 = next(e for e in entries(s.session_file) if entry_text(e) == "A1")
    result = await s.navigate_tree(a1["id"], label="here")
    assert result.editor_text is None and s.session_manager.get_label(a1["id"]) == "here"
    assert texts(s.messages)[-1] == "assistant:A1"
    with pytest.raises(NavigationError, match="^Entry nope not found$"):
        await s.navigate_tree("nope")


async def test_branch_summary_failure_keeps_leaf(tmp_path, faux):
    s, script = await three_turns(tmp_path, faux)
    leaf = s.session_manager.leaf_id
    script.summary = faux_error("summary service down")
    with pytest.raises(NavigationError, match="summary service down"):
        await s.navigate_tree(user_entry(s, "Q2")["id"], summarize=True)
    assert s.session_manager.leaf_id == leaf
    assert len(reopen(s.session_file).build_session_context().messages) == len(s.messages)


async def test_fork_and_clone_files(tmp_path, faux):
    s, script = await three_turns(tmp_path, faux)
    original = s.session_file
    forks = s.get_fork_messages()
    assert [t for _, t in forks] == ["Q1", "Q2", "Q3"]
    fork = await s.fork(forks[2][0])
    assert fork == ForkResult(text="Q3", session_file=s.session_file)
    forked = s.session_file
    assert forked != original
    got = [t for t in texts(reopen(forked).build_session_context().messages) if not t.startswith("system")]
    assert got == ["user:Q1", "assistant:A1", "user:Q2", "assistant:A2"]
    assert reopen(forked).get_header().parentSession == original
    cloned_path = (await s.clone()).session_file
    assert cloned_path == s.session_file
    assert cloned_path not in (original, forked)
    assert texts(reopen(cloned_path).build_session_context().messages) == texts(s.messages)
    # Fork of the first message: only the tool-set declaration that preceded it remains.
    text = (await s.fork(s.get_fork_messages()[0][0])).text
    assert text == "Q1" and [m.role for m in s.messages] == ["system"]
    script.add(faux_text("restart"))
    await s.prompt("again")
    assert texts(script.agent_requests[-1].messages)[-1] == "user:again"


async def test_new_and_switch_session(tmp_path, faux):
    s, script = await three_turns(tmp_path, faux, thinking_level="low")
    first = s.session_file
    await s.new_session()
    assert s.messages == [] and s.session_file != first
    s.set_thinking_level("high")
    script.add(faux_text("B1"))
    await s.prompt("other")
    await s.switch_session(first)
    assert texts(s.messages)[-1] == "assistant:A3" and s.session_file == first
    assert s.thinking_level == "low"


async def test_retry_then_success(tmp_path, faux):
    s = await make_session(tmp_path)
    rec = Recorder()
    s.subscribe(rec)
    script = Script(faux, faux_error("429 Too Many Requests"), faux_error("503 overloaded"), faux_text("ok"))
    await s.prompt("hi")
    starts = rec.of("auto_retry_start")
    assert [(e.attempt, e.max_attempts, e.delay_ms) for e in starts] == [(1, 3, 1), (2, 3, 2)]
    assert starts[0].to_json()["errorMessage"] == "429 Too Many Requests"
    assert rec.of("auto_retry_end")[0].to_json() == {"type": "auto_retry_end", "success": True, "attempt": 2}
    assert len(script.agent_requests) == 3
    assert texts(script.agent_requests[-1].messages)[-1] == "user:hi"  # errors never reach the retry
    assert [m.role for m in s.messages if m.role != "system"] == ["user", "assistant"]
    errors = [e for e in entries(s.session_file) if e.get("message", {}).get("stopReason") == "error"]
    assert len(errors) == 2  # kept in the file


async def test_retry_gives_up_after_max(tmp_path, faux):
    s = await make_session(tmp_path, settings={"retry": {"maxRetries": 1, "baseDelayMs": 1}})
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_error("502 bad gateway"), faux_error("502 bad gateway"))
    await s.prompt("hi")
    end = rec.of("auto_retry_end")[-1]
    assert (end.success, end.attempt, end.final_error) == (False, 1, "502 bad gateway")
    assert not s.is_retrying and not s.is_streaming


async def test_retry_cancelled(tmp_path, faux):
    s = await make_session(tmp_path, settings={"retry": {"baseDelayMs": 60_000}})
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_error("rate limit exceeded"))
    task = asyncio.create_task(s.prompt("hi"))
    await wait_until(lambda: s.is_retrying, "the retry to start")
    s.abort_retry()  # the retry delay is a minute: only the abort ends it before the guard
    await asyncio.wait_for(task, HANG_GUARD_S)
    end = rec.of("auto_retry_end")[-1]
    assert end.to_json() == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 1,
        "finalError": "Retry cancelled",
    }
    assert not s.is_streaming


async def test_no_retry_for_overflow_or_when_disabled(tmp_path, faux):
    s = await make_session(tmp_path, settings={"retry": {"enabled": False}})
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, faux_error("429 Too Many Requests"))
    await s.prompt("hi")
    assert rec.of("auto_retry_start") == []
    assert s.messages[-1].stopReason == "error"


async def test_user_bash_in_and_out_of_context(tmp_path, faux):
    s = await make_session(tmp_path)
    chunks: list[str] = []
    result = await s.execute_bash("echo visible; exit 3", on_chunk=chunks.append)
    assert (
        result.output.strip() == "visible" and result.exit_code == 3 and "".join(chunks).strip() == "visible"
    )
    await s.execute_bash("echo hidden", exclude_from_context=True)
    script = Script(faux, faux_text("seen"))
    await s.prompt("what ran?")
    sent = texts(script.agent_requests[0].messages)
    ran = [t for t in sent if "Ran `" in t]
    assert ran == ["user:Ran `echo visible; exit 3`\n```\nvisible\n\n```\n\nCommand exited with code 3"]
    assert not any("hidden" in t for t in sent)
    stored = [
        e["message"] for e in entries(s.session_file) if e.get("message", {}).get("role") == "bashExecution"
    ]
    assert [m["command"] for m in stored] == ["echo visible; exit 3", "echo hidden"]
    assert stored[1]["excludeFromContext"] is True and "excludeFromContext" not in stored[0]
    ctx = reopen(s.session_file).build_session_context()
    assert [m.role for m in ctx.messages if m.role == "bashExecution"] == ["bashExecution"] * 2


async def test_user_bash_during_run_is_deferred_and_abortable(tmp_path, faux):
    from pi_app.ai.providers.faux import FauxResponse

    s = await make_session(tmp_path)
    Script(faux, FauxResponse(steps=faux_text("slow").steps))
    streaming, bash_done = asyncio.Event(), asyncio.Event()

    async def hold_the_stream(event):  # listeners are awaited: the answer waits until the command ran
        if event.type == "message_update" and not streaming.is_set():
            streaming.set()
            await bash_done.wait()

    s.subscribe(hold_the_stream)
    run = asyncio.create_task(s.prompt("go"))
    await streaming.wait()
    await s.execute_bash("echo during")
    assert s.agent.state.is_streaming
    assert not any(getattr(m, "role", None) == "bashExecution" for m in s.messages)
    bash_done.set()
    await run
    roles = [m.role for m in s.messages]
    assert roles[-1] == "bashExecution"  # after the run's assistant message, not inside the turn
    task = asyncio.create_task(s.execute_bash("sleep 600"))  # outlasts the guard: only the abort ends it
    await wait_until(lambda: s.is_bash_running, "the command to start")
    s.abort_bash()
    result = await asyncio.wait_for(task, HANG_GUARD_S)
    assert result.cancelled and result.exit_code is None


def assistant_entry(s, text):
    return next(
        e
        for e in entries(s.session_file)
        if e.get("message", {}).get("role") == "assistant" and e["message"]["content"][0]["text"] == text
    )


async def test_fork_at_and_clone_at_an_entry(tmp_path, faux):
    """The tree's fork/clone at any entry (the navigator's, used by the TUI): the new file holds the path up
    to that entry; the old file is byte-identical afterwards."""
    s, _ = await three_turns(tmp_path, faux)
    original = s.session_file
    before = open(original, "rb").read()
    a2 = assistant_entry(s, "A2")

    cloned = await s.clone(a2["id"])
    assert cloned == CloneResult(session_file=s.session_file) and cloned.session_file != original
    got = [t for t in texts(s.messages) if not t.startswith("system")]
    assert got == ["user:Q1", "assistant:A1", "user:Q2", "assistant:A2"]

    await s.switch_session(original)
    forked = await s.fork_at(assistant_entry(s, "A1")["id"])  # not a user message: included, no text
    assert forked.text is None and forked.session_file not in (original, cloned.session_file)
    assert [t for t in texts(s.messages) if not t.startswith("system")] == ["user:Q1", "assistant:A1"]

    await s.switch_session(original)
    forked = await s.fork_at(user_entry(s, "Q3")["id"])  # a user message: before it, its text returned
    assert forked.text == "Q3"
    assert open(original, "rb").read() == before


async def test_clone_at_an_unknown_entry_is_a_navigation_error(tmp_path, faux):
    s, _ = await three_turns(tmp_path, faux)
    original, leaf = s.session_file, s.session_manager.leaf_id
    with pytest.raises(NavigationError):
        await s.clone("no-such-entry")
    assert (s.session_file, s.session_manager.leaf_id) == (original, leaf)
    with pytest.raises(NavigationError, match="Invalid entry ID for forking"):
        await s.fork(assistant_entry(s, "A1")["id"])
