"""Scenario checks against pi's behaviour: abort mid-tool, overflow, navigation edge cases, fork/resume."""

from __future__ import annotations

import asyncio

from pi_app.agent.tool import AgentToolResult, FunctionTool
from pi_app.ai.abort import race_abort
from pi_app.ai.providers.faux import faux_error, faux_text, faux_tool
from pi_app.ai.types import TextContent
from tests.waits import HANG_GUARD_S, wait_until

from .helpers import Recorder, Script, entries, make_session, reopen, texts

PARAMS = {"type": "object", "properties": {}, "additionalProperties": True}


def slow_tool(started: asyncio.Event) -> FunctionTool:
    async def run(call_id, params, signal, on_update):
        started.set()
        await race_abort(asyncio.sleep(30), signal)
        return AgentToolResult(content=[TextContent(text="done")])

    return FunctionTool("slow", "waits", PARAMS, run)


async def test_abort_during_tool_then_prompt_sends_a_tool_result(tmp_path, faux):
    started = asyncio.Event()
    s = await make_session(tmp_path, custom_tools=[slow_tool(started)], no_tools=True)
    script = Script(faux, faux_tool("slow", {}, call_id="c1"), faux_text("next"))
    task = asyncio.create_task(s.prompt("go"))
    await asyncio.wait_for(started.wait(), 5)
    await s.abort()
    await task
    assert not s.is_streaming
    await s.prompt("again")
    sent = script.agent_requests[-1].messages
    roles = [m.role for m in sent]
    # every tool call the provider sees has a matching result
    calls = [c.id for m in sent if m.role == "assistant" for c in m.content if c.type == "toolCall"]
    results = [m.toolCallId for m in sent if m.role == "toolResult"]
    assert calls == results == ["c1"], roles
    assert texts(sent)[-1] == "user:again"
    # the file holds the same
    ctx = reopen(s.session_file).build_session_context()
    assert [m.role for m in ctx.messages].count("toolResult") == 1


async def test_overflow_on_first_request_gives_clear_error_no_loop(tmp_path, faux):
    # Only the tool-set system message precedes the prompt: nothing to summarise, so no summary call,
    # no compaction entry, no retry of the same request, and the overflow is reported as unrecoverable.
    s = await make_session(tmp_path)
    err = "prompt is too long: 300000 tokens > 200000 maximum"
    script = Script(faux, faux_error(err), faux_error(err))
    rec = Recorder()
    s.subscribe(rec)
    await asyncio.wait_for(s.prompt("huge"), 5)
    assert len(script.agent_requests) == 1
    assert script.summary_requests == []
    assert "compaction" not in [e["type"] for e in entries(s.session_file)]
    ends = rec.of("compaction_end")
    assert len(ends) == 1 and ends[0].error_message is not None
    assert ends[0].error_message.startswith("Context overflow recovery failed")
    assert not s.is_streaming


async def test_manual_compact_of_a_lone_exchange_has_nothing_to_compact(tmp_path, faux):
    from pi_app.session.results import CompactionError

    s = await make_session(tmp_path, settings={"compaction": {"keepRecentTokens": 3}})
    script = Script(faux, faux_text("a"))
    await s.prompt("one")
    try:
        await s.compact()
        raise AssertionError("expected CompactionError")
    except CompactionError as exc:
        assert str(exc) == "Nothing to compact (session too small)"
    assert script.summary_requests == []


async def three(tmp_path, faux, **kw):
    s = await make_session(tmp_path, **kw)
    script = Script(faux, faux_text("A1"), faux_text("A2"), faux_text("A3"))
    for q in ("Q1", "Q2", "Q3"):
        await s.prompt(q)
    return s, script


def first_user(s):
    return next(e for e in entries(s.session_file) if e.get("message", {}).get("role") == "user")


async def test_navigate_to_root_user_message_empties_context(tmp_path, faux):
    s, script = await three(tmp_path, faux)
    q1 = first_user(s)
    result = await s.navigate_tree(q1["id"])
    assert result.editor_text == "Q1"
    assert [m.role for m in s.messages if m.role != "system"] == []
    script.add(faux_text("fresh"))
    await s.prompt("restart")
    assert [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")] == [
        "user:restart"
    ]
    ctx = reopen(s.session_file).build_session_context()
    assert [t for t in texts(ctx.messages) if not t.startswith("system")] == [
        "user:restart",
        "assistant:fresh",
    ]


async def test_navigate_to_root_with_summary(tmp_path, faux):
    s, script = await three(tmp_path, faux)
    q1 = first_user(s)
    script.summary = "Earlier work."
    result = await s.navigate_tree(q1["id"], summarize=True)
    assert result.summary_entry_id
    assert [m.role for m in s.messages if m.role != "system"] == ["branchSummary"]
    script.add(faux_text("ok"))
    await s.prompt("next")
    ctx = reopen(s.session_file).build_session_context()
    assert [m.role for m in ctx.messages if m.role != "system"] == ["branchSummary", "user", "assistant"]


async def test_navigate_to_compaction_and_branch_summary_entries(tmp_path, faux):
    s, script = await three(tmp_path, faux, settings={"compaction": {"keepRecentTokens": 3}})
    await s.compact()
    comp = next(e for e in entries(s.session_file) if e["type"] == "compaction")
    script.add(faux_text("A4"))
    await s.prompt("Q4")
    r = await s.navigate_tree(comp["id"])
    assert r.moved and r.editor_text is None
    assert s.session_manager.leaf_id == comp["id"]
    assert s.messages[0].role == "compactionSummary"
    # back to the old leaf, then to the compaction again with a summary of the abandoned Q4/A4
    a4 = next(
        e
        for e in entries(s.session_file)
        if e.get("message", {}).get("role") == "assistant" and e["message"]["content"][0]["text"] == "A4"
    )
    await s.navigate_tree(a4["id"])
    assert s.messages[-1].role == "assistant" and s.messages[-1].content[0].text == "A4"
    r = await s.navigate_tree(comp["id"], summarize=True)
    assert r.summary_entry_id
    bs = next(e for e in entries(s.session_file) if e["type"] == "branch_summary")
    r2 = await s.navigate_tree(bs["id"])
    assert r2.editor_text is None and s.session_manager.leaf_id == bs["id"]
    assert s.messages[-1].role == "branchSummary"


async def test_fork_then_resume_fork_and_original(tmp_path, faux):
    s, script = await three(tmp_path, faux)
    original = s.session_file
    q2 = next(
        e
        for e in entries(original)
        if e.get("message", {}).get("role") == "user" and e["message"]["content"][0]["text"] == "Q2"
    )
    assert (await s.fork(q2["id"])).text == "Q2"
    fork_file = s.session_file
    assert fork_file != original
    script.add(faux_text("F1"))
    await s.prompt("in fork")
    await s.switch_session(original)
    assert [t for t in texts(s.messages) if not t.startswith("system")][-1] == "assistant:A3"
    await s.switch_session(fork_file)
    got = [t for t in texts(s.messages) if not t.startswith("system")]
    assert got == ["user:Q1", "assistant:A1", "user:in fork", "assistant:F1"]
    script.add(faux_text("F2"))
    await s.prompt("more")
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert sent == ["user:Q1", "assistant:A1", "user:in fork", "assistant:F1", "user:more"]


async def test_new_session_then_switch_back(tmp_path, faux):
    s, script = await three(tmp_path, faux)
    original = s.session_file
    new = await s.new_session()
    assert new != original and [m for m in s.messages if m.role != "system"] == []
    script.add(faux_text("N1"))
    await s.prompt("fresh")
    await s.switch_session(original)
    assert [t for t in texts(s.messages) if not t.startswith("system")][-2:] == ["user:Q3", "assistant:A3"]
    script.add(faux_text("A4"))
    await s.prompt("Q4")
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert sent[-3:] == ["assistant:A3", "user:Q4"][-3:] or sent[-2:] == ["assistant:A3", "user:Q4"]
    assert "user:fresh" not in sent


async def test_thinking_level_survives_a_detour_through_a_non_reasoning_model(tmp_path, faux):
    from pi_app.ai.providers.faux import faux_model

    s = await make_session(tmp_path)
    s.set_thinking_level("high")
    await s.set_model(faux_model("plain", reasoning=False))
    assert s.thinking_level == "off"
    # pi: leaving a model without thinking, the level comes from the saved default, not the "off" it had
    await s.set_model(faux_model("faux-1"))
    assert s.thinking_level == "high"
    branch = s.session_manager.get_branch()
    kinds = [(e.get("type"), e.get("thinkingLevel")) for e in branch if "thinking" in e.get("type")]
    assert kinds[-1] == ("thinking_level_change", "high")


async def test_thinking_level_kept_when_switching_between_reasoning_models(tmp_path, faux):
    from pi_app.ai.providers.faux import faux_model

    s = await make_session(tmp_path)
    s.set_thinking_level("low")
    s.settings.set_default_thinking_level("high")
    await s.set_model(faux_model("other"))
    assert s.thinking_level == "low"


async def test_session_with_truncated_last_line_then_appended(tmp_path, faux):
    s, script = await three(tmp_path, faux)
    path = s.session_file
    raw = open(path, encoding="utf-8").read()
    open(path, "w", encoding="utf-8").write(raw.rstrip("\n")[:-15])  # crash mid-write of the last entry
    s2 = await make_session(tmp_path, session=reopen(path))
    Script(faux, faux_text("after"))
    await s2.prompt("resumed")
    es = entries(path)  # raises if a line is not valid JSON
    got = [t for t in texts(reopen(path).build_session_context().messages) if not t.startswith("system")]
    assert got[-2:] == ["user:resumed", "assistant:after"]
    assert len([e for e in es if e.get("type") == "message"]) >= 6


async def test_steering_while_threshold_compaction_runs(tmp_path, faux):
    from pi_app.ai.providers.faux import FauxResponse, FauxStep

    s = await make_session(
        tmp_path,
        settings={"compaction": {"enabled": True, "reserveTokens": 500, "keepRecentTokens": 3}},
        context_window=2000,
    )
    release = asyncio.Event()  # the summary stays open until the steer is queued
    slow_summary = FauxResponse(
        steps=[FauxStep("text", text="SUMMARY of it all")], chunk_size=2, hold=release
    )
    script = Script(faux, faux_text("a"), faux_text("b", usage={"input": 1600, "output": 10}), faux_text("c"))
    script.summary = slow_summary
    rec = Recorder()
    s.subscribe(rec)
    await s.prompt("one")
    task = asyncio.create_task(s.prompt("two"))
    await wait_until(lambda: s.is_compacting, "compaction to start")
    await s.prompt("steered", streaming_behavior="steer")
    release.set()
    await asyncio.wait_for(task, HANG_GUARD_S)
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert sent[-1] == "user:steered"
    assert s.messages[-1].role == "assistant" and s.messages[-1].content[0].text == "c"
    assert s.get_steering_messages() == [] and not s.is_streaming


async def test_retry_after_429_with_tool_call_in_flight(tmp_path, faux):
    calls = []

    async def run(call_id, params, signal, on_update):
        calls.append(call_id)
        return AgentToolResult(content=[TextContent(text="ok")])

    tool = FunctionTool("t", "t", PARAMS, run)
    s = await make_session(tmp_path, custom_tools=[tool], no_tools=True)
    script = Script(
        faux,
        faux_tool("t", {}, call_id="x1", error="429 Too Many Requests: rate limit"),
        faux_tool("t", {}, call_id="x2"),
        faux_text("done"),
    )
    await s.prompt("go")
    assert calls == ["x2"]
    sent = script.agent_requests[1].messages
    assert [m.role for m in sent if m.role != "system"] == ["user"]
    ctx = reopen(s.session_file).build_session_context()
    # the file keeps the failed attempt (as pi does); providers skip errored turns when sending
    kept = [(m.role, getattr(m, "stopReason", None)) for m in ctx.messages if m.role != "system"]
    assert kept == [
        ("user", None),
        ("assistant", "error"),
        ("assistant", "toolUse"),
        ("toolResult", None),
        ("assistant", "stop"),
    ]


async def test_compaction_when_keep_recent_exceeds_conversation(tmp_path, faux):
    # A manual /compact the user asked for summarises all but the last exchange (issue 17).
    s, script = await three(tmp_path, faux, settings={"compaction": {"keepRecentTokens": 1_000_000}})
    await s.compact()
    assert len(script.summary_requests) == 1
    compactions = [e for e in entries(s.session_file) if e["type"] == "compaction"]
    assert len(compactions) == 1
    kept = [m for m in s.messages if m.role in ("user", "assistant")]
    assert texts(kept) == ["user:Q3", "assistant:A3"]


async def test_user_bash_while_agent_streams_lands_after_the_turn(tmp_path, faux):
    from pi_app.ai.providers.faux import FauxResponse, FauxStep

    s = await make_session(tmp_path)
    release = asyncio.Event()  # the answer streams until the command has run, however slow the machine
    held = FauxResponse(steps=[FauxStep("text", text="streaming answer")], chunk_size=2, hold=release)
    script = Script(faux, held, faux_text("second"))
    task = asyncio.create_task(s.prompt("q"))
    await wait_until(lambda: s.agent.state.is_streaming, "the run to start")
    result = await s.execute_bash("echo hi")
    assert result.output.strip() == "hi" and s.agent.state.is_streaming
    release.set()
    await task
    roles = [m.role for m in s.messages if m.role != "system"]
    assert roles == ["user", "assistant", "bashExecution"]
    await s.prompt("next")
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert "hi" in sent[-2] and sent[-1] == "user:next"
    ctx = reopen(s.session_file).build_session_context()
    assert [m.role for m in ctx.messages if m.role != "system"][:3] == roles


async def test_tool_images_blocked_in_request(tmp_path, faux):
    from pi_app.ai.types import ImageContent

    async def run(call_id, params, signal, on_update):
        return AgentToolResult(
            content=[TextContent(text="see"), ImageContent(data="aGk=", mimeType="image/png")]
        )

    tool = FunctionTool("shot", "s", PARAMS, run)
    s = await make_session(
        tmp_path, custom_tools=[tool], no_tools=True, settings={"images": {"blockImages": True}}
    )
    script = Script(faux, faux_tool("shot", {}), faux_text("ok"))
    await s.prompt("look")
    result = [m for m in script.agent_requests[-1].messages if m.role == "toolResult"][0]
    assert [c.type for c in result.content] == ["text", "text"]
    assert "disabled" in result.content[1].text
    # the transcript keeps the image
    assert any(c.type == "image" for m in s.messages if m.role == "toolResult" for c in m.content)


async def test_exhausted_retries_still_check_threshold_compaction(tmp_path, faux):
    # pi: a retryable error that is not retried (again) still goes through the compaction check, so a
    # session stuck on e.g. 529s near the window can compact.
    s = await make_session(
        tmp_path,
        settings={
            "compaction": {"enabled": True, "reserveTokens": 500, "keepRecentTokens": 3},
            "retry": {"enabled": True, "maxRetries": 1, "baseDelayMs": 1},
        },
        context_window=2000,
    )
    rec = Recorder()
    s.subscribe(rec)
    script = Script(
        faux,
        faux_text("a", usage={"input": 100, "output": 10}),
        faux_error("529 overloaded_error"),
        faux_error("529 overloaded_error"),
    )
    await s.prompt("one")
    await s.prompt("x " * 3400)
    assert len(script.agent_requests) == 3
    assert [e.success for e in rec.of("auto_retry_end")] == [False]
    assert [e.reason for e in rec.of("compaction_start")] == ["threshold"]
    assert len(script.summary_requests) == 1


async def test_abort_during_threshold_compaction_then_prompt(tmp_path, faux):
    from pi_app.ai.providers.faux import FauxResponse, FauxStep

    s = await make_session(
        tmp_path,
        settings={"compaction": {"enabled": True, "reserveTokens": 500, "keepRecentTokens": 3}},
        context_window=2000,
    )
    script = Script(faux, faux_text("a"), faux_text("b", usage={"input": 1600, "output": 10}))
    script.summary = FauxResponse(
        steps=[FauxStep("text", text="S" * 200)], chunk_size=1, hold=asyncio.Event()
    )
    rec = Recorder()
    s.subscribe(rec)
    await s.prompt("one")
    task = asyncio.create_task(s.prompt("two"))
    await wait_until(lambda: s.is_compacting, "compaction to start")
    await s.abort()
    await asyncio.wait_for(task, HANG_GUARD_S)
    assert rec.of("compaction_end")[-1].aborted
    assert not s.is_streaming and not s.is_compacting
    assert "compaction" not in [e["type"] for e in entries(s.session_file)]
    script.summary = "SUMMARY"
    script.add(faux_text("c", usage={"input": 100, "output": 5}))
    await s.prompt("three")
    # the cancelled compaction is due again before the next prompt (pi's pre-prompt check)
    assert [e.reason for e in rec.of("compaction_start")] == ["threshold", "threshold"]
    sent = [t for t in texts(script.agent_requests[-1].messages) if not t.startswith("system")]
    assert "SUMMARY" in sent[0] and sent[-1] == "user:three"
