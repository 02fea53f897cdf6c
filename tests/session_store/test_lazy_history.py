"""A resumed history typed on access (issue 15): the TUI draws a long session's tail without typing the whole
history first; the tool-set ledger types only system messages; the rest is typed after the draw, and an
unusable message is still reported with its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_app.agent.history import Deferred, MessageHistory, as_history
from pi_app.ai.providers.faux import faux_model
from pi_app.ai.transcript import recorded_tool_names
from pi_app.session.assembly import create_agent_session
from pi_app.session.store import SessionManager
from pi_app.session.store import context as store_context
from tests.perf.session_gen import linear_session


class Probe(Deferred[str]):
    """A deferred item that counts how often it is typed; ``bad`` ones are unusable."""

    made: list[str] = []

    def __init__(self, name: str, bad: bool = False) -> None:
        super().__init__()
        self.name = name
        self.bad = bad

    @property
    def role(self) -> str:
        return "user"

    def make(self) -> str | None:
        Probe.made.append(self.name)
        return None if self.bad else self.name


@pytest.fixture(autouse=True)
def _reset_probe() -> None:
    Probe.made = []


def _history(n: int, bad: set[int] = frozenset()) -> MessageHistory[str]:  # type: ignore[assignment]
    return MessageHistory(Probe(f"m{i}", i in bad) for i in range(n))


def test_reads_type_only_what_they_cover() -> None:
    h = _history(100)
    assert len(h) == 100 and h.untyped == 100 and Probe.made == []
    assert h[-1] == "m99" and Probe.made == ["m99"]
    assert h[-3:] == ["m97", "m98", "m99"] and h.untyped == 97
    assert next(iter(reversed(h))) == "m99" and h.untyped == 97
    assert h[5] == "m5" and h.untyped == 96
    assert h.type_some(10) is False and h.untyped == 86
    assert Probe.made[-10:] == [f"m{i}" for i in range(11) if i != 5]  # oldest first, m5 already typed
    assert list(h) == [f"m{i}" for i in range(100)] and h.untyped == 0
    assert len(Probe.made) == 100  # each typed once


def test_copies_share_the_typing() -> None:
    h = _history(10)
    twin = as_history(h)
    assert isinstance(twin, MessageHistory) and twin is not h
    assert twin[-2:] == ["m8", "m9"]
    assert h[-1] == "m9" and h.untyped == 9 and twin.untyped == 8
    twin.append("new")
    assert len(twin) == 11 and len(h) == 10
    assert list(h) == [f"m{i}" for i in range(10)] == list(twin)[:10]
    assert sorted(Probe.made) == sorted(f"m{i}" for i in range(10))  # never typed twice
    assert h == [f"m{i}" for i in range(10)] and h != twin


def test_unusable_items_are_dropped_as_they_are_typed() -> None:
    h = _history(6, bad={2, 5})
    assert h[-1] == "m4" and len(h) == 5 and h.dropped == 1  # counted from the end: the one before
    assert h[2] == "m3" and len(h) == 4 and h.dropped == 2  # from the start: the one after
    assert list(h) == ["m0", "m1", "m3", "m4"]
    h = _history(6, bad={1, 4})
    assert h[1:5] == ["m2", "m3", "m5"]  # the slice is taken again once the bad ones are gone
    assert list(reversed(_history(5, bad={0, 3}))) == ["m4", "m2", "m1"]
    h = _history(5, bad={0, 3})
    while not h.type_some(2):
        pass
    assert list(h) == ["m1", "m2", "m4"] and h.dropped == 2


def _session_with_tool_log(path: Path, turns: int) -> None:
    """A session whose system messages declare tools (the tool-set log), then many plain turns."""
    mgr = SessionManager.open(path)
    tool = {"name": "read", "description": "d", "parameters": {"type": "object"}}
    grep = {"name": "grep", "description": "g", "parameters": {"type": "object"}}
    mgr.append_message({"role": "system", "content": "prompt", "toolsAdded": [tool, grep], "timestamp": 1})
    for i in range(turns):
        mgr.append_message({"role": "user", "content": f"q{i}", "timestamp": 2})
        if i == turns // 2:
            mgr.append_message(
                {"role": "system", "content": "", "toolsRemoved": [{"name": "grep"}], "timestamp": 3}
            )
        mgr.append_message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"a{i}"}],
                "provider": "faux",
                "model": "faux-1",
                "api": "faux",
                "timestamp": 4,
            }
        )


def _count_typing(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    typed: list[Any] = []
    real = store_context._typed

    def counting(entry: Any, built: Any, warnings: Any) -> Any:
        msg = real(entry, built, warnings)
        typed.append(msg)
        return msg

    monkeypatch.setattr(store_context, "_typed", counting)
    return typed


def test_tool_ledger_types_only_system_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    _session_with_tool_log(path, 300)
    typed = _count_typing(monkeypatch)
    ctx = SessionManager.open(path).build_session_context()
    systems = ctx.system_messages()
    assert [m.role for m in typed] == ["system", "system"] and len(systems) == 2
    assert recorded_tool_names(systems) == ["read"]
    full = SessionManager.open(path).build_session_context().messages
    assert recorded_tool_names(full) == recorded_tool_names(systems)
    assert ctx.history.untyped == 600 and len(ctx.history) == len(ctx.sources) == 602  # systems: typed
    # asked again once the history exists: the same two, and still nothing else typed
    assert ctx.system_messages() == systems and ctx.history.untyped == 600 and len(typed) == 2 + 602
    later = SessionManager.open(path).build_session_context()
    assert later.history.untyped == 600 and later.system_messages() == systems  # the history first
    assert later.history.untyped == 600
    typed.clear()
    assert list(ctx.history) == full and len(typed) == 600  # the two systems were typed once


async def test_lazy_resume_types_the_tail_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TUI-style resume: building the session and what the chat's first draw reads (its tail, the
    footer's context figures) type at most the tail; the rest is typed afterwards, with the same result."""
    path = tmp_path / "s.jsonl"
    linear_session(path, 3_000, provider="faux", model="faux-1", api="faux")
    eager = await create_agent_session(tmp_path, tmp_path / "agent", model=faux_model(), api_key="k",
                                       session=SessionManager.open(path))  # fmt: skip
    typed = _count_typing(monkeypatch)
    lazy = await create_agent_session(tmp_path, tmp_path / "agent", model=faux_model(), api_key="k",
                                      session=SessionManager.open(path), lazy_history=True)  # fmt: skip
    assert typed == [] and lazy.untyped_messages == len(eager.messages) > 2_900
    shown = lazy.display_messages
    tail = shown[len(shown) - 40 :]
    lazy.context_usage()
    assert len(typed) <= 40
    assert tail == eager.messages[-40:]
    steps = 0
    while not lazy.type_history_step(500):
        steps += 1
    assert steps >= 4 and lazy.untyped_messages == 0
    assert lazy.type_history() == ([], False)
    assert lazy.messages == eager.messages and len(typed) == len(eager.messages)


def damage(path: Path, line_no: int) -> str:
    """Make line ``line_no`` an unusable message (``content: 12``); its entry id."""
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[line_no - 1])
    bad["message"]["content"] = 12
    lines[line_no - 1] = json.dumps(bad, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(bad["id"])


async def test_unusable_message_is_reported_when_typed_later(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    linear_session(path, 200, provider="faux", model="faux-1", api="faux")
    bad_id = damage(path, 10)
    eager_mgr = SessionManager.open(path)
    eager = await create_agent_session(tmp_path, tmp_path / "agent", model=faux_model(), api_key="k",
                                       session=eager_mgr)  # fmt: skip
    (expected,) = [w for w in eager.resource_warnings if "unusable" in w]
    assert f"{path.resolve()}:10: skipped unusable message entry {bad_id}" in expected

    lazy = await create_agent_session(tmp_path, tmp_path / "agent", model=faux_model(), api_key="k",
                                      session=SessionManager.open(path), lazy_history=True)  # fmt: skip
    assert not [w for w in lazy.resource_warnings if "unusable" in w]  # not typed yet
    assert len(lazy.display_messages) == len(eager.messages) + 1  # counted as usable until typed
    warnings, dropped = lazy.type_history()
    assert warnings == [expected] and dropped
    assert expected in lazy.resource_warnings
    assert lazy.messages == eager.messages
    assert lazy.type_history() == ([], True)  # reported once


def test_list_operations_keep_the_counts() -> None:
    h = _history(8)
    assert h[0] == "m0" and h.type_some(2) is False  # m0..m2 typed, the rest waits
    del h[1]
    h.insert(0, "first")
    h.append("last")
    del h[-2]  # a deferred one (m7), never typed
    assert h.untyped == 4 and len(h) == 8
    assert h.pop() == "last" and h.untyped == 4
    h.remove("m5")
    assert list(h) == ["first", "m0", "m2", "m3", "m4", "m6"] and h.untyped == 0
    assert "m7" not in Probe.made
    h.clear()
    assert len(h) == 0 and h.untyped == 0 and list(h) == []
