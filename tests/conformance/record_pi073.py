"""Re-record tests/fixtures/pi073_json/ from the real pi 0.73.1 (needs node; the tests never run this).

    /tmp/venv/bin/python -m tests.conformance.record_pi073 /tmp/pi073/node_modules/.bin/pi [our-pi]

pi runs with HOME at a scratch directory, PI_OFFLINE=1 and the ``loop`` provider of scenarios.py aimed at
the loopback server. Outputs are scrubbed: the scratch directory becomes ``/scratch``, the server port 0,
and in recorded requests the system prompt text and the tool schemas are reduced (see ``scrub_request``).
With a second argument (our ``pi``) it also writes the session file our pi produces for SESSION_PROMPT
and the request pi 0.73.1 sends when it continues that file.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.conformance import scenarios as sc
from tests.loopback.server import LoopbackServer, Scripted

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi073_json"


class Scratch:
    def __init__(self, base_url: str, *, two_models: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pi073-"))
        self.home = self.root / "home"
        self.project = self.root / "proj"
        self.agent = self.home / ".pi" / "agent"
        self.agent.mkdir(parents=True)
        self.project.mkdir()
        config = sc.models_json(base_url, two_models=two_models)
        (self.agent / "models.json").write_text(json.dumps(config), encoding="utf-8")

    def env(self) -> dict[str, str]:
        import os

        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(HOME=str(self.home), PI_CODING_AGENT_DIR=str(self.agent), PI_OFFLINE="1")
        return env

    def scrub(self, text: str) -> str:
        root = str(self.root)
        encoded = "--" + root.strip("/").replace("/", "-")
        text = text.replace(root, "/scratch").replace(encoded, "--scratch")
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:0", text)

    def session_file(self) -> Path:
        return next((self.agent / "sessions").rglob("*.jsonl"))


def scrub_request(body: dict[str, Any]) -> dict[str, Any]:
    """Keep the conversation; the system prompt text and tool schemas are not what these tests compare."""
    messages = [dict(m) for m in body.get("messages", [])]
    if messages and messages[0].get("role") in ("system", "developer"):
        messages[0]["content"] = "<system prompt omitted>"
    return {"messages": messages, "tools": [t["function"]["name"] for t in body.get("tools", [])]}


def run_print(pi: list[str], args: list[str], responses: list[Scripted], scratch_setup: Any = None):
    with LoopbackServer() as server:
        scratch = Scratch(server.url)
        if scratch_setup is not None:
            scratch_setup(scratch)
        server.add(*responses)
        proc = subprocess.run(
            [*pi, *args], cwd=scratch.project, env=scratch.env(), capture_output=True, timeout=60
        )
        if proc.returncode != 0:
            raise SystemExit(f"{args}: exit {proc.returncode}: {proc.stderr.decode()}")
        return scratch, proc.stdout.decode(), [r.json for r in server.requests]


def record_json(pi: list[str]) -> None:
    for name, prompt, responses in (
        ("json_text", sc.TEXT_PROMPT, sc.text_responses()),
        ("json_tools", sc.TOOLS_PROMPT, sc.tools_responses()),
    ):
        scratch, out, _ = run_print(pi, ["--mode", "json", "--model", sc.MODEL, "-p", prompt], responses)
        (FIXTURES / f"{name}.jsonl").write_text(scratch.scrub(out), encoding="utf-8")


def record_rpc(pi: list[str]) -> None:
    with LoopbackServer() as server:
        scratch = Scratch(server.url, two_models=True)
        (scratch.agent / "prompts").mkdir()
        (scratch.agent / "prompts" / "review.md").write_text(sc.PROMPT_TEMPLATE, encoding="utf-8")
        (scratch.agent / "skills" / "tidy").mkdir(parents=True)
        (scratch.agent / "skills" / "tidy" / "SKILL.md").write_text(sc.SKILL, encoding="utf-8")
        server.add(*sc.rpc_responses())
        proc = subprocess.Popen(
            [*pi, "--mode", "rpc", "--model", sc.MODEL],
            cwd=scratch.project,
            env=scratch.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        lines: list[bytes] = []
        records: queue.Queue[dict[str, Any]] = queue.Queue()

        def reader() -> None:
            for line in proc.stdout:  # type: ignore[union-attr]
                lines.append(line)
                records.put(json.loads(line))

        threading.Thread(target=reader, daemon=True).start()

        def wait(pred: Any) -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if pred(records.get(timeout=0.2)):
                        return
                except queue.Empty:
                    pass
            raise SystemExit(f"rpc: timed out; last lines {lines[-3:]}")

        assert proc.stdin is not None
        for step in sc.RPC_STEPS:
            if step[0] == "await_end":
                wait(lambda r: r.get("type") == "agent_end")
                continue
            command = step[1]
            proc.stdin.write((command if isinstance(command, str) else json.dumps(command)).encode() + b"\n")
            proc.stdin.flush()
            if isinstance(command, str):
                wait(lambda r: r.get("type") == "response" and r.get("command") == "parse")
            elif command["type"] != "prompt":
                wait(lambda r, c=command: r.get("type") == "response" and r.get("command") == c["type"])
        proc.stdin.close()
        proc.wait(timeout=10)
        time.sleep(0.2)
        (FIXTURES / "rpc.jsonl").write_text(scratch.scrub(b"".join(lines).decode()), encoding="utf-8")


def record_sessions(pi: list[str], ours: list[str] | None) -> None:
    """pi's own session and its continue request; with ``ours``: our session and pi continuing it."""
    writers = [("pi", pi)] + ([("ours", ours)] if ours else [])
    for tag, writer in writers:
        scratch, _, _ = run_print(
            writer, ["--model", sc.MODEL, "-p", sc.SESSION_PROMPT], sc.session_responses()
        )
        session_text = scratch.session_file().read_text(encoding="utf-8")
        copy = scratch.root / "copy.jsonl"
        copy.write_text(session_text, encoding="utf-8")
        cont, _, requests = run_print(
            pi, ["--session", str(copy), "-p", sc.CONTINUE_PROMPT], sc.continue_responses()
        )
        (FIXTURES / f"session_{tag}.jsonl").write_text(scratch.scrub(session_text), encoding="utf-8")
        request = json.loads(scratch.scrub(cont.scrub(json.dumps(scrub_request(requests[0])))))
        (FIXTURES / f"session_{tag}.pi_continue_request.json").write_text(
            json.dumps(request, indent=1) + "\n", encoding="utf-8"
        )


def main(argv: list[str]) -> None:
    pi = [argv[1]]
    ours = [argv[2]] if len(argv) > 2 else None
    FIXTURES.mkdir(parents=True, exist_ok=True)
    record_json(pi)
    record_rpc(pi)
    record_sessions(pi, ours)


if __name__ == "__main__":
    main(sys.argv)
