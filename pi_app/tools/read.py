"""The ``read`` tool: text files with offset/limit and head truncation, images as image blocks."""

from __future__ import annotations

import errno
import os
import stat
import threading
from dataclasses import dataclass
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, TextContent
from pi_app.tools.common import check_abort, node_error, opt_int, req_str
from pi_app.tools.fsutil import check_regular, check_stop, open_regular, run_off_loop
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_read_path
from pi_app.tools.textscan import TextScan, TextScanner
from pi_app.tools.truncate import format_size

IMAGE_SNIFF_BYTES = 4100
READ_CHUNK = 1 << 20
#: Past this size an image file is refused, not loaded (resizing happens after loading).
MAX_IMAGE_BYTES = 20 * 1024 * 1024


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
    if head.startswith(b"BM") and len(head) >= 26:
        return "image/bmp"  # converted to PNG before it is sent
    return None


@dataclass
class _Image:
    """A file the read tool recognised as an image: its sniffed MIME type and raw bytes."""

    mime: str
    data: bytes


def _read_full(fd: int, size: int) -> bytes:
    buf = bytearray()
    while len(buf) < size:
        chunk = os.read(fd, size - len(buf))
        if not chunk:
            break
        buf += chunk
    return bytes(buf)


def _next_data(fd: int, pos: int) -> int:
    """Where data resumes at or after ``pos`` (holes in sparse files read as zeros, so they are counted,
    not read); ``pos`` itself when the file system cannot tell."""
    try:
        return os.lseek(fd, pos, os.SEEK_DATA)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # only a hole (or nothing) left up to the end of the file
            return max(pos, os.fstat(fd).st_size)
        return pos


def _load(
    abs_path: str, start: int, limit: int | None, max_lines: int, max_bytes: int, stop: threading.Event
) -> _Image | TextScan:
    """Open and read ``abs_path`` (in a worker thread): an image whole, text only as far as the limits.

    Error texts follow pi (Node's ``access`` then ``read`` errors); FIFOs, sockets and devices are refused
    before anything could block or stream forever."""
    try:
        st = os.stat(abs_path)
        if not os.access(abs_path, os.R_OK):
            raise PermissionError(errno.EACCES, "Permission denied")
    except OSError as exc:
        raise node_error(exc, "access", abs_path) from None
    check_regular(st, abs_path)
    if stat.S_ISDIR(st.st_mode):
        raise node_error(IsADirectoryError(errno.EISDIR, "Is a directory"), "read", None)
    try:
        fd = open_regular(abs_path, shown=abs_path)
    except OSError as exc:
        raise node_error(exc, "read", None) from None
    try:
        head = _read_full(fd, IMAGE_SNIFF_BYTES)
        mime = sniff_image_mime(head)
        if mime is not None:
            size = os.fstat(fd).st_size
            if size > MAX_IMAGE_BYTES:
                raise ToolError(
                    f"Image file too large: {abs_path} ({format_size(size)}, "
                    f"limit {format_size(MAX_IMAGE_BYTES)})"
                )
            rest = _read_full(fd, MAX_IMAGE_BYTES + 1 - len(head))
            return _Image(mime, head + rest)
        scanner = TextScanner(start, limit, max_lines, max_bytes)
        scanner.feed(head)
        pos = len(head)
        while True:
            check_stop(stop)
            data_at = _next_data(fd, pos)
            if data_at > pos:
                scanner.feed_zeros(data_at - pos)
                pos = data_at
            chunk = os.pread(fd, READ_CHUNK, pos)
            if not chunk:
                return scanner.finish()
            scanner.feed(chunk)
            pos += len(chunk)
    except OSError as exc:
        raise node_error(exc, "read", None) from None
    finally:
        os.close(fd)


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
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        path = req_str(params, "path")
        offset = opt_int(params, "offset")
        limit = opt_int(params, "limit")
        abs_path = resolve_read_path(path, self.cwd)
        check_abort(signal)
        lim = self.options.limits_for("read")
        start = max(0, offset - 1) if offset else 0
        loaded = await run_off_loop(
            lambda stop: _load(abs_path, start, limit, lim.max_lines, lim.max_bytes, stop), signal
        )
        check_abort(signal)
        if isinstance(loaded, _Image):
            return await self._read_image(loaded, signal)
        return AgentToolResult(**self._read_text(path, loaded, offset, start, limit))

    async def _read_image(self, loaded: _Image, signal: AbortSignal | None) -> AgentToolResult:
        """pi's text and image block: converted and resized as the settings say (in a worker thread)."""
        import asyncio

        from pi_app.tools.images import ImageRefused, prepare_image

        auto = self.options.auto_resize_images
        limits = self.options.image_limits() if self.options.image_limits else None  # the model's, as pi
        prepared = await asyncio.to_thread(
            prepare_image, loaded.data, loaded.mime, auto_resize=auto, limits=limits
        )
        check_abort(signal)
        if isinstance(prepared, ImageRefused):
            return AgentToolResult(
                content=[TextContent(text=f"Read image file [{loaded.mime}]\n{prepared.message}")]
            )
        note = "\n".join([f"Read image file [{prepared.mime}]", *prepared.hints])
        image = ImageContent(data=prepared.data, mimeType=prepared.mime)
        return AgentToolResult(content=[TextContent(text=note), image])

    def _read_text(
        self, path: str, scan: TextScan, offset: int | None, start: int, limit: int | None
    ) -> dict[str, Any]:
        lim = self.options.limits_for("read")
        total = scan.total_lines
        if start >= total:
            raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
        user_limited = min(start + max(limit, 0), total) - start if limit is not None else None
        tr = scan.truncation(lim.max_lines, lim.max_bytes)
        first = start + 1
        details = None
        if tr.firstLineExceedsLimit:
            size = format_size(scan.first_line_bytes)
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
