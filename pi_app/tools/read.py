"""The ``read`` tool: text files with offset/limit and head truncation, images as image blocks."""

from __future__ import annotations

import base64
import errno
import os
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, ToolError
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, TextContent
from pi_app.tools.common import check_abort, node_error, opt_int, req_str
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_read_path
from pi_app.tools.truncate import format_size, truncate_head, utf8_len

IMAGE_SNIFF_BYTES = 4100
NOT_RESIZED_NOTE = "[Image sent at its original size: no image library is available to resize it.]"


def sniff_image_mime(head: bytes) -> str | None:
    """The MIME type of a supported image format from its magic bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ReadTool(AgentTool):
    name = "read"
    label = "read"
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File to read, absolute or relative to the working directory",
            },
            "offset": {"type": "number", "description": "First line to return, counting from 1"},
            "limit": {"type": "number", "description": "How many lines to return at most"},
        },
        "required": ["path"],
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()
        lim = self.options.limits_for("read")
        self.description = (
            "Show a file's contents. Text comes back as-is, cut off after "
            f"{lim.max_lines} lines or {lim.max_bytes // 1024}KB, whichever comes first; page through long "
            "files with offset and limit until you have what you need. Images (png, jpeg, gif, webp) are "
            "returned as image attachments."
        )

    async def execute(
        self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None = None, on_update=None
    ) -> AgentToolResult:
        path = req_str(params, "path")
        offset = opt_int(params, "offset")
        limit = opt_int(params, "limit")
        abs_path = resolve_read_path(path, self.cwd)
        check_abort(signal)
        try:
            os.stat(abs_path)
            if not os.access(abs_path, os.R_OK):
                raise PermissionError(errno.EACCES, "Permission denied")
        except OSError as exc:
            raise node_error(exc, "access", abs_path) from None
        try:
            with open(abs_path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise node_error(exc, "read", None) from None
        check_abort(signal)

        mime = sniff_image_mime(data[:IMAGE_SNIFF_BYTES])
        if mime is not None:
            note = f"Read image file [{mime}]"
            if self.options.auto_resize_images:
                note += "\n" + NOT_RESIZED_NOTE
            image = ImageContent(data=base64.b64encode(data).decode("ascii"), mimeType=mime)
            return AgentToolResult(content=[TextContent(text=note), image])
        return AgentToolResult(**self._read_text(path, data.decode("utf-8", "replace"), offset, limit))

    def _read_text(self, path: str, text: str, offset: int | None, limit: int | None) -> dict[str, Any]:
        lim = self.options.limits_for("read")
        lines = text.split("\n")
        total = len(lines)
        start = max(0, offset - 1) if offset else 0
        if start >= total:
            raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
        user_limited: int | None = None
        if limit is not None:
            end = min(start + max(limit, 0), total)
            selected = "\n".join(lines[start:end])
            user_limited = end - start
        else:
            selected = "\n".join(lines[start:])
        tr = truncate_head(selected, lim.max_lines, lim.max_bytes)
        first = start + 1
        details = None
        if tr.firstLineExceedsLimit:
            size = format_size(utf8_len(lines[start]))
            out = (
                f"[Line {first} is {size}, exceeds {format_size(lim.max_bytes)} limit. "
                f"Use bash: sed -n '{first}p' {path} | head -c {lim.max_bytes}]"
            )
            details = {"truncation": tr.to_json()}
        elif tr.truncated:
            last = first + tr.outputLines - 1
            if tr.truncatedBy == "lines":
                notice = f"[Showing lines {first}-{last} of {total}. Use offset={last + 1} to continue.]"
            else:
                notice = (
                    f"[Showing lines {first}-{last} of {total} ({format_size(lim.max_bytes)} limit). "
                    f"Use offset={last + 1} to continue.]"
                )
            out = f"{tr.content}\n\n{notice}"
            details = {"truncation": tr.to_json()}
        elif user_limited is not None and start + user_limited < total:
            remaining = total - (start + user_limited)
            out = f"{tr.content}\n\n[{remaining} more lines in file. Use offset={start + user_limited + 1} to continue.]"
        else:
            out = tr.content
        return {"content": [TextContent(text=out)], "details": details}
