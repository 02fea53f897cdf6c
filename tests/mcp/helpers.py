"""Sessions with the builtin:mcp extension over real MCP servers (tests/mcp/servers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pi_app.extensions.builtin import builtin_path
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionError, ExtensionRunner
from pi_app.session.agent_session import AgentSession
from tests.agent_session.helpers import make_session

SERVERS = Path(__file__).parent / "servers"
STDIO_SERVER = str(SERVERS / "stdio_server.py")


def agent_dir() -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"])


def stdio(**extra: Any) -> dict[str, Any]:
    """The test stdio server as an mcp.json entry. Forked from this worker's zygote (servers/zygote.py: the
    SDK imported once), unless the test follows the server's own process (``MCP_TEST_PIDFILE``): then it
    is started directly, as a user's server is."""
    if "MCP_TEST_PIDFILE" in (extra.get("env") or {}):
        return {"command": sys.executable, "args": [STDIO_SERVER], "timeout": 30, **extra}
    return {
        "command": sys.executable,
        "args": ["-S", str(SERVERS / "launch.py"), _zygote()],
        "timeout": 30,
        **extra,
    }


_ZYGOTE: tuple[subprocess.Popen[bytes], str] | None = None


def _zygote() -> str:
    """The socket of this process's zygote, started on first use; it ends when this process does (its
    stdin, a pipe from here, closes)."""
    global _ZYGOTE
    if _ZYGOTE is None or _ZYGOTE[0].poll() is not None:
        path = os.path.join(tempfile.mkdtemp(prefix="mcp-zygote-"), "s")
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "zygote.py"), path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # not in the test worker's process group
        )
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n", (
            "the MCP test zygote did not start"
        )
        _ZYGOTE = (proc, path)
    return _ZYGOTE[1]


def write_mcp(path: Path, servers: dict[str, Any], **top: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **top}, indent=2), encoding="utf-8")
    return path


class Notes:
    """ctx.ui for tests: notifications recorded, dialogs cancelled."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []

    def notify(self, message: str, level: str = "info") -> None:
        self.messages.append((level, message))

    def __getattr__(self, name: str) -> Any:
        async def cancel(*args: Any, **kw: Any) -> None:
            return None

        return cancel if name in ("select", "input", "editor", "confirm") else (lambda *a, **k: None)


async def mcp_session(
    tmp_path: Path, *, trusted: bool = True, **kw: Any
) -> tuple[AgentSession, ExtensionRunner, Any, Notes, list[ExtensionError]]:
    """A faux session with builtin:mcp loaded, bound and started (servers connect in the background)."""
    session = await make_session(tmp_path, **kw)
    runner = ExtensionRunner(
        cwd=session.cwd,
        settings=session.settings,
        model_registry=session.model_registry,
        project_trusted=trusted,
    )
    errors: list[ExtensionError] = []
    runner.on_error = errors.append
    path = builtin_path("mcp")
    assert path is not None
    await runner.load([ExtensionSource(path, "user")])
    notes = Notes()
    runner.bind(session, mode="rpc", ui=notes)  # type: ignore[arg-type]
    await runner.start()
    ext = runner.extensions[0].module.EXTENSION  # type: ignore[union-attr]
    return session, runner, ext, notes, errors


def tool_results(session: AgentSession) -> list[Any]:
    return [m for m in session.messages if getattr(m, "role", None) == "toolResult"]


def text_of(message: Any) -> str:
    return "".join(getattr(c, "text", "") for c in message.content)


async def connected(ext: Any, timeout: float = 60.0) -> None:
    """Wait until no server is still connecting (the machine may be slow to start Python servers)."""

    assert ext.manager is not None
    await ext.manager.wait_for(None, timeout)
