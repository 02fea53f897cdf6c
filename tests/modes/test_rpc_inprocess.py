"""RPC commands against a real AgentSession over the faux provider (fast, in process)."""

from __future__ import annotations

import asyncio
import json
import os

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text
from pi_app.modes.jsonl import JsonlWriter
from pi_app.modes.rpc_mode import RpcServer
from tests.modes.rpc_driver import Collector, RpcDriver, make_faux_session
from tests.waits import HANG_GUARD_S, wait_until


def chat(session) -> list:
    """The conversation messages (the tool-set system message left out)."""
    return [m for m in session.messages if getattr(m, "role", None) != "system"]


def held_text(text: str) -> FauxResponse:
    """Streams its first delta, then stays open until aborted (never released)."""
    return FauxResponse(steps=[FauxStep("text", text=text)], chunk_size=2, hold=asyncio.Event())


async def test_prompt_ack_precedes_the_run_and_events_carry_no_id(tmp_path, faux):
    rpc = RpcDriver(await make_faux_session(tmp_path))
    faux.enqueue(faux_text("hello there"))
    request_id = rpc.send({"type": "prompt", "message": "hi"})
    # acknowledged synchronously, before anything of the run is written
    started = {"disposition": "started"}  # pi 1.6
    ack = {"id": request_id, "type": "response", "command": "prompt", "success": True, "data": started}
    assert rpc.out.records == [ack]
    await rpc.wait_for(lambda r: r.get("type") == "agent_settled")
    await rpc.idle()
    assert all("id" not in e for e in rpc.events())
    types = [e["type"] for e in rpc.events()]
    # pi 1.6: agent_settled closes the prompt's run, after its agent_end
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    assert rpc.events("agent_settled") == [{"type": "agent_settled", "aborted": False}]
    text = await rpc.call({"type": "get_last_assistant_text"})
    assert text["data"] == {"text": "hello there"}
    messages = (await rpc.call({"type": "get_messages"}))["data"]["messages"]
    assert [m["role"] for m in messages if m["role"] != "system"] == ["user", "assistant"]


async def test_second_prompt_while_streaming_fails_with_a_second_response(tmp_path, faux):
    rpc = RpcDriver(await make_faux_session(tmp_path))
    faux.enqueue(held_text("a fairly long answer to keep streaming"))
    rpc.send({"type": "prompt", "message": "first"})
    await rpc.wait_for(lambda r: r.get("type") == "message_update")
    second = rpc.send({"type": "prompt", "message": "second"})
    ack = await rpc.response(second)
    assert ack["success"] is True
    failure = await rpc.response(second, nth=2)
    assert failure["success"] is False and failure["command"] == "prompt"
    assert failure["error"].startswith("Agent is already processing. Specify streamingBehavior")
    await rpc.call({"type": "abort"})
    await rpc.idle()


async def test_steer_and_follow_up_while_streaming_run_in_the_same_run(tmp_path, faux):
    rpc = RpcDriver(await make_faux_session(tmp_path))
    go = tmp_path / "go"  # the tool runs until the queueing is done, however slow the machine
    command = f"until [ -e '{go}' ]; do sleep 0.01; done; echo slept"
    faux.enqueue(
        FauxResponse(steps=[FauxStep("tool", name="bash", arguments={"command": command})]),
        faux_text("after steer"),
        faux_text("after follow-up"),
        faux_text("after queued prompt"),
    )
    rpc.send({"type": "prompt", "message": "start"})
    await rpc.wait_for(lambda r: r.get("type") == "tool_execution_start")
    queued_data = {"disposition": "queued"}  # pi 1.6
    assert (await rpc.call({"type": "steer", "message": "STEER-NOW"}))["data"] == queued_data
    assert (await rpc.call({"type": "follow_up", "message": "FOLLOW-LATER"}))["data"] == queued_data
    queued = rpc.send({"type": "prompt", "message": "QUEUED-PROMPT", "streamingBehavior": "followUp"})
    assert (await rpc.response(queued))["data"] == queued_data
    state = (await rpc.call({"type": "get_state"}))["data"]
    assert state["isStreaming"] is True and state["pendingMessageCount"] == 3
    go.touch()
    await rpc.wait_for(lambda r: r.get("type") == "agent_settled", timeout=HANG_GUARD_S)
    await rpc.idle()
    assert len(rpc.events("agent_end")) == 1
    assert len(rpc.events("agent_settled")) == 1  # the queued prompt joined the run: settled once
    queue_updates = rpc.events("queue_update")
    assert queue_updates[0]["steering"] == ["STEER-NOW"]
    assert queue_updates[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    users = [
        m["message"]["content"][0]["text"]
        for m in rpc.events("message_start")
        if m["message"]["role"] == "user"
    ]
    assert users == ["start", "STEER-NOW", "FOLLOW-LATER", "QUEUED-PROMPT"]
    # only the one failing response for the first prompt: none here
    assert not [r for r in rpc.out.records if r.get("type") == "response" and not r["success"]]


async def test_state_model_and_thinking_commands(tmp_path, faux):
    session = await make_faux_session(tmp_path)
    rpc = RpcDriver(session)
    state = (await rpc.call({"type": "get_state"}))["data"]
    assert state["model"]["id"] == "faux-1" and state["model"]["provider"] == "faux"
    assert state["steeringMode"] == "one-at-a-time" and state["followUpMode"] == "one-at-a-time"
    assert state["isStreaming"] is False and state["messageCount"] == 0 and "sessionName" not in state
    assert state["sessionId"] == session.session_id and state["autoCompactionEnabled"] is True

    models = (await rpc.call({"type": "get_available_models"}))["data"]["models"]
    assert [m["id"] for m in models] == ["faux-1", "faux-2"]
    missing = await rpc.call({"type": "set_model", "provider": "faux", "modelId": "nope"})
    assert missing == {
        "id": missing["id"],
        "type": "response",
        "command": "set_model",
        "success": False,
        "error": "Model not found: faux/nope",
    }
    await rpc.call({"type": "set_thinking_level", "level": "high"})
    assert session.thinking_level == "high"
    cycled = (await rpc.call({"type": "cycle_thinking_level"}))["data"]
    assert cycled == {"level": session.thinking_level} and cycled["level"] != "high"
    bad = await rpc.call({"type": "set_thinking_level", "level": "extreme"})
    assert bad["success"] is False and "extreme" in bad["error"]

    switched = await rpc.call({"type": "set_model", "provider": "faux", "modelId": "faux-2"})
    assert switched["success"] and switched["data"]["id"] == "faux-2"
    assert (await rpc.call({"type": "cycle_thinking_level"}))["data"] is None  # faux-2 does not reason
    cycle = (await rpc.call({"type": "cycle_model"}))["data"]
    assert cycle["model"]["id"] == "faux-1" and cycle["isScoped"] is False and "thinkingLevel" in cycle

    for cmd, attr, value in (
        ("set_steering_mode", "steering_mode", "all"),
        ("set_follow_up_mode", "follow_up_mode", "all"),
    ):
        response = await rpc.call({"type": cmd, "mode": value})
        assert response == {"id": response["id"], "type": "response", "command": cmd, "success": True}
        assert getattr(session, attr) == value
    assert not (await rpc.call({"type": "set_steering_mode", "mode": "some"}))["success"]
    await rpc.call({"type": "set_auto_compaction", "enabled": False})
    assert session.auto_compaction_enabled is False
    await rpc.call({"type": "set_auto_retry", "enabled": False})
    assert session.auto_retry_enabled is False
    assert (await rpc.call({"type": "abort_retry"}))["success"]
    assert not (await rpc.call({"type": "set_auto_retry", "enabled": "yes"}))["success"]

    named = await rpc.call({"type": "set_session_name", "name": "  my work  "})
    assert named["success"] and session.session_name == "my work"
    await rpc.wait_for(lambda r: r.get("type") == "session_info_changed")
    empty = await rpc.call({"type": "set_session_name", "name": "   "})
    assert empty["error"] == "Session name cannot be empty"
    assert (await rpc.call({"type": "get_state"}))["data"]["sessionName"] == "my work"


async def test_bash_compact_stats_export_and_commands(tmp_path, faux):
    prompts = tmp_path / "agent" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fix-tests.md").write_text("---\ndescription: Fix failing tests\n---\nFix the tests in $1\n")
    session = await make_faux_session(tmp_path, settings={"compaction": {"keepRecentTokens": 1}})
    rpc = RpcDriver(session)
    bash = await rpc.call({"type": "bash", "command": "echo from-user-bash"})
    assert bash["data"] == {
        "output": "from-user-bash\n",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
    }
    faux.enqueue(faux_text("ok"), faux_text("ok again"))
    for text in ("first", "second"):
        rpc.send({"type": "prompt", "message": text})
        await rpc.idle()
    # the bash output reached the model with the next prompt, as a user message
    sent = json.dumps([m.model_dump() for m in faux.requests[0].messages])
    assert "Ran `echo from-user-bash`" in sent
    stats = (await rpc.call({"type": "get_session_stats"}))["data"]
    assert stats["userMessages"] == 2 and stats["assistantMessages"] == 2
    assert set(stats["tokens"]) == {"input", "output", "cacheRead", "cacheWrite", "total"}
    assert stats["sessionId"] == session.session_id

    out = tmp_path / "export.html"
    exported = await rpc.call({"type": "export_html", "outputPath": str(out)})
    assert exported["data"] == {"path": str(out)} and "first" in out.read_text()

    faux.responder = lambda ctx: faux_text("SUMMARY OF WORK")
    compacted = await rpc.call({"type": "compact", "customInstructions": "be brief"})
    assert compacted["success"], compacted
    assert compacted["data"]["summary"].startswith("SUMMARY OF WORK")
    keys = ["summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "details"]
    assert list(compacted["data"]) == keys  # pi 1.6 adds the estimate after tokensBefore
    assert 0 < compacted["data"]["estimatedTokensAfter"]

    commands = (await rpc.call({"type": "get_commands"}))["data"]["commands"]
    assert commands[0]["description"].startswith("Fix failing tests")
    assert commands == [
        {
            "name": "fix-tests",
            "description": commands[0]["description"],
            "source": "prompt",
            "sourceInfo": {
                "path": str(prompts / "fix-tests.md"),
                "source": "auto",
                "scope": "user",
                "origin": "top-level",
                "baseDir": str(session.agent_dir),
            },
        }
    ]


async def test_fork_clone_new_switch_and_tree(tmp_path, faux):
    session = await make_faux_session(tmp_path)
    rpc = RpcDriver(session)
    faux.enqueue(faux_text("one"), faux_text("two"))
    for text in ("first question", "second question"):
        rpc.send({"type": "prompt", "message": text})
        await rpc.idle()
    original = session.session_file
    fork_messages = (await rpc.call({"type": "get_fork_messages"}))["data"]["messages"]
    assert [m["text"] for m in fork_messages] == ["first question", "second question"]

    tree = (await rpc.call({"type": "get_tree"}))["data"]
    assert tree["leafId"] == session.session_manager.leaf_id
    flat, stack = [], list(tree["tree"])
    while stack:
        node = stack.pop()
        flat.append(node["entry"]["id"])
        stack.extend(node["children"])
    assert fork_messages[1]["entryId"] in flat

    label = await rpc.call({"type": "set_label", "entryId": fork_messages[0]["entryId"], "label": "start"})
    assert label["success"]
    assert session.session_manager.get_label(fork_messages[0]["entryId"]) == "start"
    assert not (await rpc.call({"type": "set_label", "entryId": "zzzzzzzz", "label": "x"}))["success"]
    nav = await rpc.call({"type": "navigate_tree", "targetId": fork_messages[1]["entryId"]})
    assert nav["data"] == {"cancelled": False, "editorText": "second question"}
    assert len(chat(session)) == 2

    forked = await rpc.call({"type": "fork", "entryId": fork_messages[1]["entryId"]})
    assert forked["data"] == {"text": "second question", "cancelled": False}
    assert session.session_file != original and len(chat(session)) == 2
    bad_fork = await rpc.call({"type": "fork", "entryId": "nope"})
    assert bad_fork["success"] is False and bad_fork["error"]

    cloned = await rpc.call({"type": "clone"})
    assert cloned["data"] == {"cancelled": False}
    new = await rpc.call({"type": "new_session"})
    assert new["data"] == {"cancelled": False} and chat(session) == []
    switched = await rpc.call({"type": "switch_session", "sessionPath": original})
    assert switched["data"] == {"cancelled": False}
    assert session.session_file == original and len(chat(session)) == 4


async def test_malformed_unknown_and_framing(tmp_path, faux):
    """serve(): LF-only framing (U+2028 stays inside a record), CRLF accepted, bad lines answered, EOF ends."""
    session = await make_faux_session(tmp_path, persist=False)
    out = Collector()
    server = RpcServer(session, JsonlWriter(out))
    faux.enqueue(faux_text("echo: a\u2028b"))

    async def chunks():
        yield b'{"id": "p1", "type": "prompt", "message": "a\xe2\x80'  # split inside a UTF-8 character
        yield b'\xa8b"}\r\n{not json}\n'
        yield b'{"id": "u1", "type": "frobnicate"}\n\n[1,2]\n'
        yield b'{"id": "s1", "type": "get_state"}'  # last line without LF

    assert await server.serve(chunks()) == 0
    records = out.records
    responses = [r for r in records if r["type"] == "response"]
    assert responses[0] == {
        "id": "p1",
        "type": "response",
        "command": "prompt",
        "success": True,
        "data": {"disposition": "started"},
    }
    parse = [r for r in responses if r["command"] == "parse"]
    assert len(parse) == 2 and all(r["error"].startswith("Failed to parse command: ") for r in parse)
    assert {
        "id": "u1",
        "type": "response",
        "command": "frobnicate",
        "success": False,
        "error": "Unknown command: frobnicate",
    } in responses
    assert any(r.get("id") == "s1" and r["success"] for r in responses)
    # the prompt ran to the end before serve() returned; U+2028 went through raw, not split
    assert records[-1]["type"] == "agent_end" or any(r["type"] == "agent_end" for r in records)
    user = faux.requests[0].messages[-1].content[0].text
    assert user == "a\u2028b"
    assert "\u2028".encode() in out.raw and out.raw.count(b"\n") == len(records)
    assert session.session_file is None or not os.path.exists(session.session_file)


async def test_abort_bash_reaches_a_running_bash(tmp_path, faux):
    rpc = RpcDriver(await make_faux_session(tmp_path))
    bash_id = rpc.send({"type": "bash", "command": "sleep 600; echo never"})  # only the abort ends it
    await wait_until(lambda: rpc.session.is_bash_running, "the command to start")
    assert (await rpc.call({"type": "abort_bash"}))["success"]
    result = await rpc.response(bash_id, timeout=HANG_GUARD_S)
    assert result["data"]["cancelled"] is True and "never" not in result["data"]["output"]


async def test_pi16_commands_clear_queue_levels_entries_and_tree(tmp_path, faux):
    rpc = RpcDriver(await make_faux_session(tmp_path))
    go = tmp_path / "go"  # the tool runs until the queue has been cleared, however slow the machine
    command = f"until [ -e '{go}' ]; do sleep 0.01; done"
    faux.enqueue(
        FauxResponse(steps=[FauxStep("tool", name="bash", arguments={"command": command})]),
        faux_text("done"),
    )
    rpc.send({"type": "prompt", "message": "start"})
    await rpc.wait_for(lambda r: r.get("type") == "tool_execution_start")
    await rpc.call({"type": "steer", "message": "STEER-NOW"})
    await rpc.call({"type": "follow_up", "message": "LATER"})
    cleared = await rpc.call({"type": "clear_queue"})
    assert cleared["data"] == {"steering": ["STEER-NOW"], "followUp": ["LATER"]}
    assert (await rpc.call({"type": "get_state"}))["data"]["pendingMessageCount"] == 0
    go.touch()
    await rpc.wait_for(lambda r: r.get("type") == "agent_settled", timeout=HANG_GUARD_S)
    await rpc.idle()

    levels = (await rpc.call({"type": "get_available_thinking_levels"}))["data"]["levels"]
    assert levels[0] == "off" and "high" in levels

    session = rpc.session
    manager = session.session_manager
    everything = (await rpc.call({"type": "get_entries"}))["data"]
    ids = [e["id"] for e in manager.raw_entries()]
    assert [e["id"] for e in everything["entries"]] == ids and everything["leafId"] == manager.leaf_id
    assert everything["entries"][0] == manager.raw_entries()[0].data
    after = (await rpc.call({"type": "get_entries", "since": ids[1]}))["data"]
    assert [e["id"] for e in after["entries"]] == ids[2:]
    last = (await rpc.call({"type": "get_entries", "since": ids[-1]}))["data"]
    assert last["entries"] == [] and last["leafId"] == ids[-1]
    missing = await rpc.call({"type": "get_entries", "since": "nope"})
    assert missing["success"] is False

    user_id = next(e["id"] for e in manager.raw_entries() if e.get("message", {}).get("role") == "user")
    await rpc.call({"type": "set_label", "entryId": user_id, "label": "mark"})
    label_entry = manager.raw_entries()[-1]
    tree = (await rpc.call({"type": "get_tree"}))["data"]
    assert tree["leafId"] == manager.leaf_id
    stack, found = list(tree["tree"]), None
    while stack:
        node = stack.pop()
        assert set(node) <= {"entry", "children", "label", "labelTimestamp"}
        if node["entry"]["id"] == user_id:
            found = node
        stack.extend(node["children"])
    assert found is not None and found["label"] == "mark"
    assert found["labelTimestamp"] == label_entry["timestamp"]
