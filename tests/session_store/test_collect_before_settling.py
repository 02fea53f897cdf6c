"""A big session load freezes the heap (settle_heap); garbage cycles alive then would be kept for good, so
they are collected first once the heap has been settled before (a closed screen, a replaced chat)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from pi_app.heap_freeze import freeze
from pi_app.session.store import SessionManager
from tests.perf.session_gen import linear_session


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_loading_a_big_session_collects_garbage_cycles_before_freezing(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    linear_session(path, 6_000, cwd=str(tmp_path))
    assert path.stat().st_size >= 1 << 20
    freeze()  # as after the app's startup: the heap has been settled once
    node = _Node()
    gone = weakref.ref(node)
    gc.collect()  # the cycle survives into the oldest generation, where only a full collection finds it
    del node  # now garbage: a cycle the next freeze would keep
    SessionManager.open(str(path))
    assert gone() is None
