"""What a tool box shows, as pure functions: a tool presenter's header, body form and warnings drawn
as :class:`textual.content.Content` styled with ``$pi-*`` theme variables, plus collapsed previews.

Which tool looks how is decided in :mod:`pi_app.tools.presenters` (keyed by tool name, shared with the HTML
export and the tree browser); this module only draws the shared forms.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content

from pi_app.tools.presenters import Header, Role, Span, ToolResultData, presenter_for, str_arg
from widgets.diff_render import edit_args_diff, render_diff
from widgets.footer_format import shorten_home, to_fixed
from widgets.syntax import highlight_code, language_for_path

__all__ = [
    "EXPAND_KEY",
    "ToolResultData",
    "format_tool",
    "format_tool_duration",
    "header_content",
    "tool_body",
    "tool_header",
]

EXPAND_KEY = "ctrl+o"

TITLE = "$pi-tool-title bold"
OUTPUT = "$pi-tool-output"
ACCENT = "$pi-accent"
WARNING = "$pi-warning"
MUTED = "$pi-muted"
ERROR = "$pi-error"


_ROLE_STYLE: dict[Role, str] = {
    "title": TITLE,
    "accent": ACCENT,
    "warning": WARNING,
    "output": OUTPUT,
    "muted": MUTED,
    "error": ERROR,
}


def header_content(header: Header) -> Content:
    """A presenter's header line as Content styled with the ``$pi-*`` theme variables."""
    line = _spans(header.spans)
    if header.base is not None:
        line = line.stylize_before(_ROLE_STYLE[header.base])
    return line + _spans(header.tail) if header.tail else line


def _spans(spans: tuple[Span, ...]) -> Content:
    return Content.assemble(
        *(
            span.text if span.role is None else Content.styled(span.text, _ROLE_STYLE[span.role])
            for span in spans
        )
    )


def tool_header(
    name: str, args: dict[str, Any], home: str | None = None, first_changed_line: int | None = None
) -> Content:
    """The first line of a tool box, in pi's format (see :mod:`pi_app.tools.presenters`)."""
    header = presenter_for(name).header(args or {}, lambda path: shorten_home(path, home), first_changed_line)
    return header_content(header)


def format_tool_duration(seconds: float) -> str:
    """pi's tool timer: ``4.2s`` under a minute, then ``3m 5s``, then ``1h 2m 5s``."""
    if seconds < 60:
        return f"{to_fixed(seconds, 1)}s"
    total = int(seconds)
    minutes, rest = divmod(total, 60)
    if minutes < 60:
        return f"{minutes}m {rest}s"
    return f"{minutes // 60}h {minutes % 60}m {rest}s"


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


def _error_lines(result: ToolResultData | None) -> list[Content]:
    if result is None or not result.is_error or not result.output:
        return []
    return [Content.styled(result.output, ERROR)]


def tool_body(
    name: str,
    args: dict[str, Any],
    result: ToolResultData | None,
    expanded: bool,
    width: int | None = None,
) -> list[Content]:
    """Lines under the header (empty list when there is nothing to show yet), by the presenter's body form."""
    args = args or {}
    presenter = presenter_for(name)
    limit = presenter.preview_lines
    body: list[Content] = []
    match presenter.body:
        case "code_result" if result is not None:
            if result.is_error:
                body = [Content.styled(result.output, ERROR)]
            else:
                body = head_preview(_code_lines(result.output, presenter.code_path(args)), limit, expanded)
        case "code_args":
            content = str_arg(args.get("content"))
            if content is None:
                body = [Content.styled("[invalid content arg - expected string]", ERROR)]
            elif content:
                lines = _code_lines(content.replace("\r", ""), presenter.code_path(args))
                body = head_preview(lines, limit, expanded, total_note=f" {len(lines)} total,")
            errors = _error_lines(result)
            body += [Content(""), *errors] if body and errors else errors
        case "diff":
            if result is not None and result.is_error:
                body = _error_lines(result)
            elif result is not None and isinstance(result.details.get("diff"), str):
                body = render_diff(result.details["diff"]).split("\n")
            else:
                preview = edit_args_diff(args)
                body = render_diff(preview).split("\n") if preview else []
        case "tail" if result is not None:
            output = result.output.strip()
            if output:
                body = tail_preview(output, limit, expanded, width)
        case "plain" if result is not None:
            output = result.output.strip()
            if output:
                body = head_preview(_plain_lines(output), limit, expanded)
        case "args_json":
            if args:
                body = [Content(line) for line in json.dumps(args, indent=2, ensure_ascii=False).split("\n")]
            if result is not None and result.output:
                body.append(Content.styled(result.output, ERROR if result.is_error else OUTPUT))
    if result is not None:
        for warning in presenter.warnings(result.details):
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
    first_changed = None  # edit's details carry it; a presenter that has no use for it ignores it
    if result is not None and not result.is_error:
        first_changed = result.details.get("firstChangedLine")
    header = tool_header(name, args, home, first_changed)
    body = tool_body(name, args, result, expanded, width)
    if not body:
        return header
    return Content("\n").join([header, Content(""), *body])
