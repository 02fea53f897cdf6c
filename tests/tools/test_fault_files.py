"""Fault injection for the file tools: FIFOs, device links, sockets, sparse and huge files, read-only files,
hard links, owners, symlink loops, invalid UTF-8. Every special file is created in a temp dir; the only real
device used is /dev/zero, and only through a symlink that is read, never written."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import socket
import stat
import tempfile
import threading
import time
import tracemalloc

import pytest

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortController, AbortError
from pi_app.tools import ToolOptions, fsutil, read
from pi_app.tools.edit import EditTool
from pi_app.tools.grep import GrepTool
from pi_app.tools.read import ReadTool
from pi_app.tools.search import walk_files
from pi_app.tools.textscan import TextScanner
from pi_app.tools.truncate import truncate_head
from pi_app.tools.write import WriteTool
from tests.waits import HANG_GUARD_S, wait_until

NOBODY = 65534


def text_of(result):
    return result.content[0].text


def snapshot(path):
    """Bytes, inode, links, mode and owner: what a refused or restored write must leave alone."""
    st = os.lstat(path)
    data = open(path, "rb").read() if stat.S_ISREG(st.st_mode) else None
    return data, st.st_ino, st.st_nlink, st.st_mode, st.st_uid, st.st_gid


@pytest.fixture
def specials(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")  # read only: never a write target
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    loop_a = tmp_path / "loop_a"
    loop_a.symlink_to("loop_b")
    (tmp_path / "loop_b").symlink_to("loop_a")
    yield tmp_path
    sock.close()


# ---------------------------------------------------------------- read
@pytest.mark.parametrize("name", ["fifo", "zero", "sock"])
async def test_read_refuses_non_regular_files_at_once(specials, name):
    with pytest.raises(ToolError) as e:
        await asyncio.wait_for(ReadTool(str(specials)).execute("1", {"path": name}), HANG_GUARD_S)
    assert str(e.value) == f"Not a regular file: {specials / name}"


async def test_read_symlink_loop_is_an_error_not_a_hang(specials):
    with pytest.raises(ToolError) as e:
        await asyncio.wait_for(ReadTool(str(specials)).execute("1", {"path": "loop_a"}), HANG_GUARD_S)
    assert str(e.value) == f"ELOOP: too many levels of symbolic links, access '{specials / 'loop_a'}'"


async def test_read_directory_keeps_node_text(tmp_path):
    with pytest.raises(ToolError, match=r"^EISDIR: illegal operation on a directory, read$"):
        await ReadTool(str(tmp_path)).execute("1", {"path": "."})


async def test_read_fifo_swapped_in_after_stat_is_still_refused(tmp_path, monkeypatch):
    """The fstat of the opened fd decides: a regular file replaced by a FIFO between stat and open."""
    target = tmp_path / "f"
    target.write_text("x")
    real_stat = os.stat

    def stat_then_swap(path, *a, **kw):
        st = real_stat(path, *a, **kw)
        if str(path) == str(target) and stat.S_ISREG(st.st_mode):
            os.unlink(target)
            os.mkfifo(target)
        return st

    monkeypatch.setattr(read.os, "stat", stat_then_swap)
    with pytest.raises(ToolError, match="^Not a regular file: "):
        await asyncio.wait_for(ReadTool(str(tmp_path)).execute("1", {"path": "f"}), HANG_GUARD_S)


async def test_read_sparse_2gb_file_is_bounded_in_time_and_memory(tmp_path):
    f = tmp_path / "sparse"
    with open(f, "wb") as fh:
        fh.write(b"head\n")
        fh.truncate(2 * 1024**3)
    tracemalloc.start()
    try:
        r = await ReadTool(str(tmp_path)).execute("1", {"path": "sparse"})
        r2 = await ReadTool(str(tmp_path)).execute("1", {"path": "sparse", "offset": 1, "limit": 1})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text_of(r) == "head\n\n[Showing lines 1-1 of 2 (50.0KB limit). Use offset=2 to continue.]"
    # line 1 is "head"; line 2 is the 2 GB hole, too long to show
    assert text_of(r2) == "head\n\n[1 more lines in file. Use offset=2 to continue.]"
    assert r.details["truncation"]["totalBytes"] == 2 * 1024**3
    assert peak < 16 * 1024 * 1024, peak


async def test_read_sparse_hole_line_gives_pi_notice(tmp_path):
    f = tmp_path / "sparse"
    with open(f, "wb") as fh:
        fh.write(b"head\n")
        fh.truncate(2 * 1024**3)
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "sparse", "offset": 2})
    assert (
        text_of(r)
        == "[Line 2 is 2048.0MB, exceeds 50.0KB limit. Use bash: sed -n '2p' sparse | head -c 51200]"
    )


async def test_read_large_file_keeps_only_the_limits_in_memory(tmp_path):
    f = tmp_path / "big.txt"
    line = b"0123456789" * 9 + b"\xff\xc3\n"  # invalid UTF-8 too: 97 bytes once decoded, 527 fit
    with open(f, "wb") as fh:
        for _ in range(64):
            fh.write(line * 5000)  # 32 MB, 320,000 lines
    tracemalloc.start()
    try:
        r = await ReadTool(str(tmp_path)).execute("1", {"path": "big.txt", "offset": 1000})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    out = text_of(r)
    assert out.endswith("[Showing lines 1000-1526 of 320001 (50.0KB limit). Use offset=1527 to continue.]")
    assert out.startswith("0123456789" * 9 + "\ufffd\ufffd\n")
    assert peak < 8 * 1024 * 1024, peak


async def test_read_abort_returns_while_the_read_is_stuck(tmp_path, monkeypatch):
    """A read blocked in the kernel (think hung NFS) must not hold up abort or the event loop."""
    (tmp_path / "f.txt").write_text("x" * 10)
    entered, release = threading.Event(), threading.Event()
    real_pread = os.pread

    def stuck_pread(fd, n, offset):
        entered.set()
        release.wait(2 * HANG_GUARD_S)  # outlasts the guard: only the abort can end the wait
        return real_pread(fd, n, offset)

    monkeypatch.setattr(read.os, "pread", stuck_pread)
    ctl = AbortController()
    task = asyncio.ensure_future(ReadTool(str(tmp_path)).execute("1", {"path": "f.txt"}, ctl.signal))
    try:
        ticks = 0

        def entered_while_ticking() -> bool:
            nonlocal ticks
            ticks += 1  # the loop keeps running while the worker is blocked
            return entered.is_set()

        await wait_until(entered_while_ticking, "the read to enter pread")
        assert ticks >= 1
        ctl.abort()
        with pytest.raises(AbortError, match="^Operation aborted$"):
            await asyncio.wait_for(task, HANG_GUARD_S)
    finally:
        release.set()


def _oracle(data: bytes, start: int, count: int | None, max_lines: int, max_bytes: int):
    """The pre-streaming algorithm: decode everything, split, slice, truncate_head."""
    lines = data.decode("utf-8", "replace").split("\n")
    if start >= len(lines):
        return len(lines), None, None
    end = len(lines) if count is None else min(start + max(count, 0), len(lines))
    return (
        len(lines),
        truncate_head("\n".join(lines[start:end]), max_lines, max_bytes),
        len(lines[start].encode()),
    )


def test_streaming_scan_matches_whole_file_truncation():
    rng = random.Random(14)
    pieces = [
        b"a",
        b"\n",
        b"\xff",
        b"\xc3\xa9",
        b"\xe2\x82",
        b"\xac",
        b"\r",
        b"xyz",
        b"\xf0\x9f\x98\x80",
        b"\0",
    ]
    for _ in range(6000):
        parts = [rng.choice(pieces) for _ in range(rng.randint(0, 40))]
        # some runs of NUL are fed as holes (feed_zeros), as read does for sparse files
        holes = {i: rng.randint(1, 40) for i in range(len(parts)) if rng.random() < 0.1}
        data = b"".join(b"\0" * holes[i] if i in holes else p for i, p in enumerate(parts))
        start, count = rng.randint(0, 6), rng.choice([None, 0, 1, 2, 5])
        max_lines, max_bytes = rng.randint(1, 5), rng.randint(1, 25)
        total, expected, first = _oracle(data, start, count, max_lines, max_bytes)
        scanner = TextScanner(start, count, max_lines, max_bytes)
        for i, p in enumerate(parts):
            if i in holes:
                scanner.feed_zeros(holes[i])
            else:
                for j in range(0, len(p), 2):
                    scanner.feed(p[j : j + 2])
        scan = scanner.finish()
        assert scan.total_lines == total, data
        if expected is not None:
            assert scan.truncation(max_lines, max_bytes) == expected, (data, start, count)
            if expected.firstLineExceedsLimit:
                assert scan.first_line_bytes == first


async def test_read_sparse_file_with_data_between_holes_matches_full_read(tmp_path):
    f = tmp_path / "holes"
    with open(f, "wb") as fh:
        for k in range(4):
            fh.seek(k * 3 * 1024 * 1024)
            fh.write(b"line %d\n\xffend\n" % k)
        fh.truncate(14 * 1024 * 1024)
    data = f.read_bytes()
    tool = ReadTool(str(tmp_path))
    for offset in (None, 2, 3, 4, 9):
        params = {"path": "holes"} if offset is None else {"path": "holes", "offset": offset}
        r = await tool.execute("1", params)
        total, expected, first = _oracle(data, (offset or 1) - 1, None, 2000, 50 * 1024)
        if expected.firstLineExceedsLimit:
            assert text_of(r).startswith(f"[Line {offset or 1} is ")
        else:
            assert text_of(r).startswith(expected.content)
        assert r.details is None or r.details["truncation"] == expected.to_json()


# ---------------------------------------------------------------- edit
@pytest.mark.parametrize("name", ["fifo", "zero", "sock"])
async def test_edit_refuses_non_regular_files(specials, name):
    before = os.lstat(specials / name)
    with pytest.raises(ToolError) as e:
        await asyncio.wait_for(
            EditTool(str(specials)).execute("1", {"path": name, "edits": [{"oldText": "a", "newText": "b"}]}),
            5,
        )
    assert str(e.value) == f"Not a regular file: {specials / name}"
    after = os.lstat(specials / name)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


async def test_edit_keeps_hard_links_and_invalid_utf8(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"keep \xff\xfe bytes\nold\n")
    os.link(a, b)
    a.chmod(0o640)
    ino = a.stat().st_ino
    await EditTool(str(tmp_path)).execute(
        "1", {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]}
    )
    assert b.read_bytes() == b"keep \xff\xfe bytes\nnew\n"
    assert a.stat().st_ino == ino and a.stat().st_nlink == 2 and stat.S_IMODE(a.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


# ---------------------------------------------------------------- write
@pytest.mark.parametrize("name", ["fifo", "sock"])
async def test_write_refuses_non_regular_targets(specials, name):
    before = snapshot(specials / name)
    with pytest.raises(ToolError) as e:
        await asyncio.wait_for(
            WriteTool(str(specials)).execute("1", {"path": name, "content": "x"}), HANG_GUARD_S
        )
    assert str(e.value) == f"Not a regular file: {specials / name}"
    assert snapshot(specials / name) == before


async def test_write_to_symlink_loop_is_an_error(specials):
    with pytest.raises(ToolError, match=r"^ELOOP: too many levels of symbolic links, open "):
        await WriteTool(str(specials)).execute("1", {"path": "loop_a", "content": "x"})
    assert os.path.islink(specials / "loop_a") and os.path.islink(specials / "loop_b")


async def test_write_keeps_hard_links_mode_and_inode(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old content that is longer")
    os.link(a, b)
    a.chmod(0o751)
    ino = a.stat().st_ino
    await WriteTool(str(tmp_path)).execute("1", {"path": "a.txt", "content": "new"})
    assert b.read_text() == "new" and a.read_text() == "new"
    st = a.stat()
    assert (st.st_ino, st.st_nlink, stat.S_IMODE(st.st_mode)) == (ino, 2, 0o751)
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]  # no backup left behind


async def test_write_in_place_failure_restores_original(tmp_path, monkeypatch):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    original = b"original \xff content\n" * 1000
    a.write_bytes(original)
    os.link(a, b)
    before = snapshot(a)
    real = fsutil._overwrite
    calls = []

    def failing_overwrite(fd, data):
        calls.append(1)
        if len(calls) == 1:
            os.pwrite(fd, b"HALF", 0)  # damage, then fail like a full disk
            raise OSError(28, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(fsutil, "_overwrite", failing_overwrite)
    with pytest.raises(ToolError, match=r"^ENOSPC: no space left on device, open "):
        await WriteTool(str(tmp_path)).execute("1", {"path": "a.txt", "content": "replacement"})
    assert snapshot(a) == before and b.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file another owner")
async def test_write_and_edit_keep_another_users_owner(tmp_path):
    f = tmp_path / "theirs.txt"
    f.write_text("alpha\n")
    os.chown(f, NOBODY, NOBODY)
    f.chmod(0o644)
    await WriteTool(str(tmp_path)).execute("1", {"path": "theirs.txt", "content": "beta\n"})
    st = f.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (NOBODY, NOBODY, 0o644)
    await EditTool(str(tmp_path)).execute(
        "1", {"path": "theirs.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}
    )
    st = f.stat()
    assert f.read_text() == "gamma\n" and (st.st_uid, st.st_gid) == (NOBODY, NOBODY)


# ---------------------------------------------------------------- as a non-root user
@contextlib.contextmanager
def shared_dir():
    """A temp dir another user can enter (pytest's tmp_path is private to root)."""
    path = tempfile.mkdtemp(prefix="pi-fault-")
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def as_nobody(coro_factory, timeout: float = 20) -> str:
    """Run a coroutine in a forked child that dropped root for ``nobody``; its outcome as text."""
    # the child cannot read root's interpreter directory: load lazily imported codecs and modules now
    "x".encode("utf-16-le")
    import concurrent.futures.thread  # noqa: F401  (asyncio's default executor: the edit tool's thread)

    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: no pytest machinery from here on
        status = 0
        try:
            os.close(rfd)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                result = asyncio.run(coro_factory())
                out = "OK: " + text_of(result)
            except Exception as exc:
                out = f"{type(exc).__name__}: {exc}"
            os.write(wfd, out.encode())
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(wfd)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        chunk = os.read(rfd, 65536) if done else b""
        if done:
            while chunk:
                chunks.append(chunk)
                chunk = os.read(rfd, 65536)
            break
        time.sleep(0.02)  # bounded poll of the child's exit
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("child did not finish")
    os.close(rfd)
    return b"".join(chunks).decode()


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="drops privileges from root")


@needs_root
def test_write_and_edit_refuse_read_only_file_as_non_root():
    with shared_dir() as d:
        f = os.path.join(d, "ro.txt")
        with open(f, "w") as fh:
            fh.write("read only\n")
        os.chown(f, NOBODY, NOBODY)
        os.chmod(f, 0o444)
        os.chmod(d, 0o777)  # the directory is writable: only the file's own permission protects it
        before = snapshot(f)
        out = as_nobody(lambda: WriteTool(d).execute("1", {"path": "ro.txt", "content": "clobbered"}))
        assert out == f"ToolError: EACCES: permission denied, open '{f}'"
        out = as_nobody(
            lambda: EditTool(d).execute(
                "1", {"path": "ro.txt", "edits": [{"oldText": "read", "newText": "x"}]}
            )
        )
        assert out == "ToolError: Could not edit file: ro.txt. Error code: EACCES."
        assert snapshot(f) == before and os.listdir(d) == ["ro.txt"]


@needs_root
def test_write_in_read_only_dir_rewrites_writable_file_in_place_as_non_root():
    with shared_dir() as d:
        f = os.path.join(d, "w.txt")
        with open(f, "w") as fh:
            fh.write("old\n")
        os.chown(f, NOBODY, NOBODY)
        os.chmod(f, 0o600)
        os.chmod(d, 0o555)
        out = as_nobody(lambda: WriteTool(d).execute("1", {"path": "w.txt", "content": "new\n"}))
        assert out == "OK: Successfully wrote 4 bytes to w.txt"
        assert open(f).read() == "new\n" and os.listdir(d) == ["w.txt"]
        assert os.stat(f).st_uid == NOBODY


@needs_root
def test_read_unreadable_file_as_non_root():
    with shared_dir() as d:
        f = os.path.join(d, "secret.txt")
        with open(f, "w") as fh:
            fh.write("secret")
        os.chmod(f, 0o600)  # root's
        out = as_nobody(lambda: ReadTool(d).execute("1", {"path": "secret.txt"}))
        assert out == f"ToolError: EACCES: permission denied, access '{f}'"


# ---------------------------------------------------------------- grep / walks
async def test_grep_refuses_special_path_and_skips_fifos_in_a_walk(specials):
    (specials / "a.txt").write_text("needle\n")
    (specials / ".gitignore").unlink(missing_ok=True)
    os.mkfifo(specials / ".ignore")  # an ignore file that is a FIFO must not block the walk
    tool = GrepTool(str(specials), ToolOptions(rg_path=""))
    with pytest.raises(ToolError, match=r"^Not a regular file: "):
        await asyncio.wait_for(tool.execute("1", {"pattern": "x", "path": "fifo"}), HANG_GUARD_S)
    r = await asyncio.wait_for(tool.execute("1", {"pattern": "needle"}), HANG_GUARD_S)
    assert text_of(r) == "a.txt:1: needle"
    files = await asyncio.wait_for(asyncio.to_thread(lambda: sorted(walk_files(str(specials)))), HANG_GUARD_S)
    assert str(specials / "a.txt") in files


@needs_root
def test_write_to_world_writable_file_of_another_user_keeps_its_owner():
    """nobody may write root's 0666 file but not give a fresh file root's owner: written in place."""
    with shared_dir() as d:
        f = os.path.join(d, "shared.txt")
        with open(f, "w") as fh:
            fh.write("old\n")
        os.chmod(f, 0o666)
        os.chmod(d, 0o777)
        ino = os.stat(f).st_ino
        out = as_nobody(lambda: WriteTool(d).execute("1", {"path": "shared.txt", "content": "new\n"}))
        assert out == "OK: Successfully wrote 4 bytes to shared.txt"
        st = os.stat(f)
        assert (st.st_uid, st.st_gid, st.st_ino, stat.S_IMODE(st.st_mode)) == (0, 0, ino, 0o666)
        assert open(f).read() == "new\n" and os.listdir(d) == ["shared.txt"]


async def test_read_refuses_huge_image_without_loading_it(tmp_path):
    f = tmp_path / "huge.png"
    with open(f, "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n")
        fh.truncate(read.MAX_IMAGE_BYTES + 1)
    tracemalloc.start()
    try:
        with pytest.raises(ToolError) as e:
            await ReadTool(str(tmp_path)).execute("1", {"path": "huge.png"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(e.value) == f"Image file too large: {f} (20.0MB, limit 20.0MB)"
    assert peak < 4 * 1024 * 1024


async def test_rpc_answers_and_aborts_while_a_read_is_stuck(tmp_path, faux, monkeypatch):
    """The probe's failure: a read that blocks made RPC stop answering get_state and abort."""
    from pi_app.ai.providers.faux import faux_text, faux_tool
    from tests.modes.rpc_driver import RpcDriver, make_faux_session

    session = await make_faux_session(tmp_path)
    (tmp_path / "proj" / "slow.txt").write_text("never shown")
    entered, release = threading.Event(), threading.Event()
    real_pread = os.pread

    def stuck_pread(fd, n, offset):
        # os.pread is patched for the whole process: only the tool's file blocks (the session's own reads,
        # some on the event loop's thread, must not)
        if os.readlink(f"/proc/self/fd/{fd}").endswith("slow.txt"):
            entered.set()
            release.wait(2 * HANG_GUARD_S)  # outlasts the guard: only the abort can end the wait
        return real_pread(fd, n, offset)

    monkeypatch.setattr(read.os, "pread", stuck_pread)
    faux.enqueue(faux_tool("read", {"path": "slow.txt"}), faux_text("after abort"))
    rpc = RpcDriver(session)
    try:
        rpc.send({"type": "prompt", "message": "read it"})
        await rpc.wait_for(lambda r: r.get("type") == "tool_execution_start", timeout=HANG_GUARD_S)
        await wait_until(entered.is_set, "the read to enter pread")
        state = await rpc.call({"type": "get_state"}, timeout=HANG_GUARD_S)
        assert state["success"] and state["data"]["isStreaming"] is True
        assert (await rpc.call({"type": "abort"}, timeout=HANG_GUARD_S))["success"]
        end = await rpc.wait_for(lambda r: r.get("type") == "tool_execution_end", timeout=HANG_GUARD_S)
        assert end["isError"] is True
        await rpc.wait_for(lambda r: r.get("type") == "agent_end", timeout=HANG_GUARD_S)
    finally:
        release.set()
