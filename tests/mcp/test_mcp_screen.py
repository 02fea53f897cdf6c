"""``/mcp`` in the interactive app (Pilot) and a snapshot of the screen."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_app.extensions.builtin import builtin_path
from pi_app.extensions.builtin.mcp.status import find_mcp
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.tui.screens.mcp import McpScreen
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

from .helpers import agent_dir, stdio, write_mcp

MISSING = "/nonexistent/pi-mcp-test-server"


async def _runner(session) -> ExtensionRunner:
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    path = builtin_path("mcp")
    assert path is not None
    await runner.load([ExtensionSource(path, "user")])
    runner.bind(session)  # as startup does; the app sets mode "tui" and its ctx.ui
    return runner


def _settled(runner) -> bool:
    ext = find_mcp(runner)
    return (
        ext is not None
        and ext.manager is not None
        and all(c.state != "connecting" for c in ext.manager.connections.values())
    )


async def test_mcp_screen_lists_inspects_and_reconnects(tmp_path):
    write_mcp(
        agent_dir() / "mcp.json",
        {
            "t": stdio(exposure="direct"),
            "gone": {"command": MISSING, "exposure": "direct"},
            "off": stdio(enabled=False, exposure="direct"),
        },
    )
    project = tmp_path / "proj"
    project.mkdir()
    session = await make_session(project)
    runner = await _runner(session)
    app = make_app(session, extensions=runner)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: _settled(runner), "the servers to settle", timeout=90)
            app.editor.load_text("/mcp")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP screen")
            screen = app.screen
            assert [(r.name, r.state) for r in screen.shown] == [
                ("gone", "failed"),
                ("t", "connected"),
                ("off", "disabled"),
            ]
            detail = screen.query_one("#mcp-detail")
            assert f"error: command not found: {MISSING}" in str(detail.render())
            await pilot.press("down")
            assert "mcp__t__echo" in str(detail.render())
            connection = find_mcp(runner).manager.connections["t"]
            old_group = connection.pgid
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: connection.state == "connected" and connection.pgid not in (None, old_group),
                "the reconnect",
                timeout=90,
            )
            await wait_for(pilot, lambda: screen.shown[1].state == "connected", "the refreshed rows")

            await pilot.press("down")  # "off": enable it (saved to mcp.json) and it connects
            await pilot.press("e")
            await wait_for(
                pilot,
                lambda: ("off", "connected") in [(r.name, r.state) for r in screen.shown],
                "off to connect",
                90,
            )
            saved = json.loads((agent_dir() / "mcp.json").read_text())["mcpServers"]
            assert "enabled" not in saved["off"] and "mcp__off__echo" in session.tool_names

            highlighted = screen.query_one("OptionList").highlighted
            assert [r.name for r in screen.shown] == ["gone", "off", "t"] and highlighted == 1  # still "off"
            await pilot.press("down")  # "t": direct -> hidden, saved, its tools withdrawn
            await pilot.press("x")
            await wait_for(pilot, lambda: "mcp__t__echo" not in session.tool_names, "t's tools to go")
            saved = json.loads((agent_dir() / "mcp.json").read_text())["mcpServers"]
            assert saved["t"]["exposure"] == "hidden" and saved["gone"] == {
                "command": MISSING,
                "exposure": "direct",
            }
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, McpScreen), "the screen to close")
    finally:
        await runner.shutdown("quit")


def test_mcp_screen_snapshot(snap_compare, tmp_path, monkeypatch):
    fixed = Path("/tmp/pi-mcp-snapshot/agent")  # the source column shows this path
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(fixed))
    write_mcp(
        fixed / "mcp.json",
        {
            "gone": {"command": MISSING, "exposure": "direct"},
            "docs": {"url": "https://example.com/mcp", "enabled": False, "exposure": "deferred"},
            "legacy": {"type": "sse", "url": "https://example.com/sse"},
        },
    )
    project = tmp_path / "proj"
    project.mkdir()
    session = asyncio.run(make_session(project))
    runner = asyncio.run(_runner(session))
    app = make_app(session, extensions=runner)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: _settled(runner), "the servers to settle", timeout=60)
        app.editor.load_text("/mcp")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
