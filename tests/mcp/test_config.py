"""mcp.json reading, merging and checking, tool naming and output limits (pure functions)."""

from __future__ import annotations

import json

import pytest

from pi_app.extensions.builtin.mcp.config import (
    ConfigValueError,
    load_mcp_config,
    resolve_value,
    server_cwd,
    tool_exposure,
    validate_server,
)
from pi_app.extensions.builtin.mcp.log import McpLog
from pi_app.extensions.builtin.mcp.results import tool_name, truncate_middle


def _write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_user_and_project_servers_merge_and_project_needs_trust(tmp_path):
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "fs"], "env": {"K": "${KEY}"}},
                "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}},
                "internal": {"command": "internal-mcp", "exposure": "direct"},
            },
            "autoEnableCodemode": False,
        },
    )
    _write(
        cwd / ".pi" / "mcp.json",
        {
            "mcpServers": {
                "internal": {"enabled": False, "exposure": "hidden"},  # override: toggles only
                "docs": {"url": "http://127.0.0.1:9/mcp"},  # replaces the user entry
                "local": {"command": "uvx", "args": ["local-mcp"]},
            }
        },
    )
    untrusted = load_mcp_config(str(agent), str(cwd), project_trusted=False)
    assert [s.name for s in untrusted.servers] == ["fs", "docs", "internal"]
    assert untrusted.errors == [] and untrusted.files == [str(agent / "mcp.json")]

    trusted = load_mcp_config(str(agent), str(cwd), project_trusted=True)
    by_name = {s.name: s for s in trusted.servers}
    assert list(by_name) == ["fs", "docs", "internal", "local"]
    internal = by_name["internal"]
    assert (internal.enabled, internal.config.exposure, internal.config.command) == (
        False,
        "hidden",
        "internal-mcp",
    )
    assert internal.source == str(agent / "mcp.json") and internal.override == str(cwd / ".pi" / "mcp.json")
    docs = by_name["docs"]
    assert (
        docs.scope == "project" and docs.config.url == "http://127.0.0.1:9/mcp" and docs.config.headers == {}
    )
    assert by_name["fs"].config.kind == "stdio" and docs.config.kind == "http"


def test_invalid_entries_are_reported_with_file_and_skipped(tmp_path):
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    user = agent / "mcp.json"
    _write(
        user,
        {
            "mcpServers": {
                "ok": {"command": "good"},
                "legacy": {"type": "sse", "url": "https://example.com/sse"},
                "bad args": {"command": "x"},
                "noargs": {"command": "x", "args": "--flag"},
                "neither": {"description": "nothing to run"},
                "badurl": {"url": "ftp://example.com"},
                "slow": {"command": "x", "timeout": -1},
                "weird": {"command": "x", "exposure": "sometimes"},
                "a-b": {"command": "first"},
                "a_b": {"command": "clash"},
            }
        },
    )
    project = cwd / ".pi" / "mcp.json"
    _write(project, {"mcpServers": {"ghost": {"enabled": True}, "ok": {"enabled": True, "env": {"A": "b"}}}})
    config = load_mcp_config(str(agent), str(cwd), project_trusted=True)
    assert [s.name for s in config.servers] == ["ok", "a-b"]
    assert config.errors == [
        f'{user}: server "legacy": legacy SSE transport is not supported; use the streamable HTTP URL',
        f'{user}: invalid server name "bad args" (use letters, digits, "_" and "-")',
        f'{user}: server "noargs": args: Input should be a valid list',
        f'{user}: server "neither" needs either "command" (stdio) or "url" (streamable HTTP)',
        f'{user}: server "badurl": url must be an http or https URL',
        f'{user}: server "slow": timeout must be a positive number of seconds',
        f"{user}: server \"weird\": exposure: Input should be 'direct', 'deferred', 'codemode' or 'hidden'",
        f'{user}: server "a_b" conflicts with "a-b"',
        f'{project}: server "ghost" needs "command" or "url", or a global server to override',
        f'{project}: server "ok": an override can only set enabled, exposure, toolExposure',
    ]


def test_broken_files_are_reported(tmp_path):
    agent = tmp_path / "agent"
    _write(agent / "mcp.json", '{"mcpServers": {"a": ')
    config = load_mcp_config(str(agent), str(tmp_path), project_trusted=False)
    assert config.servers == [] and config.errors[0].startswith(
        f"{agent / 'mcp.json'}: invalid JSON at line 1"
    )
    _write(agent / "mcp.json", {"mcpServers": []})
    config = load_mcp_config(str(agent), str(tmp_path), project_trusted=False)
    assert config.errors == [f'{agent / "mcp.json"}: expected an object with an "mcpServers" object']
    assert load_mcp_config(str(tmp_path / "none"), str(tmp_path), True).files == []


def test_tool_exposure_exact_names_win_then_first_pattern():
    config = validate_server(
        "gh",
        {
            "url": "https://example.com/mcp",
            "exposure": "deferred",
            "toolExposure": {
                "get_*": "codemode-deferred",
                "search_code": "direct",
                "*": "hidden",
                "get_me": "direct",
            },
        },
    )
    assert not isinstance(config, str)
    assert tool_exposure(config, "search_code") == "direct"
    assert tool_exposure(config, "get_me") == "direct"
    assert tool_exposure(config, "get_issue") == "codemode"
    assert tool_exposure(config, "delete_repo") == "hidden"


def test_values_resolve_variables_and_commands(monkeypatch):
    monkeypatch.setenv("TOKEN", "abc")
    assert resolve_value("header Authorization", "Bearer ${TOKEN}") == "Bearer abc"
    assert resolve_value("env X", "!printf 'from %s' cmd") == "from cmd"
    assert resolve_value("env Y", "plain $TOKEN") == "plain $TOKEN"
    with pytest.raises(
        ConfigValueError, match=r"Failed to resolve env Z from environment variables: NOPE1, NOPE2"
    ):
        resolve_value("env Z", "${NOPE1}${NOPE2}")
    with pytest.raises(ConfigValueError, match="Failed to resolve env W from shell command: exit 3"):
        resolve_value("env W", "!exit 3")


def test_cwd_is_relative_to_the_session_and_home_expands(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    config = validate_server("a", {"command": "x", "cwd": "sub"})
    assert not isinstance(config, str) and server_cwd(config, "/work") == "/work/sub"
    config = validate_server("a", {"command": "x", "cwd": "~/srv"})
    assert not isinstance(config, str) and server_cwd(config, "/work") == f"{tmp_path}/srv"


def test_tool_names_are_sanitised_and_collisions_hashed():
    assert tool_name("my-server", "get.item") == "mcp__my_server__get_item"
    first = tool_name("s", "a-b")
    second = tool_name("s", "a_b", lambda n: n == first)
    assert first == "mcp__s__a_b" and second.startswith("mcp__s__a_b_") and len(second) == len(first) + 9
    long = tool_name("server", "x" * 80)
    assert len(long) == 64 and long[:-9] == ("mcp__server__" + "x" * 80)[:55]


def test_truncate_middle_keeps_both_ends_on_character_boundaries():
    assert truncate_middle("short") is None
    text = "é" * 30_000  # 2 bytes each
    body, total, lines = truncate_middle(text)  # type: ignore[misc]
    head, _, rest = body.partition("…")
    count, _, tail = rest.partition(" chars truncated…")
    assert total == 60_000 and lines == 1
    assert set(head) == {"é"} and set(tail) == {"é"}
    assert len(head) + len(tail) + int(count) == 30_000
    assert len(head.encode()) <= 10 * 1024 and len(tail.encode()) <= 10 * 1024


def test_log_appends_and_rotates(tmp_path):
    log = McpLog(tmp_path / "mcp.log", max_bytes=200)
    log.write("srv", "info", "core", "hello")
    log.write("srv", "error", None, {"k": 1})
    lines = (tmp_path / "mcp.log").read_text().splitlines()
    assert lines[0].endswith("[srv] info core: hello") and lines[1].endswith('[srv] error -: {"k": 1}')
    for _ in range(5):
        log.write("srv", "info", "core", "x" * 50)
    assert (tmp_path / "mcp.log.1").exists() and (tmp_path / "mcp.log").stat().st_size <= 200


async def test_enable_and_exposure_changes_are_saved_where_the_server_is_defined(tmp_path):
    from types import SimpleNamespace

    from pi_app.extensions.builtin.mcp.status import change_server, next_exposure

    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    user, project = agent / "mcp.json", cwd / ".pi" / "mcp.json"
    _write(
        user,
        '{\n\t"other": 1,\n\t"mcpServers": {"a": {"command": "x", "enabled": false}, "b": {"command": "y"}}\n}',
    )
    _write(project, {"mcpServers": {"b": {"enabled": False}}})
    ext = SimpleNamespace(manager=None, where=(str(agent), str(cwd), True))
    ext.config = load_mcp_config(str(agent), str(cwd), True)

    assert await change_server(ext, "a", "enabled", True) == str(user)
    text = user.read_text()
    assert json.loads(text) == {"other": 1, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}
    assert text.startswith('{\n\t"other"')  # the file's tab indentation is kept
    assert ext.config.get("a").enabled is True

    # "b" is overridden by the project: its changes go to the override, defaults spelled out
    assert await change_server(ext, "b", "enabled", True) == str(project)
    assert await change_server(ext, "b", "exposure", "codemode") == str(project)
    assert json.loads(project.read_text()) == {"mcpServers": {"b": {"enabled": True, "exposure": "codemode"}}}
    assert json.loads(user.read_text())["mcpServers"]["b"] == {"command": "y"}
    assert [next_exposure(e) for e in ("codemode", "deferred", "direct", "hidden")] == [
        "deferred",
        "direct",
        "hidden",
        "codemode",
    ]
