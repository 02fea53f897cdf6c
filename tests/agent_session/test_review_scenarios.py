"""Scenario checks against pi's behaviour: abort mid-tool, overflow, navigation edge cases, fork/resume."""

from __future__ import annotations

import asyncio

from pi_app.agent.tool import AgentToolResult, FunctionTool
from pi_app.ai.abort import race_abort
from pi_app.ai.providers.faux import faux_error, faux_text, faux_tool
from pi_app.ai.types import TextContent

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
    from pi_app.session.auto_compaction import CompactionError

    s = await make_session(tmp_path, settings={"compaction": {"keepRecentTokens": 3}})
    script = Script(faux, faux_text("a"))
    await s.prompt("one")
    try:
        await s.compact()
        raise AssertionError("expected CompactionError")
    except CompactionError as exc:
        assert str(exc) == "Nothing to compact (session too small)"
    assert script.summary_requests == []
