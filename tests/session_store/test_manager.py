"""Lazy persistence, leaf moves, fork/clone, in-memory, listing with cache, second-instance warning."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.store import (
    SessionManager,
    agent_dir,
    default_session_dir,
    encode_cwd,
    list_all_sessions,
    list_sessions,
    uuid7,
)
from pi_app.session.store.listing import CACHE_FILE_NAME, ListingCache
from tests.waits import wait_until_sync

from .helpers import copy_fixture, pi_check


def _assistant(text: str = "ok") -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], api="x", provider="prov", model="mod")


def test_paths_and_ids(tmp_path, monkeypatch):
    assert encode_cwd("/home/u/my proj") == "--home-u-my proj--"
    assert encode_cwd("C:\\Users\\me") == "--C--Users-me--"
    assert agent_dir() == Path(os.environ["PI_CODING_AGENT_DIR"])
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert agent_dir() == Path.home() / ".pi" / "agent"
    u = uuid7(1762766102114)
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", u)
    assert int(u.replace("-", "")[:12], 16) == 1762766102114
    assert uuid7(1) < uuid7(2)


def test_lazy_file_creation(tmp_path):
    mgr = SessionManager.create("/w/proj")
    assert Path(mgr.session_file).parent == default_session_dir("/w/proj")
    assert Path(mgr.session_file).name.endswith(f"_{mgr.session_id}.jsonl")
    mgr.append_model_change("prov", "mod")
    mgr.append_thinking_level_change("off")
    mgr.append_message(UserMessage(content=[TextContent(text="q")]))
    assert not os.path.exists(mgr.session_file)  # nothing before the first assistant message
    mgr.append_message(_assistant())
    assert len(pi_check(Path(mgr.session_file))) == 4
    mgr.append_message(UserMessage(content="next"))
    lines = Path(mgr.session_file).read_text().splitlines()
    assert len(lines) == 6 and json.loads(lines[-1])["message"]["content"] == "next"


def test_leaf_moves_and_branch_summary(tmp_path):
    mgr = SessionManager.create("/w", tmp_path)
    u1 = mgr.append_message(UserMessage(content="one"))
    a1 = mgr.append_message(_assistant("A1"))
    mgr.append_message(UserMessage(content="two"))
    a2 = mgr.append_message(_assistant("A2"))
    bs = mgr.branch_with_summary(a1, "tried two")
    assert mgr.get_raw_entry(bs)["parentId"] == a1 and mgr.get_raw_entry(bs)["fromId"] == a1
    assert mgr.common_ancestor(a2, bs) == a1
    mgr.reset_leaf()
    root2 = mgr.append_message(UserMessage(content="fresh start"))
    assert mgr.get_raw_entry(root2)["parentId"] is None
    assert [n.entry["id"] for n in mgr.get_tree()] == [u1, root2]
    root_summary = mgr.branch_with_summary(None, "from root")
    assert mgr.get_raw_entry(root_summary)["fromId"] == "root"
    assert [e["id"] for e in mgr.get_branch(a2)][0] == u1
    reopened = SessionManager.open(mgr.session_file)
    assert reopened.get_leaf_id() == root_summary
    texts = [m["content"] for m in reopened.build_session_context(a2).raw_messages if m["role"] == "user"]
    assert texts == ["one", "two"]


def test_clone_and_fork(tmp_path):
    src = copy_fixture("branched.jsonl", tmp_path / "src")
    mgr = SessionManager.open(src, tmp_path / "out")
    new_path = mgr.create_branched_session("b0b00006")
    assert new_path and Path(new_path).parent == tmp_path / "out"
    entries = pi_check(Path(new_path))
    header = json.loads(Path(new_path).read_text().splitlines()[0])
    assert header["parentSession"] == str(src) and header["id"] == mgr.session_id
    ids = [e["id"] for e in entries]
    assert ids[:-1] == ["a11ce001", "a11ce002", "b0b00001", "b0b00002", "5b5b5b01", "b0b00005", "b0b00006"]
    label = entries[-1]
    assert label["type"] == "label" and label["targetId"] == "b0b00001" and label["parentId"] == "b0b00006"
    assert "b0b00004" not in ids and mgr.get_label("b0b00001") == "start"
    # fork at a user message's parent with no assistant yet: file deferred until the next assistant reply
    mgr2 = SessionManager.open(src, tmp_path / "out2")
    deferred = mgr2.create_branched_session("b0b00001")
    assert not os.path.exists(deferred)
    mgr2.append_message(_assistant())
    assert [e["id"] for e in pi_check(Path(deferred))][:3] == ["a11ce001", "a11ce002", "b0b00001"]
    # fork_from: whole history into another cwd's dir
    forked = SessionManager.fork_from(src, "/other/cwd")
    assert Path(forked.session_file).parent.name == "--other-cwd--"
    assert forked.raw_header()["cwd"] == "/other/cwd" and forked.raw_header()["parentSession"] == str(src)
    assert len(pi_check(Path(forked.session_file))) == 10


def test_in_memory_never_writes(tmp_path):
    mgr = SessionManager.in_memory("/w")
    mgr.append_message(UserMessage(content="q"))
    mgr.append_message(_assistant())
    assert mgr.session_file is None and not mgr.is_persisted()
    assert mgr.create_branched_session(mgr.get_leaf_id()) is None
    assert len(mgr.raw_entries()) == 2 and mgr.raw_header().get("parentSession") is None
    assert not (agent_dir() / "sessions").exists()


def _make_session(cwd: str, text: str, name: str | None = None) -> SessionManager:
    mgr = SessionManager.create(cwd)
    mgr.append_message(UserMessage(content=[TextContent(text=text)]))
    mgr.append_message(_assistant("reply to " + text))
    if name:
        mgr.append_session_info(name)
    return mgr


def test_listing_and_cache(tmp_path):
    a = _make_session("/p/a", "first in a")
    a_done_ms = int(time.time() * 1000)
    wait_until_sync(lambda: int(time.time() * 1000) > a_done_ms, "the ms clock to pass a's last message")
    b = _make_session("/p/a", "second in a", name="Named")
    _make_session("/p/b", "only in b")
    (Path(a.session_file).parent / "junk.jsonl").write_text("not a session\n")
    infos = list_sessions("/p/a")
    assert [i.path for i in infos] == [b.session_file, a.session_file]  # newest activity first
    assert infos[0].name == "Named" and infos[1].first_message == "first in a" and infos[1].message_count == 2
    assert infos[1].all_messages_text == "first in a reply to first in a" and infos[1].cwd == "/p/a"
    assert len(list_all_sessions()) == 3
    cache_file = agent_dir() / CACHE_FILE_NAME
    assert cache_file.exists()
    # warm: served from the cache; a changed file (size/mtime) is re-read
    cache = ListingCache()
    assert len(cache.files) == 4
    a.append_message(UserMessage(content="later"))
    infos = list_sessions("/p/a")
    assert infos[0].path == a.session_file and infos[0].message_count == 3
    # deleted files drop out of the cache
    os.unlink(b.session_file)
    assert [i.path for i in list_all_sessions()][-1] != b.session_file
    assert b.session_file not in ListingCache().files


def test_continue_recent(tmp_path):
    d = tmp_path / "sessions"
    assert SessionManager.continue_recent("/w", d).raw_entries() == []
    old = SessionManager.create("/w", d)
    old.append_message(UserMessage(content="q"))
    old.append_message(_assistant())
    (d / "zzz-broken.jsonl").write_text("garbage\n")
    os.utime(old.session_file, (1, 1))
    cont = SessionManager.continue_recent("/w", d)
    assert cont.session_file == old.session_file and len(cont.raw_entries()) == 2


def test_second_instance_warning(tmp_path):
    mgr = SessionManager.open(copy_fixture("linear.jsonl", tmp_path))
    assert mgr.claim_instance() is None
    code = (
        "import sys; from pi_app.session.store import SessionManager;"
        "m = SessionManager.open(sys.argv[1]); print(m.claim_instance() or 'none')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, mgr.session_file], capture_output=True, text=True, check=True
    )
    assert f"already open in another pi instance (pid {os.getpid()})" in out.stdout
    mgr.release_instance()
    assert not Path(mgr.session_file + ".lock").exists()
    # a stale marker (dead pid) is ignored
    Path(mgr.session_file + ".lock").write_text(json.dumps({"pid": 999999, "host": os.uname().nodename}))
    assert SessionManager.open(mgr.session_file).claim_instance() is None


def test_two_processes_appending_never_interleave(tmp_path):
    mgr = SessionManager.open(copy_fixture("linear.jsonl", tmp_path))
    code = (
        "import sys; from pi_app.session.store import SessionManager;"
        "from pi_app.ai.types import UserMessage;"
        "m = SessionManager.open(sys.argv[1])\n"
        "for i in range(200): m.append_message(UserMessage(content=sys.argv[2] * 5000))"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, mgr.session_file, c]) for c in "xy"]
    assert all(p.wait() == 0 for p in procs)
    lines = Path(mgr.session_file).read_text().splitlines()
    assert len(lines) == 10 + 400
    assert all(json.loads(line) for line in lines)
