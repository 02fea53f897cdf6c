"""MCP tool names and results as the model sees them (pure functions over the SDK's result types).

Text over 20 KB keeps its start and end with the middle cut out (pi's and Codex's format) and the full
text is saved to a temp file named in the result; images pass through; embedded text resources become
text; binary resources are saved to temp files; resource links name ``read_mcp_resource``. A result with
no content blocks but ``structuredContent`` becomes its JSON.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi_app.agent.tool import AgentToolResult, ToolContent, ToolError
from pi_app.ai.types import ImageContent, TextContent
from pi_app.tools.truncate import format_size

if TYPE_CHECKING:
    import mcp_types

MAX_TOOL_NAME_LENGTH = 64  # providers accept up to 64 characters of [A-Za-z0-9_-]
MCP_OUTPUT_MAX_BYTES = 20 * 1024
READ_RESOURCE_TOOL = "read_mcp_resource"
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def tool_name(server: str, tool: str, is_taken: Callable[[str], bool] = lambda _: False) -> str:
    """``mcp__<server>__<tool>`` with every character but ``[A-Za-z0-9_]`` made ``_``; a name that is too
    long or already used by another MCP tool (``a-b`` and ``a_b``) gets an 8-hex hash suffix."""
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME_LENGTH and not is_taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME_LENGTH - len(digest) - 1]}_{digest}"


def truncate_middle(text: str, max_bytes: int = MCP_OUTPUT_MAX_BYTES) -> tuple[str, int, int] | None:
    """(text with its middle replaced by ``…N chars truncated…``, total bytes, total lines); None when
    ``text`` fits. Cuts on character boundaries, half of ``max_bytes`` on each side."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return None

    def boundary(i: int) -> bool:
        return i >= len(data) or (data[i] & 0xC0) != 0x80

    head_end = max_bytes // 2
    while head_end > 0 and not boundary(head_end):
        head_end -= 1
    tail_start = len(data) - (max_bytes - max_bytes // 2)
    while tail_start < len(data) and not boundary(tail_start):
        tail_start += 1
    removed = len(data[head_end:tail_start].decode("utf-8", "surrogatepass"))
    head = data[:head_end].decode("utf-8", "surrogatepass")
    tail = data[tail_start:].decode("utf-8", "surrogatepass")
    lines = text.count("\n") + 1 - (1 if text.endswith("\n") else 0)
    return f"{head}…{removed} chars truncated…{tail}", len(data), lines


def save_temp(data: bytes, suffix: str) -> str:
    """Write ``data`` to a new temp file the model can read; returns its path."""
    with tempfile.NamedTemporaryFile(prefix="pi-mcp-", suffix=suffix, delete=False) as f:
        f.write(data)
        return f.name


def limit_content(
    content: list[ToolContent], save: Callable[[bytes, str], str] = save_temp
) -> tuple[list[ToolContent], str | None]:
    """(content within the output limit, path of the saved full text when it was cut)."""
    combined = "\n".join(c.text for c in content if isinstance(c, TextContent))
    cut = truncate_middle(combined)
    if cut is None:
        return content, None
    body, total_bytes, total_lines = cut
    path: str | None = None
    try:
        path = save(combined.encode("utf-8", "surrogatepass"), ".txt")
        where = f"\n\n[Full output: {path} (read it with offset/limit)]"
    except OSError as exc:
        where = f"\n\n[Could not save the full output: {exc.strerror or exc}]"
    tokens = -(-total_bytes // 4)
    text = (
        f"Warning: truncated output (original token count: {tokens})\n"
        f"Total output lines: {total_lines}\n\n{body}{where}"
    )
    return [TextContent(text=text), *(c for c in content if isinstance(c, ImageContent))], path


def _is_text_mime(mime: str | None) -> bool:
    if not mime:
        return False
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))


def _suffix_of(uri: str) -> str:
    match = re.search(r"\.[A-Za-z0-9]{1,8}$", uri.split("?", 1)[0])
    return match.group(0) if match else ".bin"


def resource_contents(
    contents: Sequence[mcp_types.TextResourceContents | mcp_types.BlobResourceContents],
    save: Callable[[bytes, str], str] = save_temp,
) -> list[ToolContent]:
    """Read or embedded resource contents: text as text, images as images, other binaries saved."""
    import mcp_types

    out: list[ToolContent] = []
    for item in contents:
        if isinstance(item, mcp_types.TextResourceContents):
            out.append(TextContent(text=item.text))
            continue
        mime = item.mime_type
        if mime and mime.startswith("image/"):
            out.append(ImageContent(data=item.blob, mimeType=mime))
            continue
        data = base64.b64decode(item.blob)
        if _is_text_mime(mime):
            out.append(TextContent(text=data.decode("utf-8", "replace")))
            continue
        kind = f"{mime or 'unknown type'}, {format_size(len(data))}"
        try:
            path = save(data, _suffix_of(str(item.uri)))
            out.append(TextContent(text=f"[Binary resource {item.uri} ({kind}) saved to {path}]"))
        except OSError as exc:
            out.append(TextContent(text=f"[Binary resource {item.uri} ({kind}) could not be saved: {exc}]"))
    return out


def block_content(server: str, block: Any, readable_resources: bool) -> list[ToolContent]:
    import mcp_types

    if isinstance(block, mcp_types.TextContent):
        return [TextContent(text=block.text)]
    if isinstance(block, mcp_types.ImageContent):
        return [ImageContent(data=block.data, mimeType=block.mime_type)]
    if isinstance(block, mcp_types.AudioContent):
        return [TextContent(text=f"[audio {block.mime_type} omitted]")]
    if isinstance(block, mcp_types.ResourceLink):
        details = ", ".join(
            p for p in (block.mime_type, None if block.size is None else format_size(block.size)) if p
        )
        read = f'. Read it with {READ_RESOURCE_TOOL} (server "{server}")' if readable_resources else ""
        description = f": {block.description}" if block.description else ""
        label = block.title or block.name
        return [
            TextContent(
                text=f'[Resource {block.uri} "{label}"{f" ({details})" if details else ""}{description}{read}]'
            )
        ]
    if isinstance(block, mcp_types.EmbeddedResource):
        return resource_contents([block.resource])
    return [TextContent(text=f"[unsupported MCP content {getattr(block, 'type', '?')}]")]


def to_tool_result(
    server: str, tool: str, result: mcp_types.CallToolResult, *, readable_resources: bool = False
) -> AgentToolResult:
    """The model-facing result; ``isError`` raises ToolError so the loop reports an error result."""
    content: list[ToolContent] = [
        c for block in result.content for c in block_content(server, block, readable_resources)
    ]
    if not result.content and result.structured_content is not None:
        content = [TextContent(text=json.dumps(result.structured_content, indent=2, ensure_ascii=False))]
    if result.is_error:
        text = "\n".join(c.text for c in content if isinstance(c, TextContent)).strip()
        raise ToolError(text or f"MCP tool {server}/{tool} returned an error")
    content, full_path = limit_content(content)
    details: dict[str, Any] = {"server": server, "tool": tool}
    if full_path:
        details["fullOutputPath"] = full_path
    if result.structured_content is not None:
        details["structuredContent"] = result.structured_content
    return AgentToolResult(content=content, details=details)
