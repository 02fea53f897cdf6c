"""The app's two-phase start (``PiApp.starting``): the first frame before the session exists, keys and
prompts typed meanwhile, a failing starter, and what the first frame's modules import."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.providers.faux import faux_text
from pi_app.modes.startup import StartupError
from pi_app.tui.app import PiApp
from pi_app.tui.first_frame import FirstFrame, StartingChat, model_label, read_first_frame
from pi_app.tui.options import SessionStart, TuiOptions
from tests.tui.conftest import SIZE, FakeClock, make_session
from tests.tui.session_helpers import user_texts, wait_for
from widgets.footer_format import format_footer
from widgets.messages import AssistantMessageView
from widgets.notices import Notice

ROOT = Path(__file__).resolve().parents[2]


def _options(**kwargs: Any) -> TuiOptions:
    return TuiOptions(
        cwd_display="/work/proj",
        home="/home/tester",
        version="0.0.0-test",
        git_branch="main",
        test_mode=True,
        clock=FakeClock(),
        theme="dark",
        **kwargs,
    )


class Gate:
    """A starter that builds the session only once the test opens the gate."""

    def __init__(self, project: Path, options: TuiOptions, **final: Any) -> None:
        self.project = project
        self.options = options
        self.final = final
        self.opened = asyncio.Event()
        self.called = False

    async def __call__(self) -> SessionStart:
        self.called = True
        await self.opened.wait()
        session = await make_session(self.project)
        return SessionStart(session, replace(self.options, **self.final))


def _footer_text(app: PiApp) -> str:
    return "\n".join(line.plain for line in format_footer(app.footer.data, 120))


async def test_first_frame_before_the_session_keys_stay_in_the_editor(project: Path, faux) -> None:
    options = _options()
    gate = Gate(project, options)
    app = PiApp.starting(gate, options, FirstFrame(model="claude-sonnet-4-5"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate.called, "phase 2 to start")
        assert not app.session_ready
        assert app.query(StartingChat) and app.focused is app.editor
        footer = _footer_text(app)
        assert "/work/proj (main)" in footer and "claude-sonnet-4-5" in footer and "%" not in footer
        await pilot.press("h", "e", "y", "space", "y", "o", "u")
        assert app.editor.text == "hey you"
        await pilot.press("ctrl+p", "ctrl+l", "shift+tab")  # session actions wait; nothing breaks
        assert app.editor.text == "hey you" and len(app.screen_stack) == 1
        gate.opened.set()
        await app.wait_until_ready()
        await pilot.pause()
        assert not app.query(StartingChat) and app.chat.is_attached
        assert app.editor.text == "hey you" and app.focused is app.editor
        assert "faux" in _footer_text(app) and "%" in _footer_text(app)  # the session's own figures
        await pilot.press("!")
        assert app.editor.text == "hey you!"


async def test_prompt_submitted_before_ready_is_held_then_sent(project: Path, faux) -> None:
    faux.enqueue(faux_text("first answer"), faux_text("held answer"))
    options = _options()
    gate = Gate(project, options, initial_message="from the command line")
    app = PiApp.starting(gate, options)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate.called, "phase 2 to start")
        await pilot.press(*"typed early")
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.text == "" and faux.requests == []
        assert app.queue_area.follow_up == ["typed early"]  # shown as waiting
        gate.opened.set()
        await app.wait_until_ready()
        await wait_for(pilot, lambda: len(user_texts(app)) == 2, "both prompts")
        await app.wait_until_idle()
        # the command line's message first, then what was typed during the start
        assert user_texts(app) == ["from the command line", "typed early"]
        roles = [m.role for m in app.session.messages if m.role in ("user", "assistant")]
        assert roles == ["user", "assistant", "user", "assistant"] and len(faux.requests) == 2
        assert len(app.query(AssistantMessageView)) == 2
        assert app.queue_area.follow_up == []


async def test_slash_command_typed_before_ready_runs_once_ready(project: Path, faux) -> None:
    options = _options()
    gate = Gate(project, options)
    app = PiApp.starting(gate, options)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate.called, "phase 2 to start")
        app.submit("/name early name")
        gate.opened.set()
        await app.wait_until_ready()
        await wait_for(pilot, lambda: app.session.session_name == "early name", "the held /name to run")
        assert faux.requests == []  # a command, not a prompt


async def test_starter_failure_ends_the_app_and_is_kept(project: Path) -> None:
    async def failing() -> SessionStart:
        raise StartupError('Model "nope" not found')

    app = PiApp.starting(failing, _options())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.is_running, "the app to end")
    assert isinstance(app.startup_failure, StartupError)
    assert str(app.startup_failure) == 'Model "nope" not found'
    assert app.return_code == 1


async def test_warnings_and_ctrl_d_while_starting(project: Path, faux) -> None:
    options = _options()
    gate = Gate(project, options, warnings=["Warning: from prepare"])
    app = PiApp.starting(gate, options)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate.called, "phase 2 to start")
        gate.opened.set()
        await app.wait_until_ready()
        await pilot.pause()
        assert "Warning: from prepare" in [n.text for n in app.query(Notice)]
    app = PiApp.starting(Gate(project, options), options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+d")  # the empty editor's exit works before the session exists
        await wait_for(pilot, lambda: not app.is_running, "the app to end")
    assert app.startup_failure is None


def test_app_needs_exactly_one_of_session_and_starter() -> None:
    with pytest.raises(ValueError):
        PiApp(None)


def test_model_label_and_first_frame_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert model_label("loop/loop-model") == "loop-model"
    assert model_label("anthropic/claude-sonnet-4-5:high") == "claude-sonnet-4-5"
    assert model_label("sonnet") == "sonnet"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    (tmp_path / "settings.json").write_text(
        '{"defaultModel": "gpt-5", "theme": "light", "quietStartup": true}', encoding="utf-8"
    )
    assert read_first_frame(None) == FirstFrame(model="gpt-5", theme="light", quiet=True)
    assert read_first_frame("a/b", verbose=True) == FirstFrame(model="b", theme="light", quiet=False)
    (tmp_path / "settings.json").write_text("{broken", encoding="utf-8")
    assert read_first_frame(None) == FirstFrame()  # the session reports the broken file


def test_first_frame_modules_import_no_session_layers() -> None:
    """What the starting app imports before its first frame: no pydantic, no ai/agent/session/tools."""
    code = (
        "import sys; import pi_app.tui.app, pi_app.cli; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' or "
        "m.startswith(('pi_app.ai', 'pi_app.agent', 'pi_app.session', 'pi_app.tools', 'pi_app.extensions', "
        "'widgets.conversation', 'markdown_it'))); print(bad)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
