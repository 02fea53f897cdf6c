"""Our json and rpc modes, in process, against the loopback server (fast: no interpreter start-up)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_app.modes.jsonl import JsonlWriter
from pi_app.modes.print_mode import run_print_mode
from pi_app.session.assembly import create_agent_session
from pi_app.session.store import SessionManager
from tests.conformance import scenarios as sc
from tests.modes.rpc_driver import Collector, RpcDriver


def agent_dir() -> Path:
    path = Path(os.environ["PI_CODING_AGENT_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    return path


async def make_session(
    tmp_path: Path, base_url: str, *, two_models: bool = False, session_file: Path | None = None
) -> Any:
    adir = agent_dir()
    config = sc.models_json(base_url, two_models=two_models)
    (adir / "models.json").write_text(json.dumps(config), encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    manager = SessionManager.open(session_file) if session_file is not None else None
    return await create_agent_session(project, adir, model=sc.MODEL, session=manager)


async def run_json(tmp_path: Path, base_url: str, prompt: str) -> list[dict[str, Any]]:
    session = await make_session(tmp_path, base_url)
    out = Collector()
    code = await run_print_mode(session, mode="json", initial_message=prompt, writer=JsonlWriter(out))
    assert code == 0
    return out.records


async def run_rpc(tmp_path: Path, base_url: str) -> tuple[list[dict[str, Any]], Any]:
    adir = agent_dir()
    (adir / "prompts").mkdir(exist_ok=True)
    (adir / "prompts" / "review.md").write_text(sc.PROMPT_TEMPLATE, encoding="utf-8")
    (adir / "skills" / "tidy").mkdir(parents=True, exist_ok=True)
    (adir / "skills" / "tidy" / "SKILL.md").write_text(sc.SKILL, encoding="utf-8")
    session = await make_session(tmp_path, base_url, two_models=True)
    rpc = RpcDriver(session)
    ends = 0
    for step in sc.RPC_STEPS:
        if step[0] == "await_end":
            ends += 1
            await rpc.wait_for(lambda r, n=ends: len(rpc.events("agent_end")) >= n, timeout=10)
            continue
        command = step[1]
        if isinstance(command, str):
            before = len(rpc.out.records)
            rpc.send_line(command)
            await rpc.wait_for(lambda r: r.get("command") == "parse", start=before)
        elif command["type"] == "prompt":
            rpc.send(command)
        else:
            await rpc.call(command)
    await rpc.idle()
    return rpc.out.records, session
