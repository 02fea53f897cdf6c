"""``pi --mode rpc`` as a subprocess: a scripted conversation against the loopback server."""

from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any

from tests.loopback.openai_wire import chat_chunk, chat_stream, chat_text_stream
from tests.loopback.server import Pause, Scripted
from tests.modes import scripts
from tests.modes.harness import make_env


class RpcProcess:
    def __init__(self, proc: Any) -> None:
        self.proc = proc
        self.records: list[dict[str, Any]] = []
        self.raw_lines: list[bytes] = []
        self._q: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._q.put(line)
        self._q.put(None)

    def send(self, obj: Any) -> None:
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        for record in self.records:
            if predicate(record):
                return record
        deadline = time.monotonic() + timeout
        while True:
            line = self._q.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"pi exited; last records {self.records[-5:]}")
            self.raw_lines.append(line)
            record = json.loads(line)
            self.records.append(record)
            if predicate(record):
                return record

    def response(self, request_id: str) -> dict[str, Any]:
        return self.wait_for(lambda r: r.get("type") == "response" and r.get("id") == request_id)

    def call(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.send(obj)
        return self.response(obj["id"])


def _paused_text(first: str, second: str, pause: float) -> Scripted:
    frames = chat_stream(
        chat_chunk({"role": "assistant", "content": ""}), chat_chunk({"content": first}), done=False
    ).chunks
    rest = chat_stream(chat_chunk({"content": second}), chat_chunk({}, "stop")).chunks
    return Scripted(chunks=[*frames, Pause(pause), *rest])


def test_rpc_conversation_end_to_end(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(
        _paused_text("Working", " on it.", 1.0),
        chat_text_stream("Steered."),
        scripts.tool_call(
            "openai-completions", "call_1", "write", {"path": "out.txt", "content": "written\n"}
        ),
        chat_text_stream("Followed up."),
    )
    rpc = RpcProcess(env.popen("--mode", "rpc"))
    try:
        ack = rpc.call({"id": "p1", "type": "prompt", "message": "start working"})
        assert ack == {
            "id": "p1",
            "type": "response",
            "command": "prompt",
            "success": True,
            "data": {"disposition": "started"},
        }
        assert rpc.records[0] == ack  # before agent_start
        rpc.wait_for(lambda r: r.get("type") == "message_update")
        steer = rpc.call({"id": "s1", "type": "steer", "message": "change course"})
        follow = rpc.call({"id": "f1", "type": "follow_up", "message": "then write out.txt"})
        busy = rpc.call({"id": "p2", "type": "prompt", "message": "again"})
        assert steer["success"] and follow["success"] and busy["success"]
        failure = rpc.wait_for(lambda r: r.get("id") == "p2" and r.get("success") is False)
        assert failure["error"].startswith("Agent is already processing.")

        rpc.send(b"{this is not json\n")
        parse = rpc.wait_for(lambda r: r.get("command") == "parse")
        assert parse["success"] is False and parse["error"].startswith("Failed to parse command:")
        unknown = rpc.call({"id": "u1", "type": "teleport"})
        assert unknown == {
            "id": "u1",
            "type": "response",
            "command": "teleport",
            "success": False,
            "error": "Unknown command: teleport",
        }

        rpc.wait_for(lambda r: r.get("type") == "agent_end", timeout=20)
        state = rpc.call({"id": "g1", "type": "get_state"})["data"]
        assert state["isStreaming"] is False and state["model"]["id"] == "loop-model"
        assert state["sessionFile"].endswith(".jsonl") and state["pendingMessageCount"] == 0
        assert (env.project / "out.txt").read_text() == "written\n"
        text = rpc.call({"id": "t1", "type": "get_last_assistant_text"})
        assert text["data"] == {"text": "Followed up."}
        bash = rpc.call({"id": "b1", "type": "bash", "command": "cat out.txt"})
        assert bash["data"]["output"] == "written\n" and bash["data"]["exitCode"] == 0
    finally:
        rpc.proc.stdin.close()  # EOF: pi finishes and exits cleanly
        code = rpc.proc.wait(timeout=15)
        stderr = rpc.proc.stderr.read().decode()
        rpc.proc.stdout.close()
        rpc.proc.stderr.close()
    assert code == 0, stderr
    assert "Traceback" not in stderr
    events = [r for r in rpc.records if r.get("type") != "response"]
    assert all("id" not in e for e in events)
    assert [e["type"] for e in events].count("agent_end") == 1  # steer and follow-up joined the same run
    users = [
        e["message"]["content"][0]["text"]
        for e in events
        if e["type"] == "message_start" and e["message"]["role"] == "user"
    ]
    assert users == ["start working", "change course", "then write out.txt"]
    # requests: the steer arrived after the paused reply, the follow-up after the steered reply
    assert "change course" in scripts.request_text(loopback.requests[1].json)
    assert "then write out.txt" in scripts.request_text(loopback.requests[2].json)
    assert all(line.endswith(b"\n") and b"\n" not in line[:-1] for line in rpc.raw_lines)


def test_rpc_eof_right_away_exits_zero(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    result = env.run("--mode", "rpc", input=b'{"id":"x","type":"get_state"}\n')
    assert result.returncode == 0, result.stderr
    [record] = [json.loads(line) for line in result.stdout.splitlines()]
    assert record["id"] == "x" and record["success"] is True and record["data"]["messageCount"] == 0
