"""pi 1.6 resuming a session our pi wrote (recorded by record_pi16.py ``ours``), and us resuming its result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pi_app.modes.print_mode import run_print_mode
from pi_app.session.store import SessionManager
from tests.conformance.runner import make_session
from tests.modes import scripts

from .helpers import semantic
from .test_pi16_fixtures import _args_parsed, _ours

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pi16"


def test_pi16_continued_our_file_with_the_context_we_build():
    written = (FIXTURES / "ours.jsonl").read_bytes()
    continued = (FIXTURES / "ours.continued-by-pi16.jsonl").read_bytes()
    assert continued.startswith(written)  # pi only appended (its prompt checkpoint, the new turn)
    request = json.loads((FIXTURES / "ours.resume_request.json").read_text("utf-8"))
    assert request["messages"][-1]["content"][0]["text"] == "continue"
    mgr = SessionManager.open(FIXTURES / "ours.jsonl")
    ours = _ours(mgr.build_session_context().messages)
    sent = request["messages"][:-1]
    assert semantic(ours["messages"]) == semantic(sent)
    # our file holds no prompt text (only tool declarations), so only the conversation is compared here
    assert _args_parsed([m for m in ours["messages"] if m["role"] != "system"]) == _args_parsed(sent[1:])
    # pi kept the tool set our file recorded
    assert [t["function"]["name"] for t in request["tools"]] == ["read", "bash", "edit", "write"]


async def test_we_resume_what_pi16_continued(tmp_path, loopback):
    copy = tmp_path / "continued.jsonl"
    shutil.copy(FIXTURES / "ours.continued-by-pi16.jsonl", copy)
    assert SessionManager.open(copy).warnings == []
    loopback.add(scripts.text("openai-completions", "Third."))
    session = await make_session(tmp_path, loopback.url, session_file=copy)
    assert await run_print_mode(session, mode="text", initial_message="more") == 0
    body = loopback.requests[-1].json
    system = [m for m in body["messages"] if m["role"] in ("system", "developer")]
    # one prompt (ours); pi's recorded prompt sections are not sent mid-conversation or twice
    assert len(system) == 1 and body["messages"][0]["role"] == "system"
    assert "<tools>" not in system[0]["content"]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "user"]
    assert [t["function"]["name"] for t in body["tools"]] == ["read", "bash", "edit", "write"]
