"""Writing real extension files into temp dirs and loading them into a faux-provider session."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionError, ExtensionRunner
from pi_app.session.agent_session import AgentSession
from tests.agent_session.helpers import make_session


def write_ext(directory: Path, name: str, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


async def session_with(
    tmp_path: Path, *paths: Path, mode: Any = "print", **kw: Any
) -> tuple[AgentSession, ExtensionRunner, list[ExtensionError]]:
    """A faux session with the given extension files loaded, bound and started."""
    session = await make_session(tmp_path, **kw)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    errors: list[ExtensionError] = []
    runner.on_error = errors.append
    await runner.load([ExtensionSource(str(p), "temporary") for p in paths])
    runner.bind(session, mode=mode)
    await runner.start()
    return session, runner, errors
