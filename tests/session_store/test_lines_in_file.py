"""Long entry lines stay in the session file until used (issue 14: loading proportional to what is used).

Opening a session holds only the tree fields and short lines; a long line is read back from the file (a
descriptor held open) when its entry is used, written back byte for byte, and a file changed under us
reads as loaded (rename) or is reported as damaged (shrunk), never a crash.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

from pi_app.session.store import SessionManager
from pi_app.session.store.record import INLINE_LINE_BYTES
from tests.perf.session_gen import linear_session


def _big(path: Path, n: int = 600) -> list[bytes]:
    linear_session(path, n, pad_bytes=4 * INLINE_LINE_BYTES)
    return path.read_bytes().splitlines(keepends=True)


def test_opening_holds_a_fraction_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = _big(path, 1_500)
    size = path.stat().st_size
    long_bytes = sum(len(line) for line in lines if len(line) > INLINE_LINE_BYTES)
    assert long_bytes > size * 0.65
    tracemalloc.start()
    try:
        mgr = SessionManager.open(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(mgr.raw_entries()) == 1_500
    # Holding the lines would cost more than the file; the 4 KiB tool results stayed in it.
    assert peak < size / 2, (peak, size)


def test_long_lines_read_back_and_write_back_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = _big(path)
    mgr = SessionManager.open(path)
    records = mgr.raw_entries()
    long_ones = [r for r in records if len(r.line()) > INLINE_LINE_BYTES]
    assert len(long_ones) > 100
    by_id = {line.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode(): line for line in lines[1:]}
    assert all(r.line() == by_id[r.id] for r in records)
    msg = next(r for r in long_ones if len(r.line()) > 4 * INLINE_LINE_BYTES)  # a padded tool result
    assert msg.unparsed_line is not None and msg.unparsed_line.encode() + b"\n" == by_id[msg.id]
    assert msg["message"]["role"] == "toolResult"  # parsed from the file on first use

    leaf = records[len(records) // 2].id
    new_file = mgr.create_branched_session(leaf)
    assert new_file is not None
    written = Path(new_file).read_bytes().splitlines(keepends=True)[1:]
    assert written == [by_id[r.id] for r in mgr.raw_entries()]


def test_a_file_replaced_or_cut_under_us(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = _big(path)
    mgr = SessionManager.open(path)
    records = mgr.raw_entries()
    last_long = next(r for r in reversed(records) if len(r.line()) > INLINE_LINE_BYTES)
    expected = last_long.line()

    # Another program rewrites the file by rename: the loaded session still reads what it loaded.
    tmp = tmp_path / "other.jsonl"
    tmp.write_bytes(lines[0])
    os.replace(tmp, path)
    assert last_long.line() == expected

    # Cut in place under a fresh session: the lost lines become warnings, not crashes.
    path.write_bytes(b"".join(lines))
    mgr = SessionManager.open(path)
    with open(path, "r+b") as fh:
        fh.truncate(len(lines[0]) + 10)
    ctx = mgr.build_session_context()
    assert len(ctx.messages) < len(lines) // 2  # the lines held in the file are lost, without a crash
    assert any("skipped" in w for w in mgr.warnings)


def _spans(data: bytes) -> list[tuple[int, int]]:
    spans, at = [], 0
    for line in data.splitlines(keepends=True):
        spans.append((at, len(line.rstrip(b"\n"))))
        at += len(line)
    return spans


def test_lines_are_read_through_a_window_in_any_order(tmp_path: Path, monkeypatch) -> None:
    """A request reads a resumed history's lines in file order: one system call per window, not per
    line. Reads backwards, at random, past the end of what was read, and of huge lines stay exact."""
    import random

    from pi_app.session.store import record

    path = tmp_path / "big.jsonl"
    _big(path, 3_000)
    data = path.read_bytes()
    spans = _spans(data)
    src = record.LineSource(str(path))
    calls: list[int] = []
    real = record.LineSource._pread
    monkeypatch.setattr(record.LineSource, "_pread", lambda self, o, n: calls.append(n) or real(self, o, n))

    assert [src.read(o, n) for o, n in spans] == [data[o : o + n] for o, n in spans]
    assert 0 < len(calls) <= len(data) // record._WINDOW_BYTES + 2, len(calls)

    calls.clear()
    backwards = [src.read(o, n) for o, n in reversed(spans)]
    assert backwards == [data[o : o + n] for o, n in reversed(spans)]
    assert len(calls) <= len(data) // record._WINDOW_BYTES + 2, len(calls)

    order = list(spans)
    random.Random(3).shuffle(order)
    assert [src.read(o, n) for o, n in order] == [data[o : o + n] for o, n in order]

    # Lines appended by another writer after the window was read: read whole, not cut at the window.
    tail = b'{"type":"custom","id":"x","parentId":null,"timestamp":"t","data":"' + b"y" * 300 + b'"}\n'
    src.read(*spans[-1])
    with open(path, "ab") as fh:
        fh.write(tail)
    assert src.read(len(data), len(tail) - 1) == tail[:-1]

    # A line bigger than the window is read on its own and not kept.
    huge = b"z" * (3 * record._WINDOW_BYTES)
    with open(path, "ab") as fh:
        fh.write(huge + b"\n")
    before = src._window
    assert src.read(len(data) + len(tail), len(huge)) == huge
    assert src._window is before
