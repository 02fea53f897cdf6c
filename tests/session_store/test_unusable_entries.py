"""One unusable entry never makes a session unopenable (issue 14): it is skipped with a warning naming the
file and line, the rest resumes, and the file is left byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.session.messages import convert_to_llm
from pi_app.session.store import SessionManager
from tests.loopback.openai_wire import chat_text_stream
from tests.modes.harness import make_env
from tests.modes.scripts import request_text
from tests.perf.session_gen import linear_session


def _damage(path: Path) -> dict[int, str]:
    """Break two message entries (line numbers are 1-based file lines); returns line -> entry id."""
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[4])
    bad["message"]["content"] = 12  # the probe's case: a tool result whose content is a number
    lines[4] = json.dumps(bad, separators=(",", ":"))
    worse = json.loads(lines[7])
    worse["message"] = "not an object"
    lines[7] = json.dumps(worse, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {5: bad["id"], 8: worse["id"]}


def test_bad_message_entries_are_skipped_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    linear_session(path, 30)
    damaged = _damage(path)
    before = path.read_bytes()

    mgr = SessionManager.open(path)
    ctx = mgr.build_session_context()
    messages = ctx.messages
    assert len(ctx.sources) == 29 and len(messages) == 27  # 29 message entries, 2 unusable
    for line, entry_id in damaged.items():
        (warning,) = [w for w in mgr.warnings if f"{path.resolve()}:{line}:" in w]
        assert entry_id in warning
    assert any("content" in w and "valid list" in w for w in mgr.warnings)
    assert any("message is str, not an object" in w for w in mgr.warnings)
    assert all("input_value" not in w and "\n" not in w for w in mgr.warnings)  # no pydantic dump
    assert convert_to_llm(messages)  # the rest is usable
    assert path.read_bytes() == before  # nothing rewritten

    mgr.append_message({"role": "user", "content": "still works", "timestamp": 1})
    assert path.read_bytes().startswith(before)  # appended, never rewritten


def test_print_mode_resumes_past_a_bad_entry(tmp_path: Path, loopback) -> None:
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    path = env.project / "s.jsonl"
    linear_session(path, 30)
    _damage(path)
    before = path.read_bytes()
    loopback.add(chat_text_stream("resumed"))

    result = env.call("--session", str(path), "-p", "go on", "--model", "loop/loop-model")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "resumed\n"
    assert "Traceback" not in result.stderr and "validation error" not in result.stderr
    assert f"{path.resolve()}:5: skipped unusable message entry" in result.stderr
    assert f"{path.resolve()}:8: skipped unusable message entry" in result.stderr
    sent = request_text(loopback.requests[0].json)
    assert "go on" in sent
    assert path.read_bytes().startswith(before)  # the answer was appended; the old lines are untouched
