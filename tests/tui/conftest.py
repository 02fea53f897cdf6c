"""A real AgentSession on the faux provider in a temp project, and an app factory with fixed display values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.providers.faux import faux_model
from pi_app.tui.app import PiApp
from pi_app.tui.clipboard import MemoryClipboard
from pi_app.tui.options import TuiOptions

SIZE = (120, 40)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    return root


async def make_session(cwd: Path, *, model: Any = "default", **kwargs: Any) -> Any:
    from pi_app.session.assembly import create_agent_session

    if model == "default":
        model = faux_model()
    if model is not None:
        kwargs.setdefault("api_key", "test-key")
    kwargs.setdefault("tools", ["read", "bash", "edit", "write", "ls"])
    return await create_agent_session(cwd, model=model, **kwargs)


class FakeClock:
    """Advances only when told to (double-press windows, bash timings)."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_app(session: Any = None, clipboard: MemoryClipboard | None = None, **kwargs: Any) -> PiApp:
    options = TuiOptions(
        cwd_display="/work/proj",
        home="/home/tester",
        version="0.0.0-test",
        git_branch="",
        test_mode=True,
        clipboard=clipboard or MemoryClipboard(),
        clock=kwargs.pop("clock", None) or FakeClock(),
        theme="dark",
    )
    for key, value in kwargs.items():
        setattr(options, key, value)
    return PiApp(session, options=options)
