"""``pi`` in interactive mode starts two-phase (``run_starting_app``): the app's first frame comes before
the session, and what goes wrong while the session is built still ends with pi's one line and exit 1."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_app.cli import run_mode
from pi_app.cli_args import parse_args
from pi_app.tui.app import PiApp
from tests.modes.harness import make_env

SIZE = (120, 40)


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> list[PiApp]:
    """Run the real app headless; it quits once its session is ready (or ends by itself)."""
    started: list[PiApp] = []
    run = PiApp.run_async

    async def run_async(self: PiApp, **_: Any) -> None:
        started.append(self)

        async def quit_when_ready() -> None:
            await self.wait_until_ready()
            self.exit()

        self.call_later(lambda: self.run_worker(quit_when_ready(), exit_on_error=False))
        await run(self, headless=True, size=SIZE)

    monkeypatch.setattr(PiApp, "run_async", run_async)
    return started


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    env = make_env(tmp_path)
    env.write_models("http://127.0.0.1:9")  # never called: nothing is sent
    for key, value in env.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(env.project)
    return asyncio.run(run_mode(parse_args(list(argv)), True))


def test_unknown_model_ends_with_one_line_after_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], headless: list[PiApp]
) -> None:
    code = _run(tmp_path, monkeypatch, "--model", "nosuch/model")
    assert code == 1
    assert len(headless) == 1 and not headless[0].session_ready  # the app ran, the session never came
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith('Error: Model "nosuch/model" not found')


def test_unknown_session_id_ends_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], headless: list[PiApp]
) -> None:
    assert _run(tmp_path, monkeypatch, "--session", "nosuchid") == 1
    assert capsys.readouterr().err.splitlines()[-1] == "Error: No session found matching 'nosuchid'"


def test_session_is_built_after_the_first_frame_with_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, headless: list[PiApp]
) -> None:
    assert _run(tmp_path, monkeypatch, "--no-session", "--model", "loop/loop-model", "--name", "named") == 0
    app = headless[0]
    assert app.first_frame.model == "loop-model"  # what the footer showed before the session existed
    assert app.session_ready and app.session.model is not None and app.session.model.id == "loop-model"
    assert app.session.session_name == "named"


def test_what_startup_printed_comes_out_after_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], headless: list[PiApp]
) -> None:
    """stderr belongs to the app's screen while it runs: the warnings startup prints before failing (here a
    broken models.json, often why a model is not found) are written once the app has ended, in order."""
    env = make_env(tmp_path)
    env.agent_dir.mkdir(parents=True, exist_ok=True)
    (env.agent_dir / "models.json").write_text("{not json", encoding="utf-8")
    for key, value in env.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(env.project)
    assert asyncio.run(run_mode(parse_args(["--model", "nosuch/model"]), True)) == 1
    lines = capsys.readouterr().err.splitlines()
    assert "models.json" in lines[0] and len(lines) >= 2
    assert lines[-1].startswith('Error: Model "nosuch/model" not found')
