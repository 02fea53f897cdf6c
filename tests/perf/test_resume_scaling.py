"""Resuming a big session and building the request scales linearly and parses only what it uses (issues 14, 15).

Structural, never wall time: Python function calls and allocated bytes per entry of the whole resume path
(open the file, rebuild the context, type the messages, convert them, build and encode an
openai-completions body) at 500 and 5,000 entries; and which records were ever parsed.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.json_body import encode_body
from pi_app.ai.providers.openai_completions_request import build_completions_body, build_completions_params
from pi_app.ai.types import Context, Model, short_lived_models
from pi_app.session.messages import convert_to_llm
from pi_app.session.store import EntryRecord, SessionManager
from tests.perf.session_gen import linear_session

MODEL = Model.model_validate(
    {"id": "loop-model", "api": "openai-completions", "provider": "loop", "baseUrl": "http://127.0.0.1:9/v1"}
)


@pytest.fixture(autouse=True)
def _unfreeze() -> Iterator[None]:
    """Loading a big session freezes the heap it made (gc.freeze); give the test process its GC back."""
    yield
    gc.unfreeze()


def _resume(path: Path) -> tuple[SessionManager, list[Any], bytes]:
    mgr = SessionManager.open(path)
    ctx = mgr.build_session_context()
    llm = convert_to_llm(ctx.messages)
    params = build_completions_params(MODEL, Context(messages=llm), StreamOptions())
    pieces = encode_body(params)
    assert pieces is not None
    return mgr, llm, b"".join(pieces)


def _calls_and_bytes(path: Path) -> tuple[int, int]:
    _resume(path)  # warm: imports, pydantic schemas, caches
    gc.unfreeze()
    calls = 0

    def count(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        _resume(path)
    finally:
        sys.setprofile(None)
    gc.unfreeze()
    tracemalloc.start()
    try:
        _resume(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return calls, peak


@pytest.mark.slow
def test_resume_costs_the_same_per_entry_at_ten_times_the_entries(tmp_path: Path) -> None:
    # Ten times the entries is what makes a per-entry cost that grows with the session visible (a quadratic
    # term is 10x per entry here); the absolute sizes only set the test's run time.
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    n_small, n_big = 500, 5_000
    linear_session(small, n_small)
    linear_session(big, n_big)
    calls_small, bytes_small = _calls_and_bytes(small)
    calls_big, bytes_big = _calls_and_bytes(big)
    per_call = (calls_big / n_big) / (calls_small / n_small)
    per_byte = (bytes_big / n_big) / (bytes_small / n_small)
    # A walk of the whole path per message, a quadratic scan or a re-parse would show up here as a ratio
    # far above 1; a fixed per-resume cost (imports are warm) makes the small case slightly dearer.
    assert per_call < 1.1, (calls_small, calls_big)
    assert per_byte < 1.2, (bytes_small, bytes_big)
    # and the Python-level work per entry stays small (no per-message SDK transform: that was ~40 calls)
    assert calls_big / n_big < 40, calls_big


def test_entries_off_the_active_path_are_never_parsed(tmp_path: Path) -> None:
    path = tmp_path / "branchy.jsonl"
    on_path = linear_session(path, 3_000, branch_every=5)
    mgr, llm, body = _resume(path)
    path_ids = {e.id for e in mgr.get_branch()}
    records = mgr.raw_entries()
    assert len(path_ids) == on_path and len(records) > on_path + 300  # plenty of abandoned branches
    assert len(llm) == on_path - 1  # every message on the path reached the request (not the model_change)
    assert b'"side ' not in body  # nothing from the side branches did

    def parsed(rec: EntryRecord) -> bool:
        return rec.is_parsed

    off_path = [r for r in records if r.id not in path_ids]
    assert not any(parsed(r) for r in off_path)
    # Messages on the path are typed straight from their lines: no parsed dict is kept beside the model.
    on_path_messages = [r for r in records if r.id in path_ids and r.type == "message"]
    assert sum(parsed(r) for r in on_path_messages) <= 2, "only the few read for the model/first assistant"


def _peak(run: Any) -> int:
    gc.unfreeze()
    tracemalloc.start()
    try:
        kept = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return peak


def _one_shot(path: Path) -> bytes:
    """The print path's resume: the history stays untyped; each message is typed while the body encodes it."""
    mgr = SessionManager.open(path)
    llm = convert_to_llm(mgr.build_session_context().history)
    with short_lived_models():
        params = build_completions_body(MODEL, Context.model_construct(messages=llm), StreamOptions())
    pieces = encode_body(params)
    assert pieces is not None
    return b"".join(pieces)


def test_a_one_shot_resume_never_holds_the_typed_transcript(tmp_path: Path) -> None:
    """Issue 15's peak-memory target, structurally: the one-shot path's peak is a fraction of the eager
    path's (which holds every typed message at once), and both send the same body."""
    path = tmp_path / "s.jsonl"
    linear_session(path, 2_000)
    assert _one_shot(path) == _resume(path)[2]  # (also warms imports and schemas for both)
    eager = _peak(lambda: _resume(path))
    lazy = _peak(lambda: _one_shot(path))
    assert lazy < eager * 0.6, (lazy, eager)  # 0.42 at this size (the body itself is in both)
