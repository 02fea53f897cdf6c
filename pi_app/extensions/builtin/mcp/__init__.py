"""``builtin:mcp``: Model Context Protocol servers from ``mcp.json`` (pi's ``docs/mcp.md``).

``register`` only subscribes to the session's lifecycle. At ``session_start`` the config files are read
(the project's only once trusted); when no server is configured nothing else happens, so a session
without MCP never imports the ``mcp`` SDK. Otherwise every enabled server connects in the background,
the first prompt waits (at most 10 s) for servers with ``direct`` tools, and ``session_shutdown`` stops
them all.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.extensions.api import ExtensionAPI
    from pi_app.extensions.context import ExtensionCommandContext, ExtensionContext
    from pi_app.extensions.events import BeforeAgentStartEvent, SessionShutdownEvent, SessionStartEvent

    from .config import McpConfig
    from .runtime import McpManager
    from .status import ServerRow


EXTENSION: McpExtension | None = None
_SWITCHES = ("new", "resume", "fork")  # session switches within the same process


class McpExtension:
    def __init__(self, pi: ExtensionAPI) -> None:
        self.pi = pi
        self.manager: McpManager | None = None
        self.config: McpConfig | None = None
        self.where: tuple[str, str, bool] | None = None  # agent dir, cwd, project trusted

    async def on_session_start(self, event: SessionStartEvent, ctx: ExtensionContext) -> None:
        from pi_app.session.config.paths import agent_dir

        if self.manager is not None and event.reason in _SWITCHES:
            return  # /new, /resume, /fork: the servers and their tools carry over
        await self._stop()
        adir = str(agent_dir())
        trusted = ctx.is_project_trusted()
        files = [os.path.join(adir, "mcp.json")] + (
            [os.path.join(ctx.cwd, ".pi", "mcp.json")] if trusted else []
        )
        if not any(os.path.exists(f) for f in files):  # the common case: nothing to import, nothing to do
            self.config = None
            return
        from .config import load_mcp_config

        config = self.config = load_mcp_config(adir, ctx.cwd, trusted)
        self.where = (adir, ctx.cwd, trusted)
        for error in config.errors:
            ctx.ui.notify(f"MCP config: {error}", "warning")
        if not config.servers:
            return
        from .log import McpLog
        from .runtime import McpManager

        self.manager = McpManager(self.pi, config, ctx.cwd, McpLog(agent_dir() / "mcp.log"))
        self.manager.start(ctx)

    async def on_before_agent_start(self, event: BeforeAgentStartEvent, ctx: ExtensionContext) -> None:
        if self.manager is not None:
            await self.manager.wait_for_direct()

    async def on_session_shutdown(self, event: SessionShutdownEvent, ctx: ExtensionContext) -> None:
        if event.reason not in _SWITCHES:
            await self._stop()

    async def _stop(self) -> None:
        manager, self.manager = self.manager, None
        if manager is not None:
            await manager.stop()

    async def command(self, args: str, ctx: ExtensionCommandContext) -> None:
        """``/mcp`` prints the servers' status; ``/mcp reconnect <server>`` reconnects one."""
        from .status import format_row, reconnect, server_rows

        words = args.split()
        manager = self.manager
        if words[:1] == ["reconnect"] and len(words) == 2:
            conn = manager.connections.get(words[1]) if manager else None
            if manager is None or conn is None:
                ctx.ui.notify(f'Unknown MCP server "{words[1]}"', "error")
                return
            await reconnect(self, conn.name)
            ctx.ui.notify(f"MCP server {conn.name}: {conn.state}", "info")
            return
        rows = server_rows(self)
        errors = self.config.errors if self.config else []
        if not rows and not errors:
            ctx.ui.notify("No MCP servers configured (add them to ~/.pi/agent/mcp.json or .pi/mcp.json).")
            return
        ctx.ui.notify("\n".join([*map(format_row, rows), *(f"config error: {e}" for e in errors)]))

    # ---------------------------------------------------------------- what the /mcp screen does
    def rows(self) -> list[ServerRow]:
        from .status import server_rows

        return server_rows(self)

    @property
    def errors(self) -> list[str]:
        return self.config.errors if self.config else []

    async def reconnect(self, name: str) -> None:
        from .status import reconnect

        await reconnect(self, name)

    async def toggle_enabled(self, name: str) -> None:
        from .status import change_server

        entry = self.config.get(name) if self.config else None
        if entry is not None:
            await change_server(self, name, "enabled", not entry.enabled)

    async def cycle_exposure(self, name: str) -> None:
        from .status import change_server, next_exposure

        entry = self.config.get(name) if self.config else None
        if entry is not None:
            await change_server(self, name, "exposure", next_exposure(entry.config.exposure))


def register(pi: ExtensionAPI) -> None:
    ext = McpExtension(pi)
    pi.on("session_start", ext.on_session_start)
    pi.on("before_agent_start", ext.on_before_agent_start)
    pi.on("session_shutdown", ext.on_session_shutdown)
    pi.register_command("mcp", ext.command, description="MCP servers: status, or reconnect <server>")
    global EXTENSION
    EXTENSION = ext  # reachable through the loaded module (tests, the /mcp screen)
