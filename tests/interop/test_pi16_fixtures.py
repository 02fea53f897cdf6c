"""Sessions written by the real pi 1.6 load here and rebuild the context and tools pi sent (tests/fixtures/pi16)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.openai_completions_request import build_completions_params
from pi_app.ai.transcript import get_current_tools
from pi_app.ai.types import Context
from pi_app.session.messages import convert_to_llm
from pi_app.session.store import ModelRef, SessionManager

from .helpers import MODELS, semantic

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pi16"
NAMES = ("tools", "retried", "compacted")
# The fixtures' models.json (tests/conformance/scenarios.py, one model): no reasoning, so a "system" role.
MODEL = MODELS["loop-model"].model_copy(update={"reasoning": False})


def _requests(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{name}.requests.json").read_text("utf-8"))


def _resume_request(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.resume_request.json").read_text("utf-8"))


def _copy(name: str, dest: Path) -> Path:
    target = dest / f"{name}.jsonl"
    shutil.copy(FIXTURES / f"{name}.jsonl", target)
    return target


def _ours(messages: list[Any]) -> dict[str, Any]:
    """The Chat Completions body we build from a rebuilt context: prompt and tools from its system messages."""
    context = Context(messages=convert_to_llm(messages))
    return build_completions_params(MODEL, context, StreamOptions())


def _args_parsed(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(wire))
    for m in out:
        for call in m.get("tool_calls") or []:
            call["function"]["arguments"] = json.loads(call["function"]["arguments"] or "{}")
    return out


def _tools(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [
        (t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
        for t in body.get("tools", [])
    ]


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [(name, item) for name in NAMES for item in _requests(name)]


@pytest.mark.parametrize(("name", "item"), _cases(), ids=lambda v: v if isinstance(v, str) else v["leafId"])
def test_context_prompt_and_tools_at_leaf_match_what_pi_sent(tmp_path, name, item):
    path = _copy(name, tmp_path)
    before = path.read_bytes()
    mgr = SessionManager.open(path)
    assert mgr.warnings == []
    request = item["request"]
    ctx = mgr.build_session_context(item["leafId"])
    assert ctx.model == ModelRef("loop", request["model"])
    ours = _ours(ctx.messages)
    # the stored system message (or the compaction checkpoint) is the whole system prompt pi sent
    assert ours["messages"][0] == request["messages"][0]
    assert semantic(ours["messages"]) == semantic(request["messages"])
    assert _args_parsed(ours["messages"][1:]) == _args_parsed(request["messages"][1:])
    # and the full tool declarations are the ones pi declared
    assert _tools(ours) == _tools(request)
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", NAMES)
def test_resume_rebuilds_what_pi_sent_on_resume(tmp_path, name):
    """pi resumed each file with ``-p continue`` and no --tools: its request is our context plus the prompt."""
    mgr = SessionManager.open(_copy(name, tmp_path))
    request = _resume_request(name)
    ctx = mgr.build_session_context()
    ours = _ours(ctx.messages)
    sent = request["messages"][:-1]  # the last one is the new "continue" prompt
    assert request["messages"][-1]["content"][0]["text"] == "continue"
    assert semantic(ours["messages"]) == semantic(sent)
    assert _args_parsed(ours["messages"][1:]) == _args_parsed(sent[1:])
    assert _tools(ours) == _tools(request)


def test_retried_attempt_is_dropped_by_its_context_edit_but_kept_in_history(tmp_path):
    mgr = SessionManager.open(_copy("retried", tmp_path))
    edit = next(e for e in mgr.raw_entries() if e["type"] == "context_edit")
    target = mgr.get_raw_entry(edit["targetId"])
    assert edit["replacement"] is None and target["message"]["stopReason"] == "error"
    ctx = mgr.build_session_context()
    assert edit["targetId"] not in ctx.entry_ids
    raw = mgr.build_session_context(context_edits=False)
    assert edit["targetId"] in raw.entry_ids  # the raw history still shows the failed attempt
    # branch-relative: at the failed attempt itself (before the edit) the original contribution is back
    at_attempt = mgr.build_session_context(edit["targetId"])
    assert at_attempt.entry_ids[-1] == edit["targetId"]


def test_tools_fixture_records_seven_tools_and_compaction_checkpoint_leads(tmp_path):
    tools = SessionManager.open(_copy("tools", tmp_path)).build_session_context()
    assert list(get_current_tools(tools.messages)) == ["read", "bash", "edit", "write", "grep", "find", "ls"]
    comp = SessionManager.open(_copy("compacted", tmp_path))
    ctx = comp.build_session_context()
    entry = next(e for e in comp.raw_entries() if e["type"] == "compaction")
    assert [getattr(m, "role", None) for m in ctx.messages[:2]] == ["system", "compactionSummary"]
    assert ctx.raw_messages[0] == entry["systemMessage"]
    assert sum(getattr(m, "role", None) == "system" for m in ctx.messages) == 1
