"""``pi mcp add|remove|list`` through the real ``pi`` command."""

from __future__ import annotations

import json

from tests.modes.harness import make_env

from .helpers import stdio


def test_add_and_remove_keep_other_content_and_indentation(tmp_path):
    env = make_env(tmp_path)
    user = env.agent_dir / "mcp.json"
    user.parent.mkdir(parents=True)
    user.write_text('{\n    "autoEnableCodemode": false,\n    "mcpServers": {"old": {"command": "x"}}\n}\n')
    added = env.call("mcp", "add", "web", "--url", "https://example.com/mcp", "--bearer-token-env-var", "TOK",
                    "--exposure", "direct", "--description", "Docs")  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout == f'Added global MCP server "web" in {user}.\nCheck it with: pi mcp list\n'
    data = json.loads(user.read_text())
    assert data["autoEnableCodemode"] is False and data["mcpServers"]["old"] == {"command": "x"}
    assert data["mcpServers"]["web"] == {
        "url": "https://example.com/mcp",
        "headers": {"Authorization": "Bearer ${TOK}"},
        "exposure": "direct",
        "description": "Docs",
    }
    assert user.read_text().startswith('{\n    "autoEnableCodemode"')  # four-space indentation kept

    local = env.call(
        "mcp", "add", "-l", "tools", "--env", "API_KEY=${KEY}", "--cwd", "sub", "--", "uvx", "tools-mcp", "-v"
    )
    project = env.project / ".pi" / "mcp.json"
    assert local.returncode == 0 and f'Added project MCP server "tools" in {project}.' in local.stdout
    assert "The project is not trusted" in local.stdout
    assert json.loads(project.read_text())["mcpServers"]["tools"] == {
        "command": "uvx",
        "args": ["tools-mcp", "-v"],
        "env": {"API_KEY": "${KEY}"},
        "cwd": "sub",
    }

    removed = env.call("mcp", "remove", "web")
    assert removed.returncode == 0 and removed.stdout == f'Removed global MCP server "web" from {user}.\n'
    assert list(json.loads(user.read_text())["mcpServers"]) == ["old"]
    missing = env.call("mcp", "remove", "web")
    assert missing.returncode == 1 and missing.stderr == f'No global MCP server named "web" in {user}.\n'

    for bad, message in [
        (["add", "x"], "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])"),
        (["add", "x", "--url", "http://h/mcp", "--", "cmd"], "Usage: pi mcp add"),
        (["add", "bad name", "--", "cmd"], 'invalid server name "bad name"'),
        (["add", "x", "--exposure", "sometimes", "--", "cmd"], "--exposure must be codemode"),
        (["add", "x", "--oauth-client-id", "id", "--url", "http://h/mcp"], "OAuth is not supported"),
        (["login", "x"], "OAuth sign-in is not supported"),
        (["frobnicate"], 'Unknown command "pi mcp frobnicate"'),
    ]:
        result = env.call("mcp", *bad)
        assert result.returncode == 1 and message in result.stderr, (bad, result.stderr)
    assert "pi mcp add <server> [options] -- <command>" in env.call("mcp", "--help").stdout


def test_list_connects_prints_state_and_exits_1_on_failure(tmp_path):
    env = make_env(tmp_path)
    env.agent_dir.mkdir(parents=True)
    user = env.agent_dir / "mcp.json"
    servers = {
        "t": stdio(toolExposure={"echo": "direct"}),
        "off": {"command": "nothing", "enabled": False},
    }
    user.write_text(json.dumps({"mcpServers": servers}))
    ok = env.call("mcp", "list", timeout=90)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lines = ok.stdout.splitlines()
    assert lines[0] == "t: connected, 10 tools (codemode, global)"
    assert lines[2].startswith("  tools: echo [direct], add, slow, fail,")
    assert "  offers resources" in lines
    assert "off: disabled (codemode, global)" in lines

    servers["gone"] = {"command": str(tmp_path / "no-such-server")}
    user.write_text(json.dumps({"mcpServers": {**servers, "legacy": {"type": "sse", "url": "http://h/sse"}}}))
    failed = env.call("mcp", "list", "--json", timeout=90)
    assert failed.returncode == 1
    data = json.loads(failed.stdout)
    states = {s["name"]: s["state"] for s in data["servers"]}
    assert states == {"t": "connected", "off": "disabled", "gone": "failed"}
    gone = next(s for s in data["servers"] if s["name"] == "gone")
    assert gone["error"] == f"command not found: {tmp_path / 'no-such-server'}"
    assert data["errors"] == [
        f'{user}: server "legacy": legacy SSE transport is not supported; use the streamable HTTP URL'
    ]
