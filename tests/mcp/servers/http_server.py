"""A real MCP server over streamable HTTP on loopback (the SDK's MCPServer under uvicorn).

Usage: http_server.py <port> (0: any free port). Prints "PORT <n>" once it listens.
"""

from __future__ import annotations

import socket
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("test-http", instructions="An HTTP test server.")


@server.tool()
def whoami(ctx: Context) -> str:
    """The Authorization header this request came with."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", {}) or {}
    return headers.get("authorization", "<none>")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves them
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
