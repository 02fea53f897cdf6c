"""Fault injection for json/rpc output: deep linear sessions and text that is not valid UTF-8.

Every RPC command must answer on a session whose entries form one very long chain (the tree is as deep as
the session is long), and undecodable bytes reaching an event must not stop the writer.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.providers.faux import faux_text
from pi_app.modes.jsonl import JsonlWriter
from pi_app.modes.rpc_mode import RpcServer
from pi_app.session.assembly import create_agent_session
from pi_app.session.config import AuthStorage, ModelRegistry, ProviderRegistration, SettingsManager
from pi_app.session.store import SessionManager
from tests.faults.deep import parse_iteratively, write_linear_session
from tests.modes.harness import PI_CMD, make_env


class RawLines:
    """A binary stream keeping each written line as bytes (deep records cannot go through json.loads)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self._buffer = b""

    def write(self, data: bytes) -> int:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        self.lines.extend(lines)
        return len(data)

    def flush(self) -> None:
        pass


async def _open_session(tmp_path: Path, session_file: Path) -> Any:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    auth = AuthStorage.in_memory()
    registry = ModelRegistry(auth, None)
    registry.register_provider(
        "faux",
        ProviderRegistration(
            baseUrl="http://faux.invalid",
            apiKey="k",
            api="faux",
            models=[{"id": "faux-1", "contextWindow": 10_000_000}],
        ),
    )
    return await create_agent_session(
        project,
        tmp_path / "agent",
        model=registry.find("faux", "faux-1"),
        settings=SettingsManager.in_memory({}),
        auth=auth,
        model_registry=registry,
        session=SessionManager.open(str(session_file), tmp_path / "sessions"),
    )


class Client:
    def __init__(self, session: Any) -> None:
        self.out = RawLines()
        self.server = RpcServer(session, JsonlWriter(self.out))
        self._n = 0

    async def call(self, command: dict[str, Any], timeout: float = 60.0) -> bytes:
        """The raw response line for ``command`` (fails the test when none arrives in time)."""
        self._n += 1
        marker = f'{{"id":"q{self._n}",'.encode()
        start = len(self.out.lines)
        self.server.handle_line(json.dumps({"id": f"q{self._n}", **command}))
        deadline = time.monotonic() + timeout
        while True:
            for line in self.out.lines[start:]:
                if line.startswith(marker) and b'"type":"response"' in line[:60]:
                    line.decode("utf-8")  # every record is valid UTF-8
                    return line
            assert time.monotonic() < deadline, f"no response to {command['type']}"
            await asyncio.sleep(0.005)


def _ok(line: bytes) -> dict[str, Any]:
    record = json.loads(line)
    assert record["success"] is True, record
    return record


def _chain_ids(tree: list[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    nodes = tree
    while nodes:
        assert len(nodes) == 1
        ids.append(nodes[0]["entry"]["id"])
        nodes = nodes[0]["children"]
    return ids


@pytest.mark.slow
async def test_every_rpc_command_answers_on_a_deep_linear_session(tmp_path, faux):
    n = 3000  # far beyond the ~1000 levels where the stdlib encoder gives up
    ids = write_linear_session(tmp_path / "deep.jsonl", str(tmp_path / "proj"), n)
    before = (tmp_path / "deep.jsonl").read_bytes()
    rpc = Client(await _open_session(tmp_path, tmp_path / "deep.jsonl"))

    tree_line = await rpc.call({"type": "get_tree"})
    tree = parse_iteratively(tree_line.decode())["data"]
    chain = _chain_ids(tree["tree"])  # opening may append entries (the tool-set log) after ours
    assert chain[:n] == ids and tree["leafId"] == chain[-1]
    assert (tmp_path / "deep.jsonl").read_bytes()[: len(before)] == before

    state = _ok(await rpc.call({"type": "get_state"}))["data"]
    assert state["messageCount"] == n
    messages = _ok(await rpc.call({"type": "get_messages"}))["data"]["messages"]
    assert len(messages) == n and messages[-1]["content"][0]["text"] == f"answer {n - 1}"
    stats = _ok(await rpc.call({"type": "get_session_stats"}))["data"]
    assert stats["userMessages"] == n // 2
    assert _ok(await rpc.call({"type": "get_last_assistant_text"}))["data"]["text"] == f"answer {n - 1}"
    forks = _ok(await rpc.call({"type": "get_fork_messages"}))["data"]["messages"]
    assert len(forks) == n // 2
    _ok(await rpc.call({"type": "set_label", "entryId": ids[n // 2], "label": "middle"}))
    labelled = parse_iteratively((await rpc.call({"type": "get_tree"})).decode())["data"]["tree"]
    node = labelled[0]
    for _ in range(n // 2):
        node = node["children"][0]
    assert node["label"] == "middle"
    export = _ok(await rpc.call({"type": "export_html", "outputPath": str(tmp_path / "deep.html")}))
    assert Path(export["data"]["path"]).read_text(encoding="utf-8").count('class="tree-node') >= n
    nav = _ok(await rpc.call({"type": "navigate_tree", "targetId": ids[n // 2]}))["data"]
    assert nav["editorText"] == f"message {n // 2}"
    _ok(await rpc.call({"type": "navigate_tree", "targetId": ids[-1]}))
    assert (
        _ok(await rpc.call({"type": "fork", "entryId": ids[n // 2]}))["data"]["text"] == f"message {n // 2}"
    )
    assert len(_ok(await rpc.call({"type": "get_messages"}))["data"]["messages"]) == n // 2
    _ok(await rpc.call({"type": "clone"}))
    _ok(await rpc.call({"type": "switch_session", "sessionPath": str(tmp_path / "deep.jsonl")}))
    faux.responder = lambda context: faux_text("## Goal\nsummary")
    compact = json.loads(await rpc.call({"type": "compact"}))
    assert compact["command"] == "compact"  # an answer either way; the summary itself is not the point
    faux.responder = None
    faux.enqueue(faux_text("still here"))
    _ok(await rpc.call({"type": "prompt", "message": "one more"}))
    await rpc.server.drain()
    assert _ok(await rpc.call({"type": "get_last_assistant_text"}))["data"]["text"] == "still here"
    _ok(await rpc.call({"type": "new_session"}))
    assert (tmp_path / "deep.jsonl").read_bytes()[: len(before)] == before  # only ever appended to


@pytest.mark.slow
async def test_get_tree_of_a_10000_entry_linear_session(tmp_path):
    # A chain ten times deeper than Python's recursion limit: the tree must be written without recursion.
    # (50,000 entries proved nothing more and took 14 s; bench/bench_vs_pi.py times the 50k session.)
    n = 10_000
    ids = write_linear_session(tmp_path / "deep.jsonl", str(tmp_path / "proj"), n)
    rpc = Client(await _open_session(tmp_path, tmp_path / "deep.jsonl"))
    for command in ("get_state", "get_messages", "get_fork_messages"):
        _ok(await rpc.call({"type": command}, timeout=120))
    line = await rpc.call({"type": "get_tree"}, timeout=120)
    assert line.count(b'"children":[') >= n
    assert line.count(b'"children":[]') == 1  # one chain: a single leaf
    assert line.startswith(
        b'{"id":"q4","type":"response","command":"get_tree","success":true,"data":{"tree":['
    )
    depth = line.count(b'"children":[')
    head, _, tail = line.rpartition(b'],"leafId":"')
    assert tail.endswith(b'"}}') and head.endswith(b'"children":[]}' + b"]}" * (depth - 1))
    assert line.count(f'"id":"{ids[-1]}"'.encode()) == 1
    _ok(await rpc.call({"type": "navigate_tree", "targetId": ids[10]}, timeout=120))
    _ok(await rpc.call({"type": "fork", "entryId": ids[-2]}, timeout=120))


# ------------------------------------------------------------------------------ invalid UTF-8


def _faux_env(tmp_path: Path, responses: list[dict[str, Any]]) -> Any:
    env = make_env(tmp_path)
    env.agent_dir.mkdir(parents=True)
    models = {
        "providers": {
            "fx": {"baseUrl": "http://fx.invalid", "api": "faux", "apiKey": "k", "models": [{"id": "m1"}]}
        }
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    (tmp_path / "script.json").write_text(json.dumps(responses), encoding="utf-8")
    return env


EDIT_BAD_FILE = [
    {
        "steps": [
            {
                "kind": "tool",
                "name": "edit",
                "arguments": {"path": "bad.txt", "edits": [{"oldText": "hello", "newText": "bye"}]},
            }
        ]
    },
    {"steps": [{"kind": "tool", "name": "read", "arguments": {"path": "bad.txt"}}]},
    {"steps": [{"kind": "text", "text": "edited"}]},
]


def _records(stdout: bytes) -> list[dict[str, Any]]:
    stdout.decode("utf-8")  # strict: every byte written is valid UTF-8
    return [json.loads(line) for line in stdout.split(b"\n") if line.strip()]


def _run(
    env: Any, tmp_path: Path, *args: str, input: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*PI_CMD, *args],
        cwd=env.project,
        env=env.env(PI_FAUX_SCRIPT=str(tmp_path / "script.json")),
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )


def test_json_mode_survives_an_edited_file_with_byte_0xff(tmp_path):
    env = _faux_env(tmp_path, EDIT_BAD_FILE)
    (env.project / "bad.txt").write_bytes(b"hello \xff world\n")
    result = _run(env, tmp_path, "--mode", "json", "--model", "fx/m1", "go")
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr.decode()
    assert (env.project / "bad.txt").read_bytes() == b"bye \xff world\n"  # the byte itself is kept
    records = _records(result.stdout)
    assert [r["type"] for r in records[-2:]] == ["agent_end", "agent_settled"]
    read_result = [r for r in records if r["type"] == "tool_execution_end"][-1]["result"]
    assert "bye \ufffd world" in json.dumps(read_result, ensure_ascii=False)
    edit_end = next(r for r in records if r["type"] == "tool_execution_end")
    assert edit_end["isError"] is False and "\ufffd" in json.dumps(edit_end, ensure_ascii=False)

    # the session file keeps the text losslessly; --export writes it as U+FFFD
    session_file = next((env.agent_dir / "sessions").rglob("*.jsonl"))
    before = session_file.read_bytes()
    exported = _run(env, tmp_path, "--export", str(session_file), str(tmp_path / "out.html"))
    assert exported.returncode == 0 and b"Traceback" not in exported.stderr, exported.stderr.decode()
    html = (tmp_path / "out.html").read_bytes().decode("utf-8")
    assert "bye \ufffd world" in html
    assert session_file.read_bytes() == before


def _readline(stream: Any, deadline: float) -> bytes:
    """One line from a pipe, failing the test (not hanging it) when none comes before ``deadline``."""
    line = b""
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no output before the deadline (partial line: {line[:200]!r})"
        chunk = os.read(stream.fileno(), 1)
        if not chunk:
            return line
        line += chunk
    return line


def test_rpc_keeps_answering_after_an_event_with_invalid_utf8(tmp_path):
    env = _faux_env(tmp_path, EDIT_BAD_FILE)
    (env.project / "bad.txt").write_bytes(b"hello \xff world\n")
    commands = [
        {"id": "p", "type": "prompt", "message": "go"},
    ]
    proc = env.popen("--mode", "rpc", "--model", "fx/m1", PI_FAUX_SCRIPT=str(tmp_path / "script.json"))
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"".join(json.dumps(c).encode() + b"\n" for c in commands))
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        lines: list[bytes] = []
        while not any(b'"type":"agent_end"' in line for line in lines):
            line = _readline(proc.stdout, deadline)
            assert line, "rpc ended before agent_end"
            lines.append(line)
        for command in ({"id": "s", "type": "get_state"}, {"id": "m", "type": "get_messages"}):
            proc.stdin.write(json.dumps(command).encode() + b"\n")
            proc.stdin.flush()
            while True:
                line = _readline(proc.stdout, deadline)
                assert line, "rpc ended without answering"
                lines.append(line)
                if line.startswith(f'{{"id":"{command["id"]}"'.encode()):
                    assert json.loads(line)["success"] is True
                    break
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        stderr = proc.stderr.read() if proc.stderr else b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert b"Traceback" not in stderr, stderr.decode()
    records = _records(b"".join(lines))
    messages = records[-1]["data"]["messages"]
    assert any("\ufffd" in json.dumps(m, ensure_ascii=False) for m in messages)


def test_jsonl_writer_replaces_lone_surrogates_and_writes_any_depth():
    out = RawLines()
    writer = JsonlWriter(out)
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert writer.write({"type": "x", "text": "a\udcffb\ud800", "deep": deep})
    line = out.lines[0].decode("utf-8")
    assert line.startswith('{"type":"x","text":"a\ufffdb\ufffd","deep":') and line.count("[") == 5001
    assert parse_iteratively(line)["text"] == "a\ufffdb\ufffd"


def test_print_mode_writes_a_lone_surrogate_as_replacement_character(tmp_path):
    env = _faux_env(tmp_path, [{"steps": [{"kind": "text", "text": "bad \udcff byte"}]}])
    result = _run(env, tmp_path, "-p", "--model", "fx/m1", "hi")
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr.decode()
    assert result.stdout.decode("utf-8") == "bad \ufffd byte\n"
