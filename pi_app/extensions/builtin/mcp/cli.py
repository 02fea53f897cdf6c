"""``pi mcp add|remove|list``: MCP servers from the shell, without a session (pi's "MCP commands").

``add``/``remove`` edit ``~/.pi/agent/mcp.json`` (or ``.pi/mcp.json`` with ``-l``), keeping the rest of the
file and its indentation. ``list`` connects to every enabled server and exits 1 when an entry is invalid
or an enabled server is not connected. The project file is read only for an already trusted project.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from .config import (
    EXPOSURES,
    McpConfig,
    ServerEntry,
    load_mcp_config,
    project_config_path,
    user_config_path,
    validate_server,
)

USAGE = """Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]

Configure and check MCP servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)

Options for add and remove:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers

Other options:
  --json                  Print the list as JSON
"""
HELP_HINT = 'Use "pi mcp --help" for usage.'


class UsageError(Exception):
    pass


def main(argv: list[str]) -> int:
    from pi_app.session.config.paths import agent_dir

    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    command, rest = argv[0], argv[1:]
    adir, cwd = str(agent_dir()), os.getcwd()
    try:
        if command == "add":
            return add(rest, adir, cwd)
        if command == "remove":
            return remove(rest, adir, cwd)
        if command == "list":
            if rest not in ([], ["--json"]):
                raise UsageError("Usage: pi mcp list [--json]")
            return asyncio.run(list_servers(adir, cwd, as_json=bool(rest)))
        if command in ("login", "logout"):
            raise UsageError(f"pi mcp {command}: OAuth sign-in is not supported by this version of pi")
        raise UsageError(f'Unknown command "pi mcp {command}"')
    except UsageError as exc:
        print(f"{exc}\n{HELP_HINT}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1


# ------------------------------------------------------------------ editing mcp.json
def _target(local: bool, adir: str, cwd: str) -> tuple[Path, str]:
    return (project_config_path(cwd), "project") if local else (user_config_path(adir), "global")


def edit_servers(path: Path, edit: Any) -> None:
    """Read ``path`` (an empty config when missing), let ``edit(servers)`` change the ``mcpServers``
    object in place (returning False to leave the file alone), and write it back with its indentation."""
    text = path.read_text(encoding="utf-8-sig") if path.exists() else None
    parsed = json.loads(text) if text else {}
    if not isinstance(parsed, dict) or not isinstance(parsed.setdefault("mcpServers", {}), dict):
        raise ValueError(f'{path}: expected an object with an "mcpServers" object')
    if edit(parsed["mcpServers"]) is False:
        return
    match = re.search(r"^([ \t]+)\S", text or "", re.MULTILINE)
    indent = match.group(1) if match else "  "
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(parsed, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects KEY=VALUE, got: {value}")
        out[key] = val
    return out


def parse_add(argv: list[str]) -> tuple[str, bool, dict[str, Any]]:
    """(server name, --local, the entry) from ``add``'s arguments."""
    name: str | None = None
    local = False
    url = cwd = exposure = description = bearer = None
    env: list[str] = []
    headers: list[str] = []
    command: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            command = argv[i + 1 :]
            break

        def value(flag: str = arg) -> str:
            nonlocal i
            if i + 1 >= len(argv):
                raise UsageError(f"{flag} needs a value")
            i += 1
            return argv[i]

        if arg in ("-l", "--local"):
            local = True
        elif arg == "--url":
            url = value()
        elif arg == "--env":
            env.append(value())
        elif arg == "--cwd":
            cwd = value()
        elif arg == "--header":
            headers.append(value())
        elif arg == "--bearer-token-env-var":
            bearer = value()
        elif arg == "--exposure":
            exposure = value()
        elif arg == "--description":
            description = value()
        elif arg.startswith("--oauth-"):
            raise UsageError(f"{arg}: OAuth is not supported by this version of pi")
        elif arg.startswith("-"):
            raise UsageError(f"Unknown option for pi mcp add: {arg}")
        elif name is None:
            name = arg
        else:
            raise UsageError(f"Unexpected argument: {arg} (put the server command after --)")
        i += 1
    if name is None or bool(url) == bool(command):
        raise UsageError("Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])")
    if exposure is not None and exposure not in (*EXPOSURES, "codemode-deferred"):
        raise UsageError(f"--exposure must be codemode, deferred, direct, or hidden, got: {exposure}")
    entry: dict[str, Any] = {}
    if url:
        if env or cwd:
            raise UsageError("--env and --cwd are for stdio servers (a command after --)")
        entry["url"] = url
        all_headers = _pairs(headers, "--header")
        if bearer:
            all_headers["Authorization"] = f"Bearer ${{{bearer}}}"
        if all_headers:
            entry["headers"] = all_headers
    else:
        if headers or bearer:
            raise UsageError("--header and --bearer-token-env-var are for HTTP servers (--url)")
        entry["command"] = command[0]
        if command[1:]:
            entry["args"] = command[1:]
        if env:
            entry["env"] = _pairs(env, "--env")
        if cwd:
            entry["cwd"] = cwd
    if exposure is not None:
        entry["exposure"] = exposure
    if description is not None:
        entry["description"] = description
    return name, local, entry


def _project_trusted(adir: str, cwd: str) -> bool:
    from pi_app.session.trust import resolve_trust

    return resolve_trust(cwd, adir).allowed


def add(argv: list[str], adir: str, cwd: str) -> int:
    name, local, entry = parse_add(argv)
    checked = validate_server(name, entry)
    if isinstance(checked, str):
        raise UsageError(checked)
    path, scope = _target(local, adir, cwd)
    replaced = False

    def put(servers: dict[str, Any]) -> None:
        nonlocal replaced
        replaced = name in servers
        servers[name] = entry

    edit_servers(path, put)
    print(f'{"Replaced" if replaced else "Added"} {scope} MCP server "{name}" in {path}.')
    if local and not _project_trusted(adir, cwd):
        print(
            f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it."
        )
    print("Check it with: pi mcp list")
    return 0


def remove(argv: list[str], adir: str, cwd: str) -> int:
    local = any(a in ("-l", "--local") for a in argv)
    names = [a for a in argv if a not in ("-l", "--local")]
    if len(names) != 1 or names[0].startswith("-"):
        raise UsageError("Usage: pi mcp remove <server> [-l]")
    name = names[0]
    path, scope = _target(local, adir, cwd)
    removed = False

    def drop(servers: dict[str, Any]) -> bool:
        nonlocal removed
        removed = servers.pop(name, None) is not None
        return removed

    if path.exists():
        edit_servers(path, drop)
    if not removed:
        print(f'No {scope} MCP server named "{name}" in {path}.', file=sys.stderr)
        return 1
    print(f'Removed {scope} MCP server "{name}" from {path}.')
    return 0


# ------------------------------------------------------------------ list
def _transport(entry: ServerEntry) -> str:
    config = entry.config
    if config.kind == "http":
        return config.url or ""
    return " ".join([config.command or "", *config.args])


async def list_servers(adir: str, cwd: str, *, as_json: bool) -> int:
    from .connection import McpConnection, ServerUnavailable

    config: McpConfig = load_mcp_config(adir, cwd, _project_trusted(adir, cwd))
    conns = [McpConnection(s, cwd) for s in config.servers]

    async def attempt(conn: McpConnection) -> None:
        if conn.entry.enabled:
            try:
                await conn.connect()
            except ServerUnavailable:
                pass

    await asyncio.gather(*(attempt(c) for c in conns))
    try:
        rows = [_row(c) for c in conns]
    finally:
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)
    if as_json:
        print(json.dumps({"servers": rows, "errors": config.errors}, indent=2, ensure_ascii=False))
    else:
        for row, conn in zip(rows, conns, strict=True):
            _print_row(row, conn)
        for error in config.errors:
            print(f"config error: {error}")
        if not rows and not config.errors:
            print("No MCP servers configured. Add one with: pi mcp add <server> -- <command> [args...]")
    failed = any(r["enabled"] and r["state"] != "connected" for r in rows)
    return 1 if failed or config.errors else 0


def _row(conn: Any) -> dict[str, Any]:
    entry: ServerEntry = conn.entry
    row: dict[str, Any] = {
        "name": entry.name,
        "scope": "global" if entry.scope == "user" else "project",
        "source": entry.source,
        "enabled": entry.enabled,
        "exposure": entry.config.exposure,
        "transport": _transport(entry),
        "state": conn.state,
        "tools": [t.name for t in conn.tools],
    }
    if entry.override:
        row["override"] = entry.override
    if entry.config.tool_exposure:
        row["toolExposure"] = dict(entry.config.tool_exposure)
    if conn.has_resources:
        row["resources"] = True
    if conn.error and conn.state != "connected":
        row["error"] = conn.error
        tail = conn.stderr_tail
        if tail:
            row["stderr"] = tail[-10:]
    return row


def _print_row(row: dict[str, Any], conn: Any) -> None:
    from .config import tool_exposure

    count = f", {len(row['tools'])} tools" if row["state"] == "connected" else ""
    print(f"{row['name']}: {row['state']}{count} ({row['exposure']}, {row['scope']})")
    print(f"  {row['transport']}")
    if row["tools"]:
        marked = []
        for name in row["tools"]:
            exposure = tool_exposure(conn.entry.config, name)
            marked.append(name if exposure == row["exposure"] else f"{name} [{exposure}]")
        print(f"  tools: {', '.join(marked)}")
    if row.get("resources"):
        print("  offers resources")
    if row.get("error"):
        print(f"  {row['error']}")
        for line in row.get("stderr", [])[-5:]:
            print(f"  stderr: {line}")
