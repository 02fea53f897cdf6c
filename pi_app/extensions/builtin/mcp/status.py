"""What ``/mcp`` shows: one plain row per configured server (no Textual here; the screen renders rows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .config import McpConfig
    from .runtime import McpManager


class McpActions(Protocol):
    """What the /mcp screen asks of builtin:mcp (its McpExtension)."""

    @property
    def errors(self) -> list[str]: ...

    def rows(self) -> list[ServerRow]: ...

    async def reconnect(self, name: str) -> None: ...

    async def toggle_enabled(self, name: str) -> None: ...

    async def cycle_exposure(self, name: str) -> None: ...


class McpState(McpActions, Protocol):
    """What the extension holds for a session (its config, and the manager once a server is enabled)."""

    config: McpConfig | None
    manager: McpManager | None
    where: tuple[str, str, bool] | None


_ORDER = {"failed": 0, "disconnected": 1, "connecting": 2, "connected": 3, "disabled": 4}


@dataclass(frozen=True)
class ServerRow:
    """One row of /mcp: a configured server's state, tools and exposure, and the file that defines it."""

    name: str
    state: str  # connecting, connected, disconnected, failed, disabled
    tools: tuple[str, ...]  # registered tool names (mcp__server__tool)
    exposure: str
    scope: str  # "global" or "project"
    source: str  # the file that defines (or overrides) the server
    error: str | None = None
    stderr: tuple[str, ...] = ()

    @property
    def needs_attention(self) -> bool:
        return self.state in ("failed", "disconnected")


def find_mcp(hooks: Any) -> McpState | None:
    """The loaded builtin:mcp extension of a session's extension runner, if any."""
    for ext in getattr(hooks, "extensions", None) or ():
        found = getattr(ext.module, "EXTENSION", None) if ext.name == "mcp" else None
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def server_rows(ext: McpState) -> list[ServerRow]:
    """Every configured server, those needing attention first."""
    config = ext.config
    if config is None:
        return []
    manager = ext.manager
    rows = []
    for entry in config.servers:
        conn = manager.connections.get(entry.name) if manager else None
        state = conn.state if conn else ("connecting" if entry.enabled and manager else "disabled")
        if not entry.enabled:
            state = "disabled"
        tools = tuple(
            sorted(n for n, r in manager.tools.items() if r.server == entry.name and not r.withdrawn)
            if manager
            else ()
        )
        failed = conn is not None and conn.state in ("failed", "disconnected")
        rows.append(
            ServerRow(
                name=entry.name,
                state=state,
                tools=tools,
                exposure=entry.config.exposure,
                scope="global" if entry.scope == "user" else "project",
                source=entry.override or entry.source,
                error=conn.error if failed and conn else None,
                stderr=tuple(conn.stderr_tail[-10:]) if failed and conn else (),
            )
        )
    return sorted(rows, key=lambda r: (_ORDER.get(r.state, 5), r.name))


async def reconnect(ext: McpState, name: str) -> None:
    manager = ext.manager
    conn = manager.connections.get(name) if manager else None
    if manager is None or conn is None or not conn.entry.enabled:
        return
    await conn.stop()
    conn.state = "connecting"
    await manager.connect_server(conn)


def format_row(row: ServerRow) -> str:
    """``name: state, N tools (exposure, scope)`` and, for a failed server, its error and stderr tail."""
    count = f", {len(row.tools)} tools" if row.state == "connected" else ""
    lines = [f"{row.name}: {row.state}{count} ({row.exposure}, {row.scope})"]
    if row.error:
        lines.append(f"  {row.error}")
    lines += [f"  stderr: {line}" for line in row.stderr[-5:]]
    return "\n".join(lines)


EXPOSURE_CYCLE = ("codemode", "deferred", "direct", "hidden")


def next_exposure(current: str) -> str:
    i = EXPOSURE_CYCLE.index(current) if current in EXPOSURE_CYCLE else -1
    return EXPOSURE_CYCLE[(i + 1) % len(EXPOSURE_CYCLE)]


async def change_server(ext: McpState, name: str, key: str, value: bool | str) -> str:
    """Save ``enabled``/``exposure`` of ``name`` to the file that defines it (the project override when
    there is one), keeping the rest of the file, then apply the file's new state. Returns the path."""
    from pathlib import Path

    from .cli import edit_servers
    from .config import load_mcp_config

    entry = ext.config.get(name) if ext.config else None
    if entry is None or ext.where is None:
        raise ValueError(f'Unknown MCP server "{name}"')
    path = Path(entry.override or entry.source)
    keep_defaults = entry.override is not None  # an override must say what it overrides

    def edit(servers: dict[str, Any]) -> None:
        server = servers.get(name)
        if not isinstance(server, dict):
            raise ValueError(f'{path} does not define MCP server "{name}"')
        default = True if key == "enabled" else "codemode"
        if value == default and not keep_defaults:
            server.pop(key, None)
        else:
            server[key] = value

    edit_servers(path, edit)
    adir, cwd, trusted = ext.where
    ext.config = load_mcp_config(adir, cwd, trusted)
    updated = ext.config.get(name)
    if ext.manager is not None and updated is not None:
        ext.manager.config = ext.config
        await ext.manager.update_server(updated)
    return str(path)
