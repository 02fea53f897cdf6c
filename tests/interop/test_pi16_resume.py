"""Our pi resuming sessions pi 1.6 wrote sends what pi 1.6 sent when it resumed them (tests/fixtures/pi16)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_app.modes.print_mode import run_print_mode
from pi_app.session.assembly import create_agent_session
from pi_app.session.store import SessionManager
from tests.conformance import scenarios as sc
from tests.conformance.runner import agent_dir, make_session
from tests.modes import scripts

from .helpers import semantic

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pi16"


def _tool_names(body):
    return [t["function"]["name"] for t in body.get("tools", [])]


@pytest.mark.parametrize("name", ["tools", "retried", "compacted"])
async def test_resume_without_tools_declares_the_recorded_tool_set(tmp_path, loopback, name):
    copy = tmp_path / f"{name}.jsonl"
    shutil.copy(FIXTURES / f"{name}.jsonl", copy)
    pi = json.loads((FIXTURES / f"{name}.resume_request.json").read_text("utf-8"))
    loopback.add(scripts.text("openai-completions", "Continuing."))
    session = await make_session(tmp_path, loopback.url, session_file=copy)
    code = await run_print_mode(session, mode="text", initial_message="continue")
    assert code == 0
    ours = loopback.requests[-1].json
    assert _tool_names(ours) == _tool_names(pi)
    assert semantic(ours["messages"]) == semantic(pi["messages"])
    # one system prompt, ours: pi's recorded prompt sections are superseded, not sent a second time
    system = [m for m in ours["messages"] if m["role"] in ("system", "developer")]
    assert len(system) == 1 and "<tools>" not in system[0]["content"]
    assert "Current working directory" in system[0]["content"]


async def test_explicit_tools_win_over_the_recorded_set(tmp_path, loopback):
    copy = tmp_path / "tools.jsonl"
    shutil.copy(FIXTURES / "tools.jsonl", copy)
    adir = agent_dir()
    (adir / "models.json").write_text(json.dumps(sc.models_json(loopback.url)), encoding="utf-8")
    (tmp_path / "proj").mkdir()
    loopback.add(scripts.text("openai-completions", "Continuing."))
    session = await create_agent_session(
        tmp_path / "proj", adir, model=sc.MODEL, session=SessionManager.open(copy), tools=["read", "ls"]
    )
    assert await run_print_mode(session, mode="text", initial_message="continue") == 0
    assert _tool_names(loopback.requests[-1].json) == ["read", "ls"]
