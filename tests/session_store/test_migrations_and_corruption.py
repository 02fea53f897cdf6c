"""Old formats migrate (with a backup); damaged files load what they can and are never destroyed."""

from __future__ import annotations

import json

import pytest

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.store import SessionFileError, SessionManager, load_session_file

from .helpers import FIXTURES, copy_fixture, pi_check


def test_v1_migrates_to_v3_with_backup(tmp_path):
    path = copy_fixture("v1.jsonl", tmp_path)
    original = path.read_bytes()
    mgr = SessionManager.open(path)
    assert (tmp_path / "v1.jsonl.bak").read_bytes() == original
    assert any("migrated from session format v1 to v3" in w for w in mgr.warnings)
    entries = pi_check(path)
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]  # linear chain
    comp = entries[5]
    assert comp["type"] == "compaction" and "firstKeptEntryIndex" not in comp
    assert comp["firstKeptEntryId"] == entries[3]["id"]  # the "tell me more" message
    assert entries[3]["message"]["content"] == "tell me more"
    assert entries[6]["message"]["role"] == "custom"  # hookMessage renamed
    ctx = mgr.build_session_context()
    assert [m["role"] for m in ctx.raw_messages] == ["compactionSummary", "user", "assistant", "custom"]
    # a second open is a no-op: no new backup
    SessionManager.open(path)
    assert not (tmp_path / "v1.jsonl.bak1").exists()


def test_v2_migrates_hook_message(tmp_path):
    path = copy_fixture("v2.jsonl", tmp_path)
    mgr = SessionManager.open(path)
    assert (tmp_path / "v2.jsonl.bak").read_bytes() == (FIXTURES / "v2.jsonl").read_bytes()
    entries = pi_check(path)
    assert [e["id"] for e in entries] == ["d2000001", "d2000002", "d2000003"]  # ids kept
    assert entries[1]["message"]["role"] == "custom" and entries[1]["message"]["customType"] == "ext"
    assert mgr.build_session_context().messages[1].customType == "ext"


def _session_text(*extra: str) -> str:
    lines = (FIXTURES / "linear.jsonl").read_text().splitlines()
    return "\n".join([*lines, *extra])


def test_truncated_last_line_skipped_then_append_on_own_line(tmp_path):
    path = tmp_path / "s.jsonl"
    cut = '{"type":"message","id":"deadbeef","parentId":"40d9e6aa","timestamp":"2025-11-1'
    path.write_text(_session_text(cut))  # crash mid-write: no final newline
    mgr = SessionManager.open(path)
    assert len(mgr.warnings) == 1 and f"{path}:11" in mgr.warnings[0] and "truncated" in mgr.warnings[0]
    assert mgr.get_leaf_id() == "40d9e6aa" and len(mgr.raw_entries()) == 9
    new_id = mgr.append_message(UserMessage(content=[TextContent(text="after crash")]))
    lines = path.read_text().split("\n")
    assert lines[10] == cut  # the broken line is kept as it was (nothing lost)...
    assert json.loads(lines[11])["id"] == new_id  # ...and ours starts on a line of its own
    again = SessionManager.open(path)
    assert again.get_leaf_id() == new_id and len(again.warnings) == 1


def test_garbage_line_in_middle(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _session_text().splitlines()
    lines.insert(4, "not json at all")
    lines.insert(6, "[1, 2]")
    path.write_text("\n".join(lines) + "\n")
    mgr = SessionManager.open(path)
    assert len(mgr.warnings) == 2
    assert f"{path}:5: skipped malformed line" in mgr.warnings[0] and f"{path}:7" in mgr.warnings[1]
    assert len(mgr.build_session_context().raw_messages) == 6


def test_bad_header_raises_and_file_untouched(tmp_path):
    path = tmp_path / "s.jsonl"
    content = '{"type":"message","id":"x"}\n' + _session_text()
    path.write_text(content)
    with pytest.raises(SessionFileError) as err:
        SessionManager.open(path)
    assert err.value.path == str(path) and str(path) in str(err.value)
    assert path.read_text() == content
    path.write_text('{"type":"session", "id": "trunc')
    with pytest.raises(SessionFileError):
        load_session_file(path)


def test_empty_file_becomes_fresh_session(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n")
    mgr = SessionManager.open(path, tmp_path)
    assert mgr.session_file == str(path) and mgr.raw_entries() == []
    header = json.loads(path.read_text().splitlines()[0])
    assert header["type"] == "session" and header["version"] == 3 and header["id"] == mgr.session_id
    mgr.append_message(UserMessage(content="q"))
    mgr.append_message(AssistantMessage(content=[TextContent(text="a")]))
    assert len(pi_check(path)) == 2  # exactly one header


def test_unknown_types_and_fields_survive(tmp_path):
    path = tmp_path / "s.jsonl"
    future = '{"type":"hologram","id":"f00df00d","parentId":"40d9e6aa","timestamp":"2025-11-10T09:16:00.000Z","beam":[1,{"a":null}]}'
    extra = (
        '{"type":"message","id":"f00df00e","parentId":"f00df00d","timestamp":"2025-11-10T09:16:01.000Z",'
        '"future":true,"message":{"role":"user","content":[{"type":"text","text":"x","sparkle":1}],'
        '"timestamp":1,"mood":"ok"}}'
    )
    path.write_text(_session_text(future, extra) + "\n")
    before = path.read_text()
    mgr = SessionManager.open(path)
    assert mgr.get_entry("f00df00d") == json.loads(future)
    typed = mgr.get_entry("f00df00e")
    assert typed.model_extra == {"future": True} and typed.message.model_extra == {"mood": "ok"}
    ctx = mgr.build_session_context()
    assert ctx.raw_messages[-1]["mood"] == "ok" and ctx.messages[-1].content[0].model_extra == {"sparkle": 1}
    mgr.append_message(AssistantMessage(content=[TextContent(text="y")]))
    assert path.read_text().startswith(before)
    # a clone (rewrite) keeps them too
    clone = mgr.create_branched_session(mgr.get_leaf_id())
    text = open(clone).read()
    assert future in text and '"sparkle":1' in text and '"future":true' in text


def test_damaged_middle_line_found_lazily(tmp_path):
    """A line whose prefix reads fine but whose body is broken is reported when first needed."""
    path = tmp_path / "s.jsonl"
    lines = _session_text().splitlines()
    lines[8] = lines[8].replace('"content":[', '"content":[[[') + "}"  # user "Thanks!" body now invalid
    path.write_text("\n".join(lines) + "\n")
    mgr = SessionManager.open(path)
    assert mgr.warnings == [] and mgr.get_leaf_id() == "40d9e6aa"  # tree intact
    ctx = mgr.build_session_context()
    assert [m["role"] for m in ctx.raw_messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "assistant",
    ]
    assert len(mgr.warnings) == 1 and f"{path}:9: skipped malformed line" in mgr.warnings[0]
    mgr.append_message(UserMessage(content="more"))
    assert path.read_text().splitlines()[8] == lines[8]  # kept verbatim, never rewritten


def test_invalid_utf8_survives_clone(tmp_path):
    path = tmp_path / "s.jsonl"
    raw = _session_text().encode() + b"\n"
    bad = raw.replace(b"Thanks!", b"Thanks\xff!")
    path.write_bytes(bad)
    mgr = SessionManager.open(path, tmp_path)
    clone = mgr.create_branched_session(mgr.get_leaf_id())
    assert b"Thanks\xff!" in open(clone, "rb").read()


def _chain(ids: list[bytes], roles: tuple[bytes, ...] = (b"user",)) -> bytes:
    """A header and messages (roles taken in turn), each the child of the one before, with the given raw ids."""
    lines = [b'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/tmp"}']
    parent = b"null"
    for i, eid in enumerate(ids):
        role = roles[i % len(roles)]
        body = b'"content":[{"type":"text","text":"m%d"}],"timestamp":1' % i
        if role == b"assistant":
            body += b',"api":"faux","provider":"faux","model":"m","stopReason":"stop","usage":{}'
        msg = b'{"role":"%s",%s}' % (role, body)
        lines.append(
            b'{"type":"message","id":"%s","parentId":%s,"timestamp":"t","message":%s}' % (eid, parent, msg)
        )
        parent = b'"' + eid + b'"'
    return b"\n".join(lines) + b"\n"


def test_a_raw_control_character_in_an_id_is_reported_at_load(tmp_path):
    """Not JSON (a raw control byte in a string): parsed whole at load and reported, never typed from a cut
    of its message (which is valid JSON on its own) as if the line were sound."""
    path = tmp_path / "s.jsonl"
    # an answer first (so nothing reads the later lines at load), then the damaged question and its answer
    data = _chain([b"a", b"b\x01", b"c"], (b"assistant", b"user"))
    data = data.replace(b'"parentId":"b\x01"', b'"parentId":"b\\u0001"')
    path.write_bytes(data)
    mgr = SessionManager.open(path)
    assert len(mgr.warnings) == 1 and mgr.warnings[0].startswith(f"{path}:3: skipped malformed line")
    texts = [m.content[0].text for m in mgr.build_session_context().messages]
    assert "m1" not in texts and texts[-1] == "m2"


def test_invalid_utf8_in_an_id_loads(tmp_path):
    """An id that is not UTF-8 does not stop the load (it was a UnicodeDecodeError for the whole file)."""
    path = tmp_path / "s.jsonl"
    data = _chain([b"a", b"b\xff", b"c"])
    path.write_bytes(data)
    mgr = SessionManager.open(path, tmp_path)
    assert [m.content[0].text for m in mgr.build_session_context().messages] == ["m0", "m1", "m2"]
    lines = data.splitlines(keepends=True)
    assert [r.line() for r in mgr.raw_entries()] == lines[1:]  # written back as they were
