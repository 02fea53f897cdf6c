"""Collection is paused during startup and resumes once the first reply arrives (pi_app.modes.startup_gc)."""

from __future__ import annotations

import gc
from types import SimpleNamespace
from typing import Any

import pytest

from pi_app.modes import startup_gc
from pi_app.modes.print_mode import run_print_mode


@pytest.fixture
def restore_gc():
    # The suite freezes what collection imported (tests/conftest.py), and loading a session freezes the heap:
    # start from no frozen objects, so a test sees only the freeze the code under test makes.
    gc.unfreeze()
    yield
    startup_gc.resume()
    gc.unfreeze()
    gc.enable()


def test_pause_resume_freezes_and_reenables(restore_gc):
    startup_gc.pause()
    assert not gc.isenabled() and startup_gc.is_paused()
    startup_gc.pause()  # idempotent
    startup_gc.resume()
    assert gc.isenabled() and not startup_gc.is_paused()
    assert gc.get_freeze_count() > 0


def test_resume_without_pause_leaves_a_disabled_collector_alone(restore_gc):
    gc.disable()  # someone else's choice, not ours to undo
    startup_gc.resume()
    assert not gc.isenabled()


class _FakeSession:
    """Emits a user message, then an assistant reply; records whether collection ran at each step."""

    def __init__(self) -> None:
        self.listeners: list[Any] = []
        self.enabled_at: dict[str, bool] = {}
        self.messages: list[Any] = []
        self.transcript = self.messages

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    async def _emit(self, kind: str, role: str) -> None:
        for listener in list(self.listeners):
            await listener(SimpleNamespace(type=kind, message=SimpleNamespace(role=role)))

    async def prompt(self, text, images=None):
        await self._emit("message_end", "user")
        self.enabled_at["after user message"] = gc.isenabled()
        await self._emit("message_start", "assistant")
        self.enabled_at["after assistant start"] = gc.isenabled()
        await self._emit("message_update", "assistant")
        self.enabled_at["after first update"] = gc.isenabled()
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})


async def test_print_mode_resumes_collection_when_the_reply_starts(restore_gc, capsys):
    session = _FakeSession()
    startup_gc.pause()
    assert await run_print_mode(session, initial_message="hi") == 0
    assert session.enabled_at == {
        "after user message": False,
        "after assistant start": False,
        "after first update": True,
    }
    assert session.listeners == []  # its listener is gone after the run
    assert capsys.readouterr().out == "ok\n"


async def test_print_mode_resumes_collection_even_when_no_reply_came(restore_gc, capsys):
    session = _FakeSession()

    async def failing_prompt(text, images=None):
        raise RuntimeError("no key")

    session.prompt = failing_prompt
    startup_gc.pause()
    assert await run_print_mode(session, initial_message="hi") == 1
    assert gc.isenabled() and not startup_gc.is_paused()
