"""A stored message is typed from its own JSON, cut from the line, when the line is pi's compact form with the
message written last; any other line types exactly as before (from the whole line or its dict)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.session.messages import parse_agent_message
from pi_app.session.store import SessionManager
from pi_app.session.store.record import INLINE_LINE_BYTES, EntryRecord

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/tmp"}
LONG = "x" * (2 * INLINE_LINE_BYTES)  # kept in the file, read back through its window


def _user(eid: str, text: str, parent: str | None = None, **extra: Any) -> dict[str, Any]:
    msg = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
    line = {"type": "message", "id": eid, "parentId": parent, "timestamp": "2025-01-01T00:00:01.000Z"}
    return {**line, "message": msg, **extra}


def _compact(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _open(tmp_path: Path, lines: list[str]) -> list[EntryRecord]:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([_compact(HEADER), *lines]) + "\n")
    return list(SessionManager.open(path).raw_entries())


@pytest.mark.parametrize("text", ["short", LONG])
def test_compact_line_message_is_cut_exactly(tmp_path: Path, text: str) -> None:
    (rec,) = _open(tmp_path, [_compact(_user("a", text))])
    cut = rec.message_json()
    assert json.loads(cut) == _user("a", text)["message"]
    assert rec.message_json() == cut  # (read again through the window)


@pytest.mark.parametrize("text", ["short", LONG])
def test_lines_that_cannot_be_cut_type_the_same(tmp_path: Path, text: str) -> None:
    before = {"a": 1, "message": {"role": "user", "content": "evil"}}
    own = _user("c", text, "b")
    odd = [
        # message not last: the cut is not valid JSON
        _compact(_user("a", text, label="after")),
        # pi's spacing differs: no compact key to find
        json.dumps(_user("b", text, "a")),
        # another key order (read whole at load, its role known) with a nested "message" member before the
        # line's own: the cut from the nested one is not valid JSON
        _compact(
            {
                "id": "c",
                **{k: v for k, v in own.items() if k != "message"},
                "meta": before,
                "message": own["message"],
            }
        ),
    ]
    records = _open(tmp_path, odd)
    context = SessionManager.open(tmp_path / "s.jsonl").build_session_context()
    typed = context.messages
    assert [parse_agent_message(m) for m in context.raw_messages] == typed
    for rec, msg in zip(records, typed, strict=True):
        cut = rec.message_json()
        if cut:  # found a key: whatever was cut is not the message, so it must not parse as one
            with pytest.raises(ValueError):
                json.loads(cut)
        assert msg.content[0].text == text  # type: ignore[union-attr]
    assert [bool(rec.message_json()) for rec in records] == [True, False, True]


def test_cut_is_not_used_once_the_record_is_parsed(tmp_path: Path) -> None:
    (rec,) = _open(tmp_path, [_compact(_user("a", "hello"))])
    assert rec.message_json()
    rec.data["message"]["content"][0]["text"] = "changed"
    assert rec.message_json() == b""
