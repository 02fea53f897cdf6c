"""Prompting, persistence, resume, queueing and the failure paths of AgentSession."""

from __future__ import annotations

import asyncio
import json

import pytest

from pi_app.agent import AgentTool, AgentToolResult
from pi_app.ai.providers.faux import FauxResponse, faux_error, faux_model, faux_text, faux_tool
from pi_app.ai.types import dump
from pi_app.session.agent_session import BUSY_TEXT
from pi_app.session.store import SessionManager
from tests.waits import wait_until

from .helpers import Recorder, Script, entries, make_session, reopen, texts


async def test_new_session_entries_and_lazy_file(tmp_path, faux):
    s = await make_session(tmp_path, thinking_level="high")
    assert s.session_file is not None
    import os

    assert not os.path.exists(s.session_file)  # nothing written before the first assistant message
    Script(faux, faux_text("hello"))
    await s.prompt("hi")
    kinds = [(e["type"], e.get("message", {}).get("role")) for e in entries(s.session_file)]
    assert kinds[:2] == [("model_change", None), ("thinking_level_change", None)]
    assert ("message", "user") in kinds and kinds[-1] == ("message", "assistant")
    first = entries(s.session_file)
    assert first[0]["provider"] == "faux" and first[0]["modelId"] == "faux-1"
    assert first[1]["thinkingLevel"] == "high"
    assert s.get_last_assistant_text() == "hello"


async def test_multi_turn_tool_run_persisted_and_resumed(tmp_path, faux):
    s = await make_session(tmp_path)
    (tmp_path / "proj" / "notes.txt").write_text("alpha\nbeta\n")
    script = Script(
        faux,
        faux_tool("read", {"path": "notes.txt"}),
        faux_tool("bash", {"command": "echo from-bash"}),
        faux_text("all done"),
    )
    await s.prompt("look at notes")
    assert len(script.agent_requests) == 3
    last_sent = script.agent_requests[-1].messages
    assert "alpha" in json.dumps([dump(m) for m in last_sent])
    path = s.session_file

    # Resume in a fresh session object: the rebuilt context is what was sent, plus the final answer.
    resumed = await make_session(tmp_path, session=reopen(path))
    assert [dump(m) for m in resumed.messages] == [dump(m) for m in [*last_sent, s.messages[-1]]]
    script.add(faux_text("second answer"))
    await resumed.prompt("and now?")
    sent = script.agent_requests[-1].messages
    assert [dump(m) for m in sent[: len(last_sent) + 1]] == [dump(m) for m in [*last_sent, s.messages[-1]]]
    assert texts(sent[-1:]) == ["user:and now?"]
    # Resuming wrote no second model_change (only the thinking level when the file had none).
    assert sum(1 for e in entries(path) if e["type"] == "model_change") == 1


async def test_api_error_persists_error_assistant(tmp_path, faux):
    s = await make_session(tmp_path, settings={"retry": {"enabled": False}})
    Script(faux, faux_error("bad request: invalid tool schema"))
    await s.prompt("hi")
    last = entries(s.session_file)[-1]["message"]
    assert last["role"] == "assistant" and last["stopReason"] == "error"
    assert last["errorMessage"] == "bad request: invalid tool schema"
    assert last["content"] == []


async def test_busy_prompt_raises_pi_text_and_queues(tmp_path, faux):
    s = await make_session(tmp_path)
    rec = Recorder()
    s.subscribe(rec)
    Script(faux, FauxResponse(steps=faux_text("slow answer").steps, delay_s=0.01), faux_text("after"))
    task = asyncio.create_task(s.prompt("first"))
    while not s.is_streaming:
        await asyncio.sleep(0)
    with pytest.raises(RuntimeError) as err:
        await s.prompt("second")
    assert str(err.value) == BUSY_TEXT
    await s.prompt("queued", streaming_behavior="followUp")
    assert s.get_follow_up_messages() == ["queued"] and s.pending_message_count == 1
    await task
    updates = rec.of("queue_update")
    assert updates[0].to_json() == {"type": "queue_update", "steering": [], "followUp": ["queued"]}
    assert updates[-1].to_json()["followUp"] == []
    assert s.pending_message_count == 0
    users = [e["message"] for e in entries(s.session_file) if e.get("message", {}).get("role") == "user"]
    assert [u["content"][0]["text"] for u in users] == ["first", "queued"]
    assert rec.types().count("agent_end") == 1  # the follow-up is delivered inside the same run


async def test_missing_key_and_no_model(tmp_path, faux):
    s = await make_session(tmp_path, key=None)
    with pytest.raises(RuntimeError, match=r"^No API key found for faux\.\n\nUse /login"):
        await s.prompt("hi")
    assert not s.is_streaming
    assert faux.requests == []
    s.agent.state.model = None
    with pytest.raises(RuntimeError, match=r"^No model selected\.\n\n"):
        await s.prompt("hi")


async def test_unknown_model_pattern_raises(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        await make_session(tmp_path, model="no-such-model-anywhere-xyz")


class Crasher(AgentTool):
    name = "crash"
    label = "crash"
    description = "always fails"
    parameters = {"type": "object", "properties": {}}

    async def execute(self, tool_call_id, params, signal=None, on_update=None) -> AgentToolResult:
        raise ZeroDivisionError("division by zero inside tool")


async def test_tool_crash_keeps_file_valid(tmp_path, faux):
    s = await make_session(tmp_path, custom_tools=[Crasher()])
    Script(faux, faux_tool("crash", {}), faux_text("recovered"))
    await s.prompt("crash please")
    results = [
        e["message"] for e in entries(s.session_file) if e.get("message", {}).get("role") == "toolResult"
    ]
    assert results[0]["isError"] is True
    assert "division by zero inside tool" in results[0]["content"][0]["text"]
    ctx = reopen(s.session_file).build_session_context()
    assert ctx.messages[-1].role == "assistant"


async def test_templates_and_skills_expand(tmp_path, faux):
    agent_dir = tmp_path / "agent"
    (agent_dir / "prompts").mkdir(parents=True)
    (agent_dir / "prompts" / "review.md").write_text(
        "---\ndescription: Review code\n---\nReview $1 carefully"
    )
    skill_dir = tmp_path / "proj" / ".pi" / "skills" / "deploy"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Ship it\n---\nRun the deploy script."
    )
    s = await make_session(tmp_path)
    names = {c["name"]: c for c in s.get_commands()}
    assert names["review"]["description"].startswith("Review code") and names["review"]["source"] == "prompt"
    assert names["skill:deploy"]["source"] == "skill"
    script = Script(faux, faux_text("ok"), faux_text("ok"))
    await s.prompt("/review main.py")
    assert texts(script.agent_requests[0].messages[-1:]) == ["user:Review main.py carefully"]
    await s.prompt("/skill:deploy now")
    sent = texts(script.agent_requests[1].messages[-1:])[0]
    assert sent.startswith('user:<skill name="deploy"') and sent.endswith("</skill>\n\nnow")


async def test_model_and_thinking_changes_are_recorded(tmp_path, faux):
    s = await make_session(tmp_path, thinking_level="low")
    rec = Recorder()
    s.subscribe(rec)
    s.set_thinking_level("high")
    await asyncio.sleep(0)
    assert rec.of("thinking_level_changed")[0].to_json() == {
        "type": "thinking_level_changed",
        "level": "high",
    }
    assert s.cycle_thinking_level() == "off"  # faux-1 offers off..high; high wraps to off
    other = faux_model(id="faux-2", reasoning=False)
    await s.set_model(other)
    assert s.model.id == "faux-2" and s.thinking_level == "off"
    assert s.available_thinking_levels() == ["off"]
    assert rec.of("model_select")[0].source == "set"
    s.set_session_name("  my work  ")
    await asyncio.sleep(0)
    assert rec.of("session_info_changed")[0].to_json() == {"type": "session_info_changed", "name": "my work"}
    Script(faux, faux_text("x"))
    await s.prompt("go")
    kinds = [e["type"] for e in entries(s.session_file)]
    assert kinds.count("model_change") == 2 and "session_info" in kinds
    ctx = reopen(s.session_file).build_session_context()
    assert ctx.model.model_id == "faux-2"


async def test_stats_and_context_usage(tmp_path, faux):
    s = await make_session(tmp_path, context_window=40_000)
    Script(
        faux,
        faux_tool("bash", {"command": "true"}, usage={"input": 100, "output": 20}),
        faux_text("fin", usage={"input": 300, "output": 50, "cacheRead": 10}),
    )
    await s.prompt("count")
    st = s.get_session_stats()
    assert (st.user_messages, st.assistant_messages, st.tool_calls, st.tool_results) == (1, 2, 1, 1)
    assert st.tokens.input == 400 and st.tokens.output == 70 and st.tokens.cache_read == 10
    assert st.cost > 0
    tokens, window, percent = s.get_context_usage()
    assert tokens == 360 and window == 40_000 and percent == pytest.approx(0.9)
    assert st.to_json()["tokens"]["total"] == 480


async def test_in_memory_session_never_writes(tmp_path, faux):
    s = await make_session(tmp_path, session=SessionManager.in_memory(str(tmp_path)))
    Script(faux, faux_text("hi"))
    await s.prompt("x")
    assert s.session_file is None
    assert list(tmp_path.glob("**/*.jsonl")) == []


async def test_abort_mid_stream_leaves_valid_file(tmp_path, faux):
    s = await make_session(tmp_path)
    Script(
        faux, faux_text("first"), FauxResponse(steps=faux_text("x" * 400).steps, delay_s=0.005, chunk_size=1)
    )
    await s.prompt("one")  # the file exists from here on
    task = asyncio.create_task(s.prompt("two"))
    await wait_until(lambda: s.agent.state.streaming_message is not None, "the answer to stream")
    await s.abort()
    await asyncio.wait_for(task, 5)
    assert not s.is_streaming
    last = entries(s.session_file)[-1]["message"]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"
    assert reopen(s.session_file).build_session_context().messages[-1].stopReason == "aborted"


async def test_steer_during_tool_run(tmp_path, faux):
    s = await make_session(tmp_path)
    rec = Recorder()
    s.subscribe(rec)
    go = tmp_path / "go"  # the tool runs until the test has steered, however slow the machine
    script = Script(
        faux,
        FauxResponse(steps=faux_tool("bash", {"command": f"until [ -e '{go}' ]; do sleep 0.01; done"}).steps),
        faux_text("steered"),
    )
    task = asyncio.create_task(s.prompt("start"))
    await wait_until(lambda: "tool_execution_start" in rec.types(), "the tool to start")
    await s.steer("change course")
    assert s.get_steering_messages() == ["change course"]
    go.touch()
    await task
    assert texts(script.agent_requests[-1].messages)[-1] == "user:change course"
    assert s.get_steering_messages() == []
    assert rec.of("queue_update")[-1].to_json() == {"type": "queue_update", "steering": [], "followUp": []}


async def test_event_json_shapes(tmp_path, faux):
    from pi_app.session.compaction.summarize import CompactionResult
    from pi_app.session.session_events import CompactionEndEvent

    ev = CompactionEndEvent("manual", CompactionResult("S", "abc", 1200, {"readFiles": []}))
    assert ev.to_json() == {
        "type": "compaction_end",
        "reason": "manual",
        "result": {
            "summary": "S",
            "firstKeptEntryId": "abc",
            "tokensBefore": 1200,
            "details": {"readFiles": []},
        },
        "aborted": False,
        "willRetry": False,
    }


async def test_block_images_setting(tmp_path, faux):
    from pi_app.ai.types import ImageContent

    s = await make_session(tmp_path, settings={"images": {"blockImages": True}})
    script = Script(faux, faux_text("ok"))
    # a real 1x1 PNG: prompt images are decoded and checked before they enter the conversation
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    img = ImageContent(data=png, mimeType="image/png")
    await s.prompt("look", images=[img, img])
    sent = script.agent_requests[0].messages[-1].content
    assert [c.text for c in sent] == ["look", "Image reading is disabled."]
    stored = [e["message"] for e in entries(s.session_file) if e.get("message", {}).get("role") == "user"]
    assert stored[0]["content"][1]["type"] == "image"  # the file keeps the image; only the request drops it


async def test_cycle_scoped_models(tmp_path, faux):
    from pi_app.session.config import ScopedModel

    a, b = faux_model(id="faux-a"), faux_model(id="faux-b", reasoning=False)
    s = await make_session(tmp_path, model=a, scoped_models=[ScopedModel(a, "low"), ScopedModel(b)])
    assert (await s.cycle_model()).id == "faux-b" and s.thinking_level == "off"
    assert (await s.cycle_model("backward")).id == "faux-a" and s.thinking_level == "low"
    s.scoped_models = s.scoped_models[:1]
    assert await s.cycle_model() is None


async def test_resume_with_missing_model_explains_fallback(tmp_path, faux):
    s = await make_session(tmp_path)
    Script(faux, faux_text("hi"))
    await s.prompt("x")
    resumed = await make_session(tmp_path, session=reopen(s.session_file), model=None)
    assert resumed.model is None  # faux-1 is not in the registry and nothing else has a key
    assert resumed.model_fallback_message
    assert len(resumed.messages) == len(s.messages)
    with pytest.raises(RuntimeError, match="No model selected"):
        await resumed.prompt("again")


async def test_reload_picks_up_new_context_file(tmp_path, faux):
    s = await make_session(tmp_path)
    assert "PROJECT RULE 7" not in s.system_prompt
    (tmp_path / "proj" / "AGENTS.md").write_text("PROJECT RULE 7")
    await s.reload()
    assert "PROJECT RULE 7" in s.system_prompt
    script = Script(faux, faux_text("ok"))
    await s.prompt("hi")
    assert "PROJECT RULE 7" in script.agent_requests[0].systemPrompt


async def test_reload_picks_up_the_keep_background_processes_setting(tmp_path, faux):
    from pi_app.session.config import SettingsManager

    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    settings_file = agent_dir / "settings.json"
    settings_file.write_text("{}")
    settings = SettingsManager.create(str(tmp_path / "proj"), str(agent_dir))
    s = await make_session(tmp_path, settings_manager=settings)
    bash = next(t for t in s.agent.state.tools if t.name == "bash")
    assert bash.options.keep_background_processes is False
    settings_file.write_text('{"bash": {"keepBackgroundProcesses": true}}')
    await s.reload()
    assert bash.options.keep_background_processes is True


async def test_the_chat_shows_what_a_context_edit_hid_from_the_model(tmp_path, faux):
    import shutil
    from pathlib import Path

    from pi_app.session.store import SessionManager

    fixture = Path(__file__).parents[1] / "fixtures" / "pi16" / "retried.jsonl"
    copy = tmp_path / "retried.jsonl"
    shutil.copy(fixture, copy)
    s = await make_session(tmp_path, session=SessionManager.open(str(copy)))
    hidden = [m for m in s.display_messages if m not in s.messages]
    assert len(s.display_messages) == len(s.messages) + 1
    assert [getattr(m, "stopReason", None) for m in hidden] == ["error"]  # the attempt pi retried
