"""The loader reads a message's role (and whether an assistant turn opens with text) from the line prefix.

What a message head claims must agree with the parsed line: the role is the message's role, and "has text" is
only claimed when the message really has a non-blank text part. Lines from other JSON writers (spaces, other
key order) get their head from the parsed dict; nothing is parsed for pi's own lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.session.store import SessionManager
from pi_app.session.store.jsonl import load_session_file
from pi_app.session.store.record import EntryRecord, head_of
from widgets.tree.entry_text import is_hidden_assistant

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}


def msg(eid: str, parent: str | None, role: str, content: Any, **more: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": role, "content": content, **more},
    }


def text(t: str) -> dict[str, str]:
    return {"type": "text", "text": t}


CALL = {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}
THINK = {"type": "thinking", "thinking": 'weigh "both" {options}, \\ then', "thinkingSignature": "c2lnbg=="}
# a tool call whose arguments hold something shaped like a text part: not the message's text
TEXTY_CALL = {"type": "toolCall", "id": "c2", "name": "post", "arguments": {"blocks": [text("not mine")]}}
CASES: list[tuple[dict[str, Any], tuple[str, bool]]] = [
    (msg("u1", None, "user", [text("hi")]), ("user", True)),
    (msg("u2", "u1", "user", "plain string"), ("user", True)),
    (msg("a1", "u2", "assistant", [text("answer"), CALL]), ("assistant", True)),
    (msg("a2", "a1", "assistant", [text("\n \t"), CALL], stopReason="toolUse"), ("assistant", False)),
    (msg("a3", "a2", "assistant", [CALL], stopReason="toolUse"), ("assistant", False)),
    (
        msg("a4", "a3", "assistant", [{"type": "thinking", "thinking": "hm"}, text("later")]),
        ("assistant", True),
    ),
    (msg("a5", "a4", "assistant", [text("\u2003"), CALL]), ("assistant", False)),  # non-ASCII blank
    (msg("a6", "a5", "assistant", [text('"quoted"')]), ("assistant", True)),
    (msg("a7", "a6", "assistant", [text("\\n not a newline")]), ("assistant", True)),
    (msg("r1", "a7", "toolResult", [text("out")], toolCallId="c1", toolName="ls"), ("toolResult", True)),
    (msg("t1", "r1", "assistant", [THINK, {**THINK, "redacted": True}, text('"q"')]), ("assistant", True)),
    (msg("t2", "t1", "assistant", [THINK, CALL, text("after the call")]), ("assistant", True)),
    (msg("t3", "t2", "assistant", [THINK, text(" \n "), CALL], stopReason="toolUse"), ("assistant", False)),
    (msg("t4", "t3", "assistant", [THINK, TEXTY_CALL], stopReason="toolUse"), ("assistant", False)),
    (
        msg("e1", "t4", "assistant", [THINK], stopReason="error", errorMessage="overloaded"),
        ("assistant", False),
    ),
    (msg("s1", "e1", "system", [text("tools: ls")]), ("system", True)),
]


def write(path: Path, entries: list[dict[str, Any]], **dumps: Any) -> None:
    dumps = dumps or {"separators": (",", ":"), "ensure_ascii": False}
    path.write_text("".join(json.dumps(e, **dumps) + "\n" for e in [HEADER, *entries]), "utf-8")


def assert_agrees(rec: EntryRecord, entry: dict[str, Any], full: tuple[str, bool]) -> None:
    head = rec.message_head
    assert head is not None, entry["id"]
    assert head[0] == full[0], entry["id"]
    assert not head[1] or full[1], f"{entry['id']}: claims text it does not have"
    if head[2] is not None:  # a tool-calls-only answer (or not), as the tree would judge the parsed message
        assert head[2] == (full[0] == "assistant" and is_hidden_assistant(entry["message"])), entry["id"]


@pytest.mark.parametrize("style", ["pi", "spaced", "reordered"])
def test_heads_agree_with_the_parsed_lines(tmp_path: Path, style: str) -> None:
    path = tmp_path / "s.jsonl"
    entries = [e for e, _ in CASES]
    if style == "reordered":  # another writer's key order: the loader parses these lines to check them
        entries = [dict(reversed(e.items())) for e in entries]
    write(path, entries, **({} if style == "pi" else {"indent": None}))  # json.dumps defaults: ", " and ": "
    loaded = load_session_file(path)
    assert [r.id for r in loaded.entries] == [e["id"] for e in entries]
    for rec, (entry, full) in zip(loaded.entries, CASES, strict=True):
        assert head_of(entry)[:2] == full, entry["id"]  # type: ignore[index]
        assert_agrees(rec, entry, full)
        assert not rec.is_parsed, "the head was read by parsing the line and keeping it"


def test_pi_lines_opening_with_text_are_known_to_have_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, [e for e, _ in CASES])
    heads = {r.id: r.message_head for r in load_session_file(path).entries}
    assert heads["a1"] == ("assistant", True, False)
    assert heads["a6"] == ("assistant", True, False)
    assert heads["a3"] == ("assistant", False, True)  # tool calls only: hidden, known without a read
    assert heads["a4"] == ("assistant", True, False)  # thinking first, then text: the loader looks past it
    assert heads["t1"] == ("assistant", True, False)
    assert heads["t2"] == ("assistant", False, None)  # text after a tool call: left to the tree
    assert heads["t3"] == ("assistant", False, True)  # blank text and a tool call
    assert heads["t4"] == ("assistant", False, None)  # a text-like object in a tool call's arguments
    assert heads["e1"] == ("assistant", False, False)  # no text, but it failed: shown
    assert heads["a5"] == ("assistant", False, None)  # a non-ASCII first character is not judged here


def test_non_messages_records_made_here_and_shared_heads(tmp_path: Path) -> None:
    label = {"type": "label", "id": "l1", "parentId": None, "timestamp": "t", "targetId": "x", "label": "k"}
    path = tmp_path / "s.jsonl"
    write(path, [label, *(e for e, _ in CASES)])
    recs = load_session_file(path).entries
    assert recs[0].message_head is None
    assert EntryRecord.from_dict(CASES[2][0]).message_head == ("assistant", True, False)
    # one tuple per kind of head, whatever the number of records
    assert recs[1].message_head is recs[2].message_head


def test_entries_appended_after_resuming_have_heads(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, [e for e, _ in CASES[:3]])
    sm = SessionManager.open(str(path))
    sm.append_message({"role": "user", "content": [text("more")], "timestamp": 0})
    heads = [r.message_head for r in sm.raw_entries()]
    assert heads == [("user", True, False)] * 2 + [("assistant", True, False), ("user", True, False)]


def test_a_parent_id_naming_the_line_before_is_that_lines_id_string(tmp_path: Path) -> None:
    """One string object for an id and the next line's parentId (memory per resumed entry: issue 15)."""
    path = tmp_path / "s.jsonl"
    write(path, [e for e, _ in CASES])
    recs = load_session_file(path).entries
    assert all(b.parent_id is a.id for a, b in zip(recs, recs[1:], strict=False))
    assert [r.parent_id for r in recs] == [e["parentId"] for e, _ in CASES]
