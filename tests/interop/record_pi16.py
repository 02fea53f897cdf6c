"""Re-record tests/fixtures/pi16/ from the real pi 1.6 (needs pi 1.6; the tests never run this).

    .venv/bin/python -m tests.interop.record_pi16 /root/.cache/pi16/bin/pi [ours]

With ``ours``, only the session our pi writes and pi 1.6 continuing it are recorded.

pi runs isolated (HOME at a scratch directory, PI_OFFLINE=1, no version check, no telemetry) with the ``loop``
provider of tests/conformance/scenarios.py aimed at the loopback Chat Completions server. Each scenario keeps
the session file pi wrote and every request pi sent, as ``{leafId, request}`` (the leaf is the entry whose
message ended the request, as for the 0.73.1 fixtures), and the request pi sent when it resumed a copy of the
file with ``-p continue`` and no ``--tools``. Scratch paths become ``/scratch`` and the port 0.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.conformance import scenarios as sc
from tests.conformance.record_pi073 import Scratch
from tests.loopback.openai_wire import api_error
from tests.loopback.server import LoopbackServer, Scripted
from tests.modes import scripts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16"
API = sc.API
SETTINGS = {
    "retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 50},
    "compaction": {"keepRecentTokens": 60},
}


def _env(scratch: Scratch) -> dict[str, str]:
    env = scratch.env()
    env.update(PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0")
    return env


def _rpc(pi: str, scratch: Scratch, args: list[str], steps: list[dict[str, Any]]) -> None:
    proc = subprocess.Popen(
        [pi, "--mode", "rpc", "--model", sc.MODEL, *args],
        cwd=scratch.project,
        env=_env(scratch),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    records: queue.Queue[dict[str, Any]] = queue.Queue()
    tail: list[bytes] = []

    def reader() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            tail.append(line)
            records.put(json.loads(line))

    threading.Thread(target=reader, daemon=True).start()

    def wait(pred: Any) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if pred(records.get(timeout=0.2)):
                    return
            except queue.Empty:
                pass
        raise SystemExit(f"rpc: timed out; last lines {tail[-3:]}")

    assert proc.stdin is not None
    for command in steps:
        proc.stdin.write(json.dumps(command).encode() + b"\n")
        proc.stdin.flush()
        if command["type"] == "prompt":
            wait(lambda r: r.get("type") == "agent_settled")
        else:
            wait(lambda r, c=command: r.get("type") == "response" and r.get("command") == c["type"])
    proc.stdin.close()
    proc.wait(timeout=20)


def _leaf_requests(session: Path, requests: list[Any]) -> list[dict[str, Any]]:
    """Pair each non-summary request with the leaf it was sent from (the parent of its reply)."""
    entries = [json.loads(line) for line in session.read_text("utf-8").splitlines()[1:]]
    assistants = [
        e["parentId"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"
    ]
    plain = [r for r in requests if "summar" not in json.dumps(r.get("messages", [])[-1:]).lower()]
    return [{"leafId": leaf, "request": req} for leaf, req in zip(assistants, plain, strict=True)]


def _scrubbed(scratch: Scratch, data: Any) -> Any:
    return json.loads(scratch.scrub(json.dumps(data)))


def _resume(pi: str, scratch: Scratch, session: Path, server: LoopbackServer) -> dict[str, Any]:
    copy = scratch.root / "copy.jsonl"
    copy.write_bytes(session.read_bytes())
    seen = len(server.requests)
    server.add(scripts.text(API, "Continuing."))
    proc = subprocess.run(
        [pi, "--session", str(copy), "-p", "continue"],
        cwd=scratch.project,
        env=_env(scratch),
        capture_output=True,
        timeout=60,
    )
    if proc.returncode != 0:
        raise SystemExit(f"resume: exit {proc.returncode}: {proc.stderr.decode()}")
    return server.requests[seen].json  # type: ignore[no-any-return]


def record(pi: str, name: str, args: list[str], steps: list[dict[str, Any]], replies: list[Scripted]) -> None:
    with LoopbackServer() as server:
        scratch = Scratch(server.url)
        (scratch.agent / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
        server.add(*replies)
        _rpc(pi, scratch, args, steps)
        session = scratch.session_file()
        requests = [r.json for r in server.requests]
        resumed = _resume(pi, scratch, session, server)
        out = FIXTURES / name
        (FIXTURES / f"{name}.jsonl").write_text(scratch.scrub(session.read_text("utf-8")), encoding="utf-8")
        for suffix, data in (
            ("requests", _leaf_requests(session, requests)),
            ("resume_request", resumed),
        ):
            text = json.dumps(_scrubbed(scratch, data), indent=1) + "\n"
            out.with_name(f"{name}.{suffix}.json").write_text(text, encoding="utf-8")


def record_ours(pi: str) -> None:
    """A session our pi wrote (tool call, answer), then pi 1.6 resuming a copy of it with ``-p continue``."""
    from tests.modes.harness import PI_CMD

    with LoopbackServer() as server:
        scratch = Scratch(server.url)
        server.add(*sc.session_responses())
        proc = subprocess.run(
            [*PI_CMD, "--model", sc.MODEL, "-p", sc.SESSION_PROMPT],
            cwd=scratch.project,
            env=_env(scratch),
            capture_output=True,
            timeout=60,
        )
        if proc.returncode != 0:
            raise SystemExit(f"ours: exit {proc.returncode}: {proc.stderr.decode()}")
        session = scratch.session_file()
        written = session.read_text("utf-8")
        resumed = _resume(pi, scratch, session, server)
        continued = (scratch.root / "copy.jsonl").read_text("utf-8")
        (FIXTURES / "ours.jsonl").write_text(scratch.scrub(written), encoding="utf-8")
        (FIXTURES / "ours.continued-by-pi16.jsonl").write_text(scratch.scrub(continued), encoding="utf-8")
        text = json.dumps(_scrubbed(scratch, resumed), indent=1) + "\n"
        (FIXTURES / "ours.resume_request.json").write_text(text, encoding="utf-8")


def main(argv: list[str]) -> None:
    pi = argv[1]
    FIXTURES.mkdir(parents=True, exist_ok=True)
    if argv[2:] == ["ours"]:
        record_ours(pi)
        return
    write = scripts.tool_call(API, "call_w1", "write", {"path": "notes.txt", "content": "alpha\nbeta\n"})
    grep = scripts.tool_call(API, "call_g1", "grep", {"pattern": "beta", "path": "."})
    # A session run with all seven built-in tools; resumed without --tools, pi declares the seven again.
    record(
        pi,
        "tools",
        ["--tools", "read,bash,edit,write,grep,find,ls"],
        [
            {"id": "p1", "type": "prompt", "message": "write notes.txt"},
            {"id": "p2", "type": "prompt", "message": "grep for beta"},
        ],
        [write, scripts.text(API, "Wrote it."), grep, scripts.text(API, "Found it.")],
    )
    # A transient failure pi retried: the error message stays, a context_edit drops it from the context.
    record(
        pi,
        "retried",
        [],
        [
            {"id": "p1", "type": "prompt", "message": "hello"},
            {"id": "p2", "type": "prompt", "message": "and again"},
        ],
        [
            scripts.text(API, "Hi."),
            api_error(503, "overloaded, try again"),
            scripts.text(API, "Second answer."),
        ],
    )
    # Compaction: the entry carries the systemMessage checkpoint; prompts after it continue from there.
    long_write = scripts.tool_call(
        API, "call_w1", "write", {"path": "notes.txt", "content": "alpha\nbeta\n" * 40}
    )
    record(
        pi,
        "compacted",
        [],
        [
            {"id": "p1", "type": "prompt", "message": "write notes.txt " * 20},
            {"id": "p2", "type": "prompt", "message": "tell me more about the notes please " * 10},
            {"id": "c1", "type": "compact"},
            {"id": "p3", "type": "prompt", "message": "after compaction"},
        ],
        [
            long_write,
            scripts.text(API, "Wrote it. " * 40),
            scripts.text(API, "The notes hold alpha and beta, two lines. " * 30),
            scripts.text(API, "LOOP-SUMMARY-1: the user wrote notes.txt."),
            scripts.text(API, "LOOP-SUMMARY-2: the turn so far."),
            scripts.text(API, "Carrying on."),
        ],
    )


if __name__ == "__main__":
    main(sys.argv)
