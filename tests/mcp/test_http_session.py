"""builtin:mcp over a real streamable-HTTP MCP server on loopback: headers with ${VAR}, a dropped server
reconnected on the next call."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from pi_app.ai.providers.faux import faux_text, faux_tool
from tests.agent_session.helpers import Script

from .helpers import SERVERS, agent_dir, connected, mcp_session, text_of, tool_results, write_mcp


@contextmanager
def http_server(port: int = 0) -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "http_server.py"), str(port)],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), line
        yield int(line.split()[1])
    finally:
        proc.terminate()
        proc.wait(10)


async def test_http_server_tools_headers_and_reconnect(tmp_path, faux, monkeypatch):
    monkeypatch.setenv("MCP_TEST_TOKEN", "tok-123")
    with http_server() as port:
        write_mcp(
            agent_dir() / "mcp.json",
            {
                "web": {
                    "url": f"http://127.0.0.1:{port}/mcp",
                    "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"},
                    "exposure": "direct",
                    "timeout": 30,
                }
            },
        )
        session, runner, ext, notes, errors = await mcp_session(tmp_path)
        await connected(ext)
        script = Script(
            faux,
            faux_tool("mcp__web__whoami", {}),
            faux_tool("mcp__web__add", {"a": 20, "b": 22}),
            faux_text("done"),
        )
        await session.prompt("go")
        whoami, add = tool_results(session)
        assert text_of(whoami) == "Bearer tok-123" and text_of(add) == "42"
        assert "tok-123" not in str(session.messages[0])  # the secret never reaches the transcript
        assert ext.manager.connections["web"].state == "connected"
    try:
        # the server is gone: the call fails and the server is shown as disconnected
        script.add(faux_tool("mcp__web__add", {"a": 1, "b": 1}), faux_text("failed"))
        await session.prompt("again")
        failed = tool_results(session)[-1]
        assert failed.isError
        assert ext.manager.connections["web"].state in ("disconnected", "failed")
        with http_server(port):  # back on the same port: the next call reconnects
            script.add(faux_tool("mcp__web__add", {"a": 2, "b": 2}), faux_text("ok"))
            await session.prompt("third")
            assert text_of(tool_results(session)[-1]) == "4"
            assert ext.manager.connections["web"].state == "connected"
    finally:
        await runner.shutdown("quit")
