"""A real MCP server over stdio, written with the SDK's server side (MCPServer, v1's FastMCP).

It starts a grandchild (``sleep``) in its process group, as ``npx``/``uvx`` wrappers do, so tests can
check that stopping the server ends the whole group. ``MCP_TEST_PIDFILE`` receives "<server> <child>".
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63606060"
        "60000000050001a5f645400000000049454e44ae426082"
    )
).decode()  # a whole 1x1 PNG (tool images are decoded to be fitted to the model)

server = MCPServer("test-stdio", instructions="A test server.\nSecond line.")
child = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL)
if os.environ.get("MCP_TEST_PIDFILE"):
    with open(os.environ["MCP_TEST_PIDFILE"], "a") as f:
        f.write(f"{os.getpid()} {child.pid}\n")
print("test server started", file=sys.stderr, flush=True)


@server.tool()
async def echo(text: str, ctx: Context) -> str:
    """Echo the text back."""
    await ctx.info(f"echoing {text}")
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("this tool always fails")


@server.tool()
def picture() -> list[object]:
    """An image and a caption."""
    return ["a pixel", ImageContent(type="image", data=PNG, mime_type="image/png")]


@server.tool()
def big() -> str:
    """60 KB of text."""
    return "\n".join(f"line {i:05d} " + "x" * 50 for i in range(1000))


@server.tool()
def env_value(name: str) -> str:
    """An environment variable of the server."""
    return os.environ.get(name, "<unset>")


@server.tool()
def crash() -> str:
    """Exit the server at once (a dropped connection)."""
    os._exit(3)


@server.tool(name="weird-name.tool")
def weird() -> str:
    """A tool whose name needs sanitising."""
    return "weird"


async def extra() -> str:
    """A tool that appears after grow."""
    return "extra here"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool extra, withdraw fail, and announce the change."""
    server.add_tool(extra, name="extra")
    server.remove_tool("fail")
    await ctx.request_context.session.send_tool_list_changed()
    return "grown"


@server.resource("res://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello from a resource"


@server.resource("res://item/{item_id}")
def item(item_id: str) -> str:
    """An item by id."""
    return f"item {item_id}"


if __name__ == "__main__":
    server.run("stdio")
