"""How a tool call and its result are presented, keyed by tool name — no Textual, no HTML.

One :class:`ToolPresenter` per built-in tool, :data:`DEFAULT_PRESENTER` for any other name, and
:func:`register_tool_presenter` for extension tools. Front ends read the same answers and draw them their
own way: the tool panel (``widgets/tool_format.py``) as Textual ``Content``, the HTML export
(``pi_app/session/export/render.py``) as HTML, the tree browser as one line of text.

A presenter answers:
- ``header(args, shorten, first_changed_line)``: the box's first line as :class:`Span` s with a semantic
  role (``"title"``, ``"accent"``, ...) that each front end maps to its own colours;
- ``summary(args, shorten)``: pi's bracketed one-line form, ``[read: ~/a.py:5-14]``;
- ``body``: which of the shared body forms shows the call (:data:`BodyKind`), with ``preview_lines``;
- ``code_path(args)``: the path whose extension picks the highlighting language (None: plain text);
- ``warnings(details)``: pi's truncation notes under the output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

Role = Literal["title", "accent", "warning", "output", "muted", "error"]
BodyKind = Literal["code_result", "code_args", "diff", "tail", "plain", "args_json"]
Shorten = Callable[[str], str]

DEFAULT_MAX_BYTES = 50 * 1024
DEFAULT_MAX_LINES = 2000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)")


@dataclass(frozen=True)
class Span:
    """A piece of a header line; ``role`` None is unstyled text."""

    text: str
    role: Role | None = None


@dataclass(frozen=True)
class Header:
    """A header line; ``base`` styles ``spans`` underneath their own roles (bash's bold ``$ command``);
    ``tail`` follows without it."""

    spans: tuple[Span, ...]
    base: Role | None = None
    tail: tuple[Span, ...] = ()

    @property
    def plain(self) -> str:
        return "".join(span.text for span in (*self.spans, *self.tail))


@dataclass
class ToolResultData:
    """The parts of a tool result a presenter shows (from a ToolResultMessage, its JSON or a partial update)."""

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

    @classmethod
    def of(cls, result: Any, is_error: bool | None = None) -> ToolResultData:
        """Any tool result: an AgentToolResult, a ToolResultMessage, its JSON, or None (no output yet)."""
        if result is None:
            return cls("", bool(is_error))

        def get(name: str, default: Any = None) -> Any:
            return result.get(name, default) if isinstance(result, dict) else getattr(result, name, default)

        error = bool(get("isError", False)) if is_error is None else is_error
        return cls.from_content(get("content", []) or [], get("details"), error)

    @property
    def output(self) -> str:
        if self.image_notes:
            return "\n".join([self.text, *self.image_notes]) if self.text else "\n".join(self.image_notes)
        return self.text


# ---------------------------------------------------------------------------------------------- helpers
def str_arg(value: Any) -> str | None:
    """pi's ``str()``: a string, ``""`` for missing, None for a wrong type."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return None


def _path_of(args: Mapping[str, Any]) -> str | None:
    return str_arg(args.get("file_path", args.get("path")))


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _invalid() -> Span:
    return Span("[invalid arg]", "error")


def _path_span(raw: str | None, shorten: Shorten, default: str | None = None) -> Span:
    if raw is None:
        return _invalid()
    if not raw and default is None:
        return Span("...", "output")
    return Span(shorten(raw or default or ""), "accent")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _to_fixed1(value: float) -> str:
    """JavaScript ``toFixed(1)``: half away from zero on the exact binary value (``format`` rounds to even)."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def format_size(size: int) -> str:
    """pi's ``formatSize``: ``512B``, ``50.0KB``, ``1.5MB``."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_to_fixed1(size / 1024)}KB"
    return f"{_to_fixed1(size / (1024 * 1024))}MB"


def _limit_size(truncation: Mapping[str, Any]) -> str:
    return format_size(truncation.get("maxBytes") or DEFAULT_MAX_BYTES)


# ---------------------------------------------------------------------------------------------- presenters
@dataclass(frozen=True)
class ToolPresenter:
    """The default presentation (any tool without its own): the name, then the arguments as JSON."""

    name: str = ""
    body: BodyKind = "args_json"
    preview_lines: int = 10  # collapsed lines in the tool panel
    html_preview_lines: int = 10  # lines above the fold in the HTML export

    def header(
        self, args: Mapping[str, Any], shorten: Shorten, first_changed_line: int | None = None
    ) -> Header:
        return Header((Span(self.name, "title"),))

    def summary(self, args: Mapping[str, Any], shorten: Shorten) -> str:
        dumped = json.dumps(dict(args), ensure_ascii=False, separators=(",", ":"))
        return f"[{self.name}: {dumped[:40]}{'...' if len(dumped) > 40 else ''}]"

    def code_path(self, args: Mapping[str, Any]) -> str | None:
        return None

    def warnings(self, details: Mapping[str, Any]) -> list[str]:
        return []

    def named(self, name: str) -> ToolPresenter:
        """This presentation under another tool name (the default serves every unknown tool)."""
        return self if name == self.name else replace(self, name=name)


@dataclass(frozen=True)
class ReadPresenter(ToolPresenter):
    """read: the file path with the requested line range, the content highlighted, pi's truncation notes."""

    name: str = "read"
    body: BodyKind = "code_result"

    def header(
        self, args: Mapping[str, Any], shorten: Shorten, first_changed_line: int | None = None
    ) -> Header:
        spans = [Span("read", "title"), Span(" "), _path_span(_path_of(args), shorten)]
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            start = offset if offset is not None else 1
            end = (
                f"-{_num(start + limit - 1)}"
                if isinstance(limit, int | float) and isinstance(start, int | float)
                else ""
            )
            spans.append(Span(f":{_num(start)}{end}", "warning"))
        return Header(tuple(spans))

    def summary(self, args: Mapping[str, Any], shorten: Shorten) -> str:
        display = shorten(str(args.get("path") or args.get("file_path") or ""))
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            start = offset if isinstance(offset, int) else 1
            end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
            display += f":{start}{end}"
        return f"[read: {display}]"

    def code_path(self, args: Mapping[str, Any]) -> str | None:
        return _path_of(args) or None

    def warnings(self, details: Mapping[str, Any]) -> list[str]:
        truncation = details.get("truncation") or {}
        if not truncation.get("truncated"):
            return []
        if truncation.get("firstLineExceedsLimit"):
            return [f"[First line exceeds {_limit_size(truncation)} limit]"]
        if truncation.get("truncatedBy") == "lines":
            max_lines = truncation.get("maxLines") or DEFAULT_MAX_LINES
            return [
                f"[Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines "
                f"({max_lines} line limit)]"
            ]
        return [f"[Truncated: {truncation.get('outputLines')} lines shown ({_limit_size(truncation)} limit)]"]


@dataclass(frozen=True)
class PathPresenter(ToolPresenter):
    """write and edit: the name and the file path (edit adds the first changed line)."""

    changed_line: bool = False  # show ``:N`` for the result's ``firstChangedLine``

    def header(
        self, args: Mapping[str, Any], shorten: Shorten, first_changed_line: int | None = None
    ) -> Header:
        spans = [Span(self.name, "title"), Span(" "), _path_span(_path_of(args), shorten)]
        if first_changed_line and self.changed_line:
            spans.append(Span(f":{first_changed_line}", "warning"))
        return Header(tuple(spans))

    def summary(self, args: Mapping[str, Any], shorten: Shorten) -> str:
        return f"[{self.name}: {shorten(str(args.get('path') or args.get('file_path') or ''))}]"

    def code_path(self, args: Mapping[str, Any]) -> str | None:
        return _path_of(args) or None


@dataclass(frozen=True)
class BashPresenter(ToolPresenter):
    """bash: ``$ command`` with its timeout, the output's tail, and where the full output was saved."""

    name: str = "bash"
    body: BodyKind = "tail"
    preview_lines: int = 5
    html_preview_lines: int = 5

    def header(
        self, args: Mapping[str, Any], shorten: Shorten, first_changed_line: int | None = None
    ) -> Header:
        command = str_arg(args.get("command"))
        shown = _invalid() if command is None else Span(command) if command else Span("...", "output")
        timeout = args.get("timeout")
        tail = (Span(f" (timeout {_num(timeout)}s)", "muted"),) if timeout else ()
        return Header((Span("$ "), shown), base="title", tail=tail)

    def summary(self, args: Mapping[str, Any], shorten: Shorten) -> str:
        raw = str(args.get("command") or "")
        cmd = _one_line(raw)[:50]
        return f"[bash: {cmd}{'...' if len(raw) > 50 else ''}]"

    def warnings(self, details: Mapping[str, Any]) -> list[str]:
        truncation = details.get("truncation") or {}
        parts: list[str] = []
        if details.get("fullOutputPath"):
            parts.append(f"Full output: {details['fullOutputPath']}")
        if truncation.get("truncated"):
            if truncation.get("truncatedBy") == "lines":
                parts.append(
                    f"Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines"
                )
            else:
                parts.append(
                    f"Truncated: {truncation.get('outputLines')} lines shown ({_limit_size(truncation)} limit)"
                )
        return [f"[{'. '.join(parts)}]"] if parts else []


@dataclass(frozen=True)
class ListingPresenter(ToolPresenter):
    """ls, find and grep: a listing of paths or matches, with pi's "limit reached" notes."""

    body: BodyKind = "plain"
    limit_key: str = ""
    noun: str = ""

    def header(
        self, args: Mapping[str, Any], shorten: Shorten, first_changed_line: int | None = None
    ) -> Header:
        title = Span(self.name, "title")
        if self.name == "ls":
            spans = [title, Span(" "), _path_span(str_arg(args.get("path")), shorten, default=".")]
            if args.get("limit") is not None:
                spans.append(Span(f" (limit {_num(args['limit'])})", "output"))
            return Header(tuple(spans))
        pattern = str_arg(args.get("pattern"))
        if pattern is None:
            pat = _invalid()
        else:
            pat = Span(f"/{pattern}/" if self.name == "grep" else pattern, "accent")
        raw = str_arg(args.get("path"))
        where = _invalid() if raw is None else Span(shorten(raw or "."), "output")
        spans = [title, Span(" "), pat, Span(" in ", "output"), where]
        if self.name == "grep":
            glob = str_arg(args.get("glob"))
            if glob:
                spans.append(Span(f" ({glob})", "output"))
            if args.get("limit") is not None:
                spans.append(Span(f" limit {_num(args['limit'])}", "output"))
        elif args.get("limit") is not None:
            spans.append(Span(f" (limit {_num(args['limit'])})", "output"))
        return Header(tuple(spans))

    def summary(self, args: Mapping[str, Any], shorten: Shorten) -> str:
        where = shorten(str(args.get("path") or args.get("file_path") or "."))
        if self.name == "grep":
            return f"[grep: /{args.get('pattern') or ''}/ in {where}]"
        if self.name == "find":
            return f"[find: {args.get('pattern') or ''} in {where}]"
        return f"[{self.name}: {where}]"

    def warnings(self, details: Mapping[str, Any]) -> list[str]:
        truncation = details.get("truncation") or {}
        parts: list[str] = []
        if details.get(self.limit_key):
            parts.append(f"{details[self.limit_key]} {self.noun} limit")
        if truncation.get("truncated"):
            parts.append(f"{_limit_size(truncation)} limit")
        if self.name == "grep" and details.get("linesTruncated"):
            parts.append("some lines truncated")
        return [f"[Truncated: {', '.join(parts)}]"] if parts else []


DEFAULT_PRESENTER = ToolPresenter()

_REGISTRY: dict[str, ToolPresenter] = {
    "read": ReadPresenter(),
    "write": PathPresenter(name="write", body="code_args"),
    "edit": PathPresenter(name="edit", body="diff", changed_line=True),
    "bash": BashPresenter(),
    "ls": ListingPresenter(name="ls", preview_lines=20, limit_key="entryLimitReached", noun="entries"),
    "find": ListingPresenter(name="find", preview_lines=20, limit_key="resultLimitReached", noun="results"),
    "grep": ListingPresenter(name="grep", preview_lines=15, limit_key="matchLimitReached", noun="matches"),
}


def register_tool_presenter(name: str, presenter: ToolPresenter) -> None:
    """Present tool ``name`` (an extension's tool, or a replacement for a built-in one) with ``presenter``."""
    _REGISTRY[name] = presenter


def presenter_for(name: str) -> ToolPresenter:
    """The presenter registered for ``name``; the default (arguments as JSON) under that name otherwise."""
    presenter = _REGISTRY.get(name)
    return presenter if presenter is not None else DEFAULT_PRESENTER.named(name)


def no_shortening(path: str) -> str:
    return path
