"""Output truncation shared by every tool (pure functions, byte counts in UTF-8 like pi).

Two independent limits, whichever is hit first wins: lines and bytes. Head truncation keeps whole leading
lines (file reads); tail truncation keeps whole trailing lines (command output), except that a single
oversized last line is cut to its UTF-8-safe tail.
"""

from __future__ import annotations

from typing import Any, Literal

from pi_app.ai.types import WireModel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


class TruncationResult(WireModel):
    """pi's TruncationResult, field for field (it is stored in tool result details)."""

    content: str
    truncated: bool
    truncatedBy: TruncatedBy | None
    totalLines: int
    totalBytes: int
    outputLines: int
    outputBytes: int
    lastLinePartial: bool = False
    firstLineExceedsLimit: bool = False
    maxLines: int = DEFAULT_MAX_LINES
    maxBytes: int = DEFAULT_MAX_BYTES

    def to_json(self) -> dict[str, Any]:
        """pi's JSON shape (``truncatedBy: null`` kept, unlike :func:`pi_app.ai.types.dump`)."""
        return self.model_dump(mode="json")


def utf8_len(text: str) -> int:
    # surrogatepass: lone surrogates (from odd JSON) must be countable, not crash the tool
    return len(text.encode("utf-8", "surrogatepass"))


def format_size(num_bytes: int) -> str:
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def _untruncated(
    content: str, total_lines: int, total_bytes: int, max_lines: int, max_bytes: int
) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncatedBy=None,
        totalLines=total_lines,
        totalBytes=total_bytes,
        outputLines=total_lines,
        outputBytes=total_bytes,
        maxLines=max_lines,
        maxBytes=max_bytes,
    )


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first whole lines that fit. A first line larger than ``max_bytes`` yields empty content."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    if utf8_len(lines[0]) > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncatedBy="bytes",
            totalLines=total_lines,
            totalBytes=total_bytes,
            outputLines=0,
            outputBytes=0,
            firstLineExceedsLimit=True,
            maxLines=max_lines,
            maxBytes=max_bytes,
        )

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for i, line in enumerate(lines[:max_lines]):
        cost = utf8_len(line) + (1 if i > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    out = "\n".join(kept)
    return TruncationResult(
        content=out,
        truncated=True,
        truncatedBy=truncated_by,
        totalLines=total_lines,
        totalBytes=total_bytes,
        outputLines=len(kept),
        outputBytes=utf8_len(out),
        maxLines=max_lines,
        maxBytes=max_bytes,
    )


def tail_bytes_utf8(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` of at most ``max_bytes`` UTF-8 bytes, never splitting a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "surrogatepass")


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the last whole lines that fit; an oversized last line is cut to its tail (``lastLinePartial``)."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    last_line_partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                part = tail_bytes_utf8(line, max_bytes)
                kept.append(part)
                used = utf8_len(part)
                last_line_partial = True
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    kept.reverse()
    out = "\n".join(kept)
    return TruncationResult(
        content=out,
        truncated=True,
        truncatedBy=truncated_by,
        totalLines=total_lines,
        totalBytes=total_bytes,
        outputLines=len(kept),
        outputBytes=utf8_len(out),
        lastLinePartial=last_line_partial,
        maxLines=max_lines,
        maxBytes=max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters with pi's ``... [truncated]`` marker."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
