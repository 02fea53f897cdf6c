"""What a tool box shows, as pure functions: pi's header formats, collapsed previews and warnings.

Everything returns :class:`textual.content.Content` styled with ``$pi-*`` theme variables.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from textual.content import Content

from widgets.diff_render import edit_args_diff, render_diff
from widgets.footer_format import format_size, shorten_home
from widgets.syntax import highlight_code, language_for_path

EXPAND_KEY = "ctrl+o"
DEFAULT_MAX_BYTES = 50 * 1024
DEFAULT_MAX_LINES = 2000
PREVIEW_LINES = {"read": 10, "write": 10, "bash": 5, "ls": 20, "find": 20, "grep": 15}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)")

TITLE = "$pi-tool-title bold"
OUTPUT = "$pi-tool-output"
ACCENT = "$pi-accent"
WARNING = "$pi-warning"
MUTED = "$pi-muted"
ERROR = "$pi-error"


@dataclass
class ToolResultData:
    """The parts of a tool result the box renders (from a ToolResultMessage or a partial update)."""

    text: str = ""
    is_error: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    image_notes: list[str] = field(default_factory=list)

    @classmethod
    def from_content(cls, content: list[Any], details: Any = None, is_error: bool = False) -> ToolResultData:
        texts: list[str] = []
        images: list[str] = []
        for block in content or []:
            kind = getattr(block, "type", None) if not isinstance(block, dict) else block.get("type")
            if kind == "text":
                raw = block.get("text", "") if isinstance(block, dict) else block.text
                texts.append(_ANSI.sub("", raw or "").replace("\r", ""))
            elif kind == "image":
                mime = block.get("mimeType", "") if isinstance(block, dict) else block.mimeType
                images.append(f"[Image: {mime}]")
        return cls("\n".join(texts), is_error, details if isinstance(details, dict) else {}, images)

    @property
    def output(self) -> str:
        if self.image_notes:
            return "\n".join([self.text, *self.image_notes]) if self.text else "\n".join(self.image_notes)
        return self.text


def _str_arg(value: Any) -> str | None:
    """pi's ``str()``: a string, ``""`` for missing, None for a wrong type."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return None


def _invalid() -> Content:
    return Content.styled("[invalid arg]", ERROR)


def _path_part(raw: str | None, home: str | None, default: str | None = None) -> Content:
    if raw is None:
        return _invalid()
    if not raw and default is None:
        return Content.styled("...", OUTPUT)
    return Content.styled(shorten_home(raw or default or "", home), ACCENT)


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def tool_header(
    name: str, args: dict[str, Any], home: str | None = None, first_changed_line: int | None = None
) -> Content:
    """The first line of a tool box, in pi's format for the built-in tools."""
    args = args or {}
    title = Content.styled(name, TITLE)
    if name == "read":
        part = _path_part(_str_arg(args.get("file_path", args.get("path"))), home)
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            start = offset if offset is not None else 1
            end = (
                f"-{_num(start + limit - 1)}"
                if isinstance(limit, int | float) and isinstance(start, int | float)
                else ""
            )
            part = part + Content.styled(f":{_num(start)}{end}", WARNING)
        return Content.assemble(title, " ", part)
    if name == "bash":
        command = _str_arg(args.get("command"))
        shown: Content | str = _invalid() if command is None else (command or Content.styled("...", OUTPUT))
        head = Content.assemble("$ ", shown).stylize_before(TITLE)
        timeout = args.get("timeout")
        if timeout:
            head = head + Content.styled(f" (timeout {_num(timeout)}s)", MUTED)
        return head
    if name == "write":
        return Content.assemble(
            title, " ", _path_part(_str_arg(args.get("file_path", args.get("path"))), home)
        )
    if name == "edit":
        part = _path_part(_str_arg(args.get("file_path", args.get("path"))), home)
        if first_changed_line:
            part = part + Content.styled(f":{first_changed_line}", WARNING)
        return Content.assemble(title, " ", part)
    if name == "ls":
        head = Content.assemble(title, " ", _path_part(_str_arg(args.get("path")), home, default="."))
        if args.get("limit") is not None:
            head = head + Content.styled(f" (limit {_num(args['limit'])})", OUTPUT)
        return head
    if name in ("find", "grep"):
        pattern = _str_arg(args.get("pattern"))
        if pattern is None:
            pat = _invalid()
        else:
            pat = Content.styled(f"/{pattern}/" if name == "grep" else pattern, ACCENT)
        raw = _str_arg(args.get("path"))
        where = Content.styled(" in ", OUTPUT) + (
            _invalid() if raw is None else Content.styled(shorten_home(raw or ".", home), OUTPUT)
        )
        head = Content.assemble(title, " ", pat, where)
        if name == "grep":
            glob = _str_arg(args.get("glob"))
            if glob:
                head = head + Content.styled(f" ({glob})", OUTPUT)
            if args.get("limit") is not None:
                head = head + Content.styled(f" limit {_num(args['limit'])}", OUTPUT)
        elif args.get("limit") is not None:
            head = head + Content.styled(f" (limit {_num(args['limit'])})", OUTPUT)
        return head
    return title


def expand_hint(text: str) -> Content:
    """``<text> ctrl+o to expand)`` with pi's muted/dim split."""
    return Content.assemble(
        Content.styled(text, MUTED),
        " ",
        Content.styled(EXPAND_KEY, "$pi-dim"),
        Content.styled(" to expand)", MUTED),
    )


def head_preview(lines: list[Content], limit: int, expanded: bool, total_note: str = "") -> list[Content]:
    """First ``limit`` lines plus ``... (N more lines, ctrl+o to expand)`` when collapsed."""
    if expanded or len(lines) <= limit:
        return list(lines)
    remaining = len(lines) - limit
    return [*lines[:limit], expand_hint(f"... ({remaining} more lines,{total_note}")]


def visual_lines(text: str, width: int | None) -> list[str]:
    """Split into lines, wrapping each at ``width`` cells when given (pi counts visual lines)."""
    from rich.cells import chop_cells

    out: list[str] = []
    for line in text.split("\n"):
        if width and width > 0 and len(line) > width:
            out.extend(chop_cells(line, width))
        else:
            out.append(line)
    return out


def tail_preview(text: str, limit: int, expanded: bool, width: int | None = None) -> list[Content]:
    """Last ``limit`` visual lines, preceded by ``... (N earlier lines, ctrl+o to expand)``."""
    lines = text.split("\n") if expanded else visual_lines(text, width)
    if expanded or len(lines) <= limit:
        return [Content.styled(line, OUTPUT) for line in lines]
    skipped = len(lines) - limit
    return [
        expand_hint(f"... ({skipped} earlier lines,"),
        *(Content.styled(line, OUTPUT) for line in lines[-limit:]),
    ]


def _plain_lines(text: str) -> list[Content]:
    return [Content.styled(line.replace("\t", "   "), OUTPUT) for line in text.split("\n")]


def _code_lines(text: str, path: str | None) -> list[Content]:
    language = language_for_path(path) if path else None
    if language:
        return highlight_code(text, language)
    return _plain_lines(text)


def _truncation_warnings(name: str, details: dict[str, Any]) -> list[str]:
    truncation = details.get("truncation") or {}
    limit_size = format_size(truncation.get("maxBytes") or DEFAULT_MAX_BYTES)
    if name == "read" and truncation.get("truncated"):
        if truncation.get("firstLineExceedsLimit"):
            return [f"[First line exceeds {limit_size} limit]"]
        if truncation.get("truncatedBy") == "lines":
            max_lines = truncation.get("maxLines") or DEFAULT_MAX_LINES
            return [
                f"[Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines "
                f"({max_lines} line limit)]"
            ]
        return [f"[Truncated: {truncation.get('outputLines')} lines shown ({limit_size} limit)]"]
    if name == "bash":
        parts: list[str] = []
        if details.get("fullOutputPath"):
            parts.append(f"Full output: {details['fullOutputPath']}")
        if truncation.get("truncated"):
            if truncation.get("truncatedBy") == "lines":
                parts.append(
                    f"Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines"
                )
            else:
                parts.append(f"Truncated: {truncation.get('outputLines')} lines shown ({limit_size} limit)")
        return [f"[{'. '.join(parts)}]"] if parts else []
    limit_key = {
        "ls": ("entryLimitReached", "entries"),
        "find": ("resultLimitReached", "results"),
        "grep": ("matchLimitReached", "matches"),
    }
    if name in limit_key:
        key, noun = limit_key[name]
        parts = []
        if details.get(key):
            parts.append(f"{details[key]} {noun} limit")
        if truncation.get("truncated"):
            parts.append(f"{limit_size} limit")
        if name == "grep" and details.get("linesTruncated"):
            parts.append("some lines truncated")
        return [f"[Truncated: {', '.join(parts)}]"] if parts else []
    return []


def tool_body(
    name: str,
    args: dict[str, Any],
    result: ToolResultData | None,
    expanded: bool,
    width: int | None = None,
) -> list[Content]:
    """Lines under the header (empty list when there is nothing to show yet)."""
    args = args or {}
    body: list[Content] = []
    path = _str_arg(args.get("file_path", args.get("path"))) or None
    if name == "read" and result is not None:
        if result.is_error:
            body = [Content.styled(result.output, ERROR)]
        else:
            body = head_preview(_code_lines(result.output, path), PREVIEW_LINES["read"], expanded)
    elif name == "write":
        content = _str_arg(args.get("content"))
        if content is None:
            body = [Content.styled("[invalid content arg - expected string]", ERROR)]
        elif content:
            lines = _code_lines(content.replace("\r", ""), path)
            body = head_preview(lines, PREVIEW_LINES["write"], expanded, total_note=f" {len(lines)} total,")
        if result is not None and result.is_error and result.output:
            body += (
                [Content(""), Content.styled(result.output, ERROR)]
                if body
                else [Content.styled(result.output, ERROR)]
            )
    elif name == "edit":
        if result is not None and result.is_error:
            body = [Content.styled(result.output, ERROR)] if result.output else []
        elif result is not None and isinstance(result.details.get("diff"), str):
            body = render_diff(result.details["diff"]).split("\n")
        else:
            preview = edit_args_diff(args)
            body = render_diff(preview).split("\n") if preview else []
    elif name == "bash" and result is not None:
        output = result.output.strip()
        if output:
            body = tail_preview(output, PREVIEW_LINES["bash"], expanded, width)
    elif name in ("ls", "find", "grep") and result is not None:
        output = result.output.strip()
        if output:
            body = head_preview(_plain_lines(output), PREVIEW_LINES[name], expanded)
    elif name not in PREVIEW_LINES:
        if args:
            body = [Content(line) for line in json.dumps(args, indent=2, ensure_ascii=False).split("\n")]
        if result is not None and result.output:
            body.append(Content.styled(result.output, ERROR if result.is_error else OUTPUT))
    if result is not None:
        for warning in _truncation_warnings(name, result.details):
            body.append(Content.styled(warning, WARNING))
    return body


def format_tool(
    name: str,
    args: dict[str, Any],
    result: ToolResultData | None = None,
    expanded: bool = False,
    home: str | None = None,
    width: int | None = None,
) -> Content:
    """The whole box text: header, a blank line, then the body."""
    first_changed = None
    if name == "edit" and result is not None and not result.is_error:
        first_changed = result.details.get("firstChangedLine")
    header = tool_header(name, args, home, first_changed)
    body = tool_body(name, args, result, expanded, width)
    if not body:
        return header
    return Content("\n").join([header, Content(""), *body])
