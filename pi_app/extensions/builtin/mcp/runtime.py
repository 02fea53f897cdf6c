"""The servers of one session: connecting in the background, their tools as pi tools, waiting, stopping.

Tools are named ``mcp__<server>__<tool>``. ``direct`` tools are declared to the model; ``deferred`` ones
(and ``codemode`` ones: this port has no codemode) are registered inactive and declared once
``tool_search`` finds them; ``hidden`` ones are not registered. A changed tool list adds new tools and
makes withdrawn ones unreachable (deactivated; a call says the server no longer offers it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.agent.tool import AgentToolResult, ToolError
from pi_app.ai.types import TextContent
from pi_app.extensions.definitions import ToolDefinition

from .config import McpConfig, ServerEntry, effective_exposure, has_direct_tools, tool_exposure
from .connection import McpConnection, ServerUnavailable
from .log import McpLog
from .results import READ_RESOURCE_TOOL, resource_contents, to_tool_result, tool_name

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientSession

    from pi_app.ai.abort import AbortSignal
    from pi_app.extensions.api import ExtensionAPI
    from pi_app.extensions.context import ExtensionContext

FIRST_PROMPT_WAIT_S = 10.0
TOOL_SEARCH = "tool_search"
LIST_RESOURCES = "list_mcp_resources"
LIST_TEMPLATES = "list_mcp_resource_templates"
SEARCH_LIMIT = 5


@dataclass
class RegisteredTool:
    """An MCP tool registered as a pi tool: its server, its name there, its exposure, and whether it was withdrawn."""

    server: str
    tool: str
    exposure: str  # "direct" or "deferred"
    withdrawn: bool = False


class McpManager:
    def __init__(self, pi: ExtensionAPI, config: McpConfig, cwd: str, log: McpLog) -> None:
        self.pi = pi
        self.config = config
        self.cwd = cwd
        self.log = log
        self.connections: dict[str, McpConnection] = {
            s.name: McpConnection(s, cwd, on_tools_changed=self._tools_changed, on_log=log.write)
            for s in config.servers
        }
        self.tools: dict[str, RegisteredTool] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._resource_tools = False
        self._search_tool = False
        self.searched: set[str] = set()  # deferred tools tool_search declared: they stay declared
        self.ctx: ExtensionContext | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self, ctx: ExtensionContext) -> None:
        """Connect every enabled server in the background."""
        self.ctx = ctx
        for conn in self.connections.values():
            if conn.entry.enabled:
                conn.state = "connecting"
                self._spawn(self._connect(conn, report=True))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def connect_server(self, conn: McpConnection, *, report: bool = True) -> None:
        """(Re)connect one server and register its tools; a failure is reported once, as a warning."""
        await self._connect(conn, report=report)

    async def _connect(self, conn: McpConnection, *, report: bool = False) -> None:
        try:
            await conn.connect()
        except ServerUnavailable as exc:
            if report and self.ctx is not None:
                self.ctx.ui.notify(f"MCP: {exc}", "warning")
            return
        self._register_server(conn)

    async def update_server(self, entry: ServerEntry) -> None:
        """Apply a changed entry (enabled, exposure) of a known server."""
        conn = self.connections.get(entry.name)
        if conn is None:
            return
        was_enabled = conn.entry.enabled
        conn.entry = entry
        if not entry.enabled:
            await conn.stop()
            conn.state = "disabled"
            self._withdraw(entry.name)
            return
        if not was_enabled or not conn.connected:
            conn.state = "connecting"
            await self._connect(conn, report=True)
            return
        self._register_server(conn)

    def _withdraw(self, server: str) -> None:
        names = [n for n, r in self.tools.items() if r.server == server]
        for name in names:
            self.tools[name].withdrawn = True
        self.pi.set_active_tools([n for n in self.pi.get_active_tools() if n not in names])

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    async def wait_for(
        self, names: Sequence[str] | None = None, timeout: float = FIRST_PROMPT_WAIT_S
    ) -> None:
        """Wait (bounded, in total) for servers still connecting; ``names`` None: all of them."""
        pending = [
            c
            for c in self.connections.values()
            if c.state == "connecting" and (names is None or c.name in names)
        ]
        if pending:
            await asyncio.wait(
                [asyncio.ensure_future(c.wait_ready(timeout)) for c in pending], timeout=timeout
            )

    async def wait_for_direct(self) -> None:
        await self.wait_for([c.name for c in self.connections.values() if has_direct_tools(c.entry.config)])

    # ------------------------------------------------------------------ tools
    def _register_server(self, conn: McpConnection) -> None:
        offered = {t.name for t in conn.tools}
        for tool in conn.tools:
            self._register_tool(conn, tool)
        # exposure decides what is declared: direct tools on, deferred ones off until tool_search
        mine = {n: r for n, r in self.tools.items() if r.server == conn.name}
        active = self.pi.get_active_tools()
        wanted = [
            n for n in active if n not in mine or (mine[n].exposure == "direct" and not mine[n].withdrawn)
        ]
        wanted += [
            n for n, r in mine.items() if r.exposure == "direct" and not r.withdrawn and n not in wanted
        ]
        if wanted != active:
            self.pi.set_active_tools(wanted)
        withdrawn = [
            name
            for name, reg in self.tools.items()
            if reg.server == conn.name and reg.tool not in offered and not reg.withdrawn
        ]
        for name in withdrawn:
            self.tools[name].withdrawn = True
        if withdrawn:
            active = self.pi.get_active_tools()
            self.pi.set_active_tools([n for n in active if n not in withdrawn])
        if conn.has_resources:
            self._register_resource_tools()
        if any(r.exposure == "deferred" and not r.withdrawn for r in self.tools.values()):
            self._register_search_tool()

    async def _tools_changed(self, conn: McpConnection) -> None:
        self._register_server(conn)

    def _register_tool(self, conn: McpConnection, tool: mcp_types.Tool) -> None:
        exposure = effective_exposure(tool_exposure(conn.entry.config, tool.name))
        if exposure == "hidden":
            for reg in self.tools.values():
                if (reg.server, reg.tool) == (conn.name, tool.name):
                    reg.withdrawn = True
            return
        existing = next(
            (n for n, r in self.tools.items() if (r.server, r.tool) == (conn.name, tool.name)), None
        )
        name = existing or tool_name(
            conn.name,
            tool.name,
            lambda n: (
                n in self.tools and (self.tools[n].server, self.tools[n].tool) != (conn.name, tool.name)
            ),
        )
        was_active = name in self.pi.get_active_tools()
        self.tools[name] = RegisteredTool(conn.name, tool.name, exposure)
        server, remote = conn.name, tool.name

        async def execute(
            call_id: str,
            params: Any,
            signal: AbortSignal | None,
            on_update: Any,
            ctx: ExtensionContext,
        ) -> AgentToolResult:
            return await self._call_tool(name, server, remote, params, signal)

        title = tool.title or (tool.annotations.title if tool.annotations else None)
        self.pi.register_tool(
            ToolDefinition(
                name=name,
                description=(tool.description or "").strip()
                or title
                or f"MCP tool {remote} from server {server}",
                parameters=_object_schema(tool.input_schema),
                execute=execute,
                label=f"{server}/{remote}",
                default_active=exposure == "direct" or was_active,
            )
        )

    async def _call_tool(
        self, name: str, server: str, tool: str, params: Any, signal: AbortSignal | None
    ) -> AgentToolResult:
        reg = self.tools.get(name)
        if reg is None or reg.withdrawn:
            raise ToolError(f'MCP server "{server}" no longer offers the tool "{tool}"')
        conn = self.connections[server]
        arguments = dict(params) if isinstance(params, dict) else {}
        try:
            result = await _abortable(
                conn.call(
                    lambda s: s.call_tool(tool, arguments, read_timeout_seconds=conn.entry.config.timeout_s)
                ),
                signal,
            )
        except ServerUnavailable as exc:
            raise ToolError(str(exc)) from None
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - protocol errors are the call's result, not a crash
            raise ToolError(f"MCP tool {server}/{tool} failed: {_error_text(exc)}") from None
        return to_tool_result(server, tool, result, readable_resources=conn.has_resources)

    # ------------------------------------------------------------------ tool_search
    def _register_search_tool(self) -> None:
        if self._search_tool:
            return
        self._search_tool = True

        async def execute(
            call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
        ) -> AgentToolResult:
            await self.wait_for()
            return self.search(str(params.get("query", "")), int(params.get("limit") or SEARCH_LIMIT))

        self.pi.register_tool(
            ToolDefinition(
                name=TOOL_SEARCH,
                description=(
                    "Search the tools of connected MCP servers that are not declared yet. Matching tools are "
                    "declared for your next request; call them then."
                ),
                parameters={
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "Words describing the tool you need"},
                        "limit": {
                            "type": "integer",
                            "description": f"Most tools to load (default {SEARCH_LIMIT})",
                        },
                    },
                    "required": ["query"],
                },
                execute=execute,
                label="tool search",
            )
        )

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> AgentToolResult:
        words = [w for w in re.split(r"[^a-z0-9]+", query.lower()) if w]
        scored: list[tuple[int, str]] = []
        for name, reg in self.tools.items():
            if reg.withdrawn or reg.exposure != "deferred":
                continue
            conn = self.connections[reg.server]
            tool = next((t for t in conn.tools if t.name == reg.tool), None)
            haystack = " ".join(
                [
                    name,
                    reg.tool,
                    reg.server,
                    (tool.description or "") if tool else "",
                    conn.entry.config.description or "",
                ]
            ).lower()
            score = sum(haystack.count(w) for w in words)
            if score:
                scored.append((score, name))
        found = [n for _, n in sorted(scored, key=lambda x: (-x[0], x[1]))[: max(1, limit)]]
        if not found:
            return AgentToolResult.text(f'No MCP tools match "{query}".')
        active = self.pi.get_active_tools()
        self.searched.update(found)
        self.pi.set_active_tools([*active, *(n for n in found if n not in active)])
        lines = []
        for n in found:
            reg = self.tools[n]
            tool = next((t for t in self.connections[reg.server].tools if t.name == reg.tool), None)
            lines.append(
                f"- {n}: {(tool.description or '').strip().splitlines()[0] if tool and tool.description else ''}"
            )
        return AgentToolResult.text("Loaded for your next request:\n" + "\n".join(lines), {"tools": found})

    # ------------------------------------------------------------------ resources
    def _register_resource_tools(self) -> None:
        if self._resource_tools:
            return
        self._resource_tools = True
        active = any(
            c.has_resources and effective_exposure(c.entry.config.exposure) == "direct"
            for c in self.connections.values()
        )
        server_prop = {"type": "string", "description": "The MCP server name"}
        self.pi.register_tool(
            ToolDefinition(
                name=LIST_RESOURCES,
                description=(
                    "List the resources of MCP servers as JSON. With server, one page of that server "
                    "(cursor continues); without, every resource of every server."
                ),
                parameters={
                    "type": "object",
                    "properties": {"server": server_prop, "cursor": {"type": "string"}},
                },
                execute=lambda cid, p, s, u, c: self._list(p, templates=False),
                label="MCP resources",
                default_active=active,
            )
        )
        self.pi.register_tool(
            ToolDefinition(
                name=LIST_TEMPLATES,
                description="List the resource URI templates of MCP servers as JSON.",
                parameters={
                    "type": "object",
                    "properties": {"server": server_prop, "cursor": {"type": "string"}},
                },
                execute=lambda cid, p, s, u, c: self._list(p, templates=True),
                label="MCP resource templates",
                default_active=active,
            )
        )
        self.pi.register_tool(
            ToolDefinition(
                name=READ_RESOURCE_TOOL,
                description="Read an MCP resource by server and uri.",
                parameters={
                    "type": "object",
                    "properties": {"server": server_prop, "uri": {"type": "string"}},
                    "required": ["server", "uri"],
                },
                execute=lambda cid, p, s, u, c: self._read(p),
                label="read MCP resource",
                default_active=active,
            )
        )

    def _resource_servers(self, server: str | None) -> list[McpConnection]:
        if server is not None:
            conn = self.connections.get(server)
            if conn is None or not conn.entry.enabled:
                raise ToolError(f'Unknown MCP server "{server}"')
            return [conn]
        return [c for c in self.connections.values() if c.entry.enabled and c.has_resources]

    async def _list(self, params: dict[str, Any], *, templates: bool) -> AgentToolResult:
        import mcp_types

        await self.wait_for()
        server = params.get("server")
        cursor = params.get("cursor")
        key = "resourceTemplates" if templates else "resources"
        items: list[dict[str, Any]] = []
        next_cursor: str | None = None
        for conn in self._resource_servers(server):
            page_cursor = cursor if server else None
            while True:
                req = mcp_types.PaginatedRequestParams(cursor=page_cursor) if page_cursor else None

                async def fetch(session: ClientSession, r: Any = req) -> Any:
                    if templates:
                        return await session.list_resource_templates(params=r)
                    return await session.list_resources(params=r)

                try:
                    page: Any = await conn.call(fetch)
                    found = page.resource_templates if templates else page.resources
                except ServerUnavailable as exc:
                    if server:
                        raise ToolError(str(exc)) from None
                    break
                except Exception as exc:  # noqa: BLE001
                    raise ToolError(f"MCP server {conn.name}: {_error_text(exc)}") from None
                for item in found:
                    data = item.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"icons"})
                    uri = str(data.get("uri") or data.get("uriTemplate") or "")
                    if uri.startswith("ui://") or "profile=mcp-app" in str(data.get("mimeType", "")):
                        continue
                    items.append({"server": conn.name, **data})
                if server:  # one page
                    next_cursor = page.next_cursor
                    break
                page_cursor = page.next_cursor
                if not page_cursor:
                    break
        out: dict[str, Any] = {**({"server": server} if server else {}), key: items}
        if next_cursor:
            out["nextCursor"] = next_cursor
        return AgentToolResult.text(json.dumps(out, indent=2, ensure_ascii=False))

    async def _read(self, params: dict[str, Any]) -> AgentToolResult:
        await self.wait_for()
        server, uri = str(params.get("server", "")), str(params.get("uri", ""))
        conn = self._resource_servers(server)[0]
        try:
            result = await conn.call(lambda s: s.read_resource(uri))
        except ServerUnavailable as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001
            raise ToolError(f"MCP server {server}: {_error_text(exc)}") from None
        content = resource_contents(result.contents)
        return AgentToolResult(
            content=content or [TextContent(text="(empty resource)")], details={"server": server, "uri": uri}
        )


def _object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """An MCP input schema as a tool's parameters (always an object schema)."""
    out = dict(schema or {})
    if out.get("type") != "object":
        out["type"] = "object"
    out.setdefault("properties", {})
    return out


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _error_text(exc.exceptions[0])
    message = getattr(getattr(exc, "error", None), "message", None)
    return str(message or exc) or type(exc).__name__


async def _abortable(coro: Any, signal: AbortSignal | None) -> Any:
    """Await ``coro``; an abort cancels it (the SDK then tells the server the request is cancelled)."""
    task = asyncio.ensure_future(coro)
    if signal is None:
        return await task
    if signal.aborted:
        task.cancel()
        raise ToolError("Aborted")
    remove = signal.add_listener(task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if signal.aborted:
            raise ToolError("Aborted") from None
        raise
    finally:
        remove()
        with contextlib.suppress(Exception):
            task.exception() if task.done() and not task.cancelled() else None
