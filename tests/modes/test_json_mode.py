"""``pi --mode json``: the session header, then every session event as one JSON line."""

from __future__ import annotations

import json

from tests.loopback.openai_wire import chat_chunk, chat_stream, chat_text_stream
from tests.loopback.server import Pause
from tests.modes import scripts
from tests.modes.harness import json_lines, make_env


def test_json_event_sequence_with_a_tool_call(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(
        scripts.tool_call("openai-completions", "call_1", "bash", {"command": "echo out-of-bash"}),
        chat_text_stream("done"),
    )
    result = env.call("--mode", "json", "run it")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    header = records[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(env.project)
    types = [r["type"] for r in records[1:]]
    # pi 1.6: agent_settled closes the prompt's run, after its agent_end
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    assert types.count("agent_start") == 1 and types.count("turn_start") == 2 and types.count("turn_end") == 2
    core = [t for t in types if t not in ("message_update", "tool_execution_update")]
    user_start = next(
        i
        for i, r in enumerate(records[1:])
        if r["type"] == "message_start" and r["message"]["role"] == "user"
    )
    assert core.index("turn_start") < user_start + 1
    tool_start = core.index("tool_execution_start")
    assert core[tool_start : tool_start + 2] == ["tool_execution_start", "tool_execution_end"]
    by_type = {r["type"]: r for r in records[1:]}
    assert by_type["tool_execution_start"]["toolName"] == "bash"
    assert by_type["tool_execution_start"]["args"] == {"command": "echo out-of-bash"}
    end = by_type["tool_execution_end"]
    assert end["isError"] is False and "out-of-bash" in json.dumps(end["result"])
    updates = [r for r in records if r["type"] == "message_update"]
    assert updates and all("assistantMessageEvent" in u and "id" not in u for u in updates)
    final = [r for r in records if r["type"] == "message_end" and r["message"]["role"] == "assistant"][-1]
    assert final["message"]["content"][0] == {"type": "text", "text": "done"}
    assert records[-2]["type"] == "agent_end" and records[-2]["messages"]
    assert records[-1] == {"type": "agent_settled", "aborted": False}
    # every line is compact JSON on its own line; the header id names the session file
    assert all("\n" not in line for line in result.stdout.splitlines())
    assert list((env.agent_dir / "sessions").rglob(f"*_{header['id']}.jsonl"))


def test_closed_pipe_ends_quietly(tmp_path, loopback):
    """``pi --mode json | head -1``: no EPIPE stack trace, exit 0, the run is stopped."""
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    pieces = [chat_chunk({"role": "assistant", "content": ""})]
    for i in range(40):
        pieces.append(chat_chunk({"content": f"piece {i} "}))
    frames = chat_stream(*pieces, chat_chunk({}, "stop")).chunks
    # pace the stream so pi is still writing after the reader has gone
    paced: list = []
    for frame in frames:
        paced += [frame, Pause(0.02)]
    loopback.add(type(chat_stream())(chunks=paced))
    proc = env.popen("--no-session", "--mode", "json", "go")
    proc.stdin.close()
    first = proc.stdout.readline()
    assert json.loads(first)["type"] == "session"
    proc.stdout.close()
    assert proc.wait(timeout=20) == 0
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr and "EPIPE" not in stderr, stderr
