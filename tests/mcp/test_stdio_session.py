"""builtin:mcp over a real stdio MCP server (the SDK's server side), driven through the agent loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tool
from tests.agent_session.helpers import Script

from .helpers import agent_dir, connected, mcp_session, stdio, text_of, tool_results, write_mcp


async def _until(predicate, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


async def test_direct_tools_called_through_the_agent_loop(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"t": stdio(exposure="direct")})
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    script = Script(
        faux,
        faux_tool("mcp__t__echo", {"text": "hi"}),
        faux_tool("mcp__t__add", {"a": 2, "b": 3}),
        faux_tool("mcp__t__fail", {}),
        faux_tool("mcp__t__picture", {}),
        faux_tool("mcp__t__big", {}),
        faux_tool("mcp__t__weird_name_tool", {}),
        faux_text("done"),
    )
    try:
        await connected(ext)
        await session.prompt("go")
        declared = {t.name for t in script.agent_requests[0].tools or []}
        assert {"mcp__t__echo", "mcp__t__add", "mcp__t__weird_name_tool"} <= declared
        results = tool_results(session)
        assert [r.toolName for r in results] == [
            "mcp__t__echo",
            "mcp__t__add",
            "mcp__t__fail",
            "mcp__t__picture",
            "mcp__t__big",
            "mcp__t__weird_name_tool",
        ]
        echo, add, fail, picture, big, weird = results
        assert text_of(echo) == "echo: hi" and not echo.isError
        assert echo.details["structuredContent"] == {"result": "echo: hi"}
        assert text_of(add) == "5"
        assert fail.isError and "this tool always fails" in text_of(fail)
        assert [c.type for c in picture.content] == ["text", "image"]
        assert picture.content[1].mimeType == "image/png"
        big_text = text_of(big)
        assert big_text.startswith("Warning: truncated output (original token count: ")
        assert "Total output lines: 1000" in big_text and "chars truncated…" in big_text
        full = big.details["fullOutputPath"]
        assert Path(full).read_text().count("\n") == 999 and len(big_text.encode()) < 21 * 1024
        assert text_of(weird) == "weird"
        log = (agent_dir() / "mcp.log").read_text()
        assert "[t] info" in log and "echoing hi" in log
        assert errors == [] and notes.messages == []
    finally:
        await runner.shutdown("quit")


async def test_drop_reconnect_and_process_group_cleanup(tmp_path, faux):
    pidfile = tmp_path / "pids"
    write_mcp(
        agent_dir() / "mcp.json", {"t": stdio(exposure="direct", env={"MCP_TEST_PIDFILE": str(pidfile)})}
    )
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    await connected(ext)
    Script(
        faux, faux_tool("mcp__t__crash", {}), faux_tool("mcp__t__echo", {"text": "again"}), faux_text("ok")
    )
    await session.prompt("go")
    crash, echo = tool_results(session)
    assert crash.isError and 'MCP server "t" disconnected' in text_of(crash)
    assert not echo.isError and text_of(echo) == "echo: again"  # reconnected on the next call
    pids = [tuple(map(int, line.split())) for line in pidfile.read_text().splitlines()]
    assert len(pids) == 2  # started twice
    (first_server, first_child), (server, child) = pids
    await _until(lambda: _gone(first_child))  # the crashed server's group was ended too
    assert not _gone(server) and not _gone(child)
    await runner.shutdown("quit")
    assert _gone(server) and _gone(child), "the server's process group outlived the session"
    assert ext.manager is None


async def test_tool_list_change_adds_and_withdraws_tools(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"t": stdio(exposure="direct")})
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    script = Script(faux, faux_tool("mcp__t__grow", {}), faux_text("grown"))
    await connected(ext)
    try:
        await session.prompt("grow")
        await _until(lambda: "mcp__t__extra" in session.tool_names)
        assert "mcp__t__fail" not in session.tool_names
        script.add(faux_tool("mcp__t__extra", {}), faux_text("done"))
        await session.prompt("use it")
        declared = {t.name for t in script.agent_requests[-2].tools or []}
        assert "mcp__t__extra" in declared and "mcp__t__fail" not in declared
        assert text_of(tool_results(session)[-1]) == "extra here"
    finally:
        await runner.shutdown("quit")


async def test_resources_tools(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"t": stdio(exposure="direct")})
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    Script(
        faux,
        faux_tool("list_mcp_resources", {}),
        faux_tool("list_mcp_resource_templates", {"server": "t"}),
        faux_tool("read_mcp_resource", {"server": "t", "uri": "res://greeting"}),
        faux_tool("read_mcp_resource", {"server": "t", "uri": "res://item/7"}),
        faux_text("done"),
    )
    await connected(ext)
    try:
        await session.prompt("resources")
        listing, templates, greeting, item = tool_results(session)
        import json

        data = json.loads(text_of(listing))
        assert [(r["server"], r["uri"], r["name"]) for r in data["resources"]] == [
            ("t", "res://greeting", "greeting")
        ]
        tdata = json.loads(text_of(templates))
        assert (
            tdata["server"] == "t" and tdata["resourceTemplates"][0]["uriTemplate"] == "res://item/{item_id}"
        )
        assert text_of(greeting) == "hello from a resource"
        assert text_of(item) == "item 7"
    finally:
        await runner.shutdown("quit")


async def test_deferred_tools_are_found_by_tool_search(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"t": stdio()})  # default exposure: codemode, reached as deferred
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    script = Script(faux, faux_tool("tool_search", {"query": "add numbers"}), faux_text("found"))
    try:
        await connected(ext)
        assert "tool_search" in session.tool_names and "mcp__t__add" not in session.tool_names
        await session.prompt("find")
        assert "mcp__t__add" not in {t.name for t in script.agent_requests[0].tools or []}
        assert "mcp__t__add" in text_of(tool_results(session)[0])
        # the agent loop takes its tool set at the start of a run: the match is declared from the next one
        script.add(faux_tool("mcp__t__add", {"a": 1, "b": 1}), faux_text("2"))
        await session.prompt("add")
        assert "mcp__t__add" in {t.name for t in script.agent_requests[2].tools or []}
        assert text_of(tool_results(session)[-1]) == "2"
    finally:
        await runner.shutdown("quit")


async def test_servers_that_never_start_are_reported_and_do_not_block(tmp_path, faux):
    write_mcp(
        agent_dir() / "mcp.json",
        {
            "missing": {"command": str(tmp_path / "no-such-server"), "exposure": "direct"},
            "mute": {"command": "sleep", "args": ["60"], "exposure": "direct", "timeout": 1},
            "off": {"command": "sleep", "args": ["60"], "enabled": False},
        },
    )
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    Script(faux, faux_tool("mcp__missing__x", {}), faux_text("ok"))
    try:
        await session.prompt("go")
        conns = ext.manager.connections
        assert conns["missing"].state == "failed" and "command not found" in conns["missing"].error
        await _until(lambda: conns["mute"].state == "failed")
        assert conns["mute"].error == "timed out"
        assert conns["off"].state == "disabled"
        warned = "\n".join(m for _, m in notes.messages)
        assert 'MCP server "missing" is not connected: command not found' in warned
        assert 'MCP server "mute" is not connected: timed out' in warned
        assert tool_results(session)[0].isError  # no such tool
    finally:
        await runner.shutdown("quit")


async def test_env_values_resolve_variables_and_commands(tmp_path, faux, monkeypatch):
    monkeypatch.setenv("MCP_TEST_SECRET", "s3cret")
    write_mcp(
        agent_dir() / "mcp.json",
        {"t": stdio(exposure="direct", env={"A": "x-${MCP_TEST_SECRET}-y", "B": "!echo from-command"})},
    )
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    Script(
        faux,
        faux_tool("mcp__t__env_value", {"name": "A"}),
        faux_tool("mcp__t__env_value", {"name": "B"}),
        faux_text("ok"),
    )
    await connected(ext)
    try:
        await session.prompt("env")
        a, b = tool_results(session)
        assert text_of(a) == "x-s3cret-y" and text_of(b) == "from-command"
    finally:
        await runner.shutdown("quit")


async def test_project_servers_and_overrides_need_trust(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"u": stdio(enabled=False)})
    write_mcp(tmp_path / "proj" / ".pi" / "mcp.json", {"p": stdio(exposure="direct"), "u": {"enabled": True}})
    session, runner, ext, notes, errors = await mcp_session(tmp_path, trusted=False)
    try:
        # "u" stays disabled and "p" unknown: the untrusted project file is not read
        assert {n: c.state for n, c in ext.manager.connections.items()} == {"u": "disabled"}
    finally:
        await runner.shutdown("quit")
    session, runner, ext, notes, errors = await mcp_session(tmp_path, trusted=True)
    try:
        await connected(ext)
        conns = ext.manager.connections
        assert (conns["p"].state, conns["u"].state) == ("connected", "connected")
        assert conns["u"].entry.override == str(tmp_path / "proj" / ".pi" / "mcp.json")
        assert (
            "mcp__p__echo" in session.tool_names and "mcp__u__echo" not in session.tool_names
        )  # u: deferred
    finally:
        await runner.shutdown("quit")


async def test_abort_cancels_a_slow_call_and_the_server_stays_usable(tmp_path, faux):
    write_mcp(agent_dir() / "mcp.json", {"t": stdio(exposure="direct")})
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    script = Script(faux, faux_tool("mcp__t__slow", {"seconds": 30}), faux_text("never"))
    await connected(ext)
    try:
        run = asyncio.get_running_loop().create_task(session.prompt("slow"))
        await _until(lambda: bool(session.agent.state.pending_tool_calls))
        started = asyncio.get_running_loop().time()
        await session.abort()
        await run
        assert asyncio.get_running_loop().time() - started < 10
        slow = tool_results(session)[-1]
        assert slow.isError and "Aborted" in text_of(slow)
        script.add(faux_tool("mcp__t__echo", {"text": "still here"}), faux_text("ok"))
        await session.prompt("again")
        assert text_of(tool_results(session)[-1]) == "echo: still here"
        assert ext.manager.connections["t"].state == "connected"
    finally:
        await runner.shutdown("quit")


async def test_new_session_keeps_servers_and_reload_restarts_them(tmp_path, faux):
    pidfile = tmp_path / "pids"
    write_mcp(
        agent_dir() / "mcp.json", {"t": stdio(exposure="direct", env={"MCP_TEST_PIDFILE": str(pidfile)})}
    )
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    try:
        await connected(ext)
        manager = ext.manager
        await session.new_session()
        assert ext.manager is manager and manager.connections["t"].state == "connected"
        assert "mcp__t__echo" in session.tool_names
        ((first_server, first_child),) = [
            tuple(map(int, line.split())) for line in pidfile.read_text().splitlines()
        ]
        await runner.reload()  # a fresh import of the extension; the old servers stop
        assert _gone(first_server) and _gone(first_child)
        fresh = runner.extensions[0].module.EXTENSION
        assert fresh is not ext
        await connected(fresh)
        assert fresh.manager.connections["t"].state == "connected" and "mcp__t__echo" in session.tool_names
        Script(faux, faux_tool("mcp__t__echo", {"text": "after reload"}), faux_text("ok"))
        await session.prompt("go")
        assert text_of(tool_results(session)[-1]) == "echo: after reload"
    finally:
        await runner.shutdown("quit")


async def test_mcp_command_prints_status_and_reconnects(tmp_path, faux):
    write_mcp(
        agent_dir() / "mcp.json",
        {
            "t": stdio(exposure="direct"),
            "gone": {"command": str(tmp_path / "missing")},
            "bad": {"type": "sse"},
        },
    )
    session, runner, ext, notes, errors = await mcp_session(tmp_path)
    try:
        await connected(ext)
        notes.messages.clear()
        await session.prompt("/mcp")
        ((level, text),) = notes.messages
        assert text.splitlines() == [
            "gone: failed (codemode, global)",
            f"  command not found: {tmp_path / 'missing'}",
            "t: connected, 10 tools (direct, global)",
            f'config error: {agent_dir() / "mcp.json"}: server "bad": legacy SSE transport is not supported; '
            "use the streamable HTTP URL",
        ]
        group = ext.manager.connections["t"].pgid
        await session.prompt("/mcp reconnect t")
        assert notes.messages[-1] == ("info", "MCP server t: connected")
        assert ext.manager.connections["t"].pgid not in (None, group)
        await session.prompt("/mcp reconnect nope")
        assert notes.messages[-1] == ("error", 'Unknown MCP server "nope"')
    finally:
        await runner.shutdown("quit")
