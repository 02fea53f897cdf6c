"""``pi --session FILE -p`` on a big session (issue 15: peak memory): each stored message is typed only while
its request encodes it, so the typed transcript is never held whole; the request is the eager one's, and an
unusable stored message is still reported, with its file and line.

One fresh interpreter runs the command's entry point against the loopback server and reports what the
session's history held afterwards.
"""

from __future__ import annotations

from pi_app.session.store import SessionManager
from tests.fresh_interpreter import run_fresh
from tests.modes import scripts
from tests.modes.harness import make_env
from tests.perf.session_gen import linear_session, make_bad_line

SCRIPT = """
import sys
from pi_app.cli import main
from pi_app.session.agent_session import AgentSession

seen = []
prompt = AgentSession.prompt

async def spy(self, *args, **kwargs):
    seen.append(self)
    return await prompt(self, *args, **kwargs)

AgentSession.prompt = spy
code = main(["--session", sys.argv[1], "-p", "hi", "--model", "loop/loop-model"])
session = seen[0]
print("exit", code)
print("held", len(session.transcript), "untyped", session.untyped_messages)
"""

N = 1_500


def test_a_print_run_types_each_stored_message_for_its_request_only(tmp_path, loopback) -> None:
    env = make_env(tmp_path)
    env.write_models(loopback.url, "openai-completions")
    path = tmp_path / "big.jsonl"
    linear_session(path, N, cwd=str(env.project))
    bad_id, bad_line = make_bad_line(path, 10)
    eager = SessionManager.open(path).build_session_context().messages  # what an eager resume sends
    loopback.add(scripts.text("openai-completions", "hello"))
    done = run_fresh(SCRIPT, str(path), cwd=env.project, env=env.env(), timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "hello"
    assert out[1] == "exit 0"
    # the stored messages (the unusable one too, known as such), then the tool-set log, the question, the answer
    stored = N - 1  # one entry is the model change
    _, held, _, untyped = out[2].split()
    assert int(held) == stored + 3
    assert int(untyped) >= stored - 2  # only the tail was typed for good (the last answer, for compaction)
    assert f"{path.resolve()}:{bad_line}: skipped unusable message entry {bad_id}" in done.stderr
    sent = loopback.requests[-1].json["messages"]
    # the system prompt, the usable stored messages as an eager resume has them, then the new turn's
    assert sent[0]["role"] == "system"
    wire_role = {"user": "user", "assistant": "assistant", "toolResult": "tool"}
    assert [m["role"] for m in sent[1 : 1 + len(eager)]] == [wire_role[m.role] for m in eager]
    assert sent[-1]["role"] == "user" and "hi" in str(sent[-1]["content"])
    assert not any(m["role"] == "assistant" and m.get("content") == 12 for m in sent)
