"""Entry dicts -> HTML fragments for the export page (server side: markdown-it + Pygments).

Every string that comes from the session is escaped; markdown runs with raw HTML disabled and images that
point anywhere but a ``data:`` URI become plain links, so the page never loads a network resource.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from pi_app.ai.text import text_of
from pi_app.tools.presenters import Header, Role, Span, ToolResultData, presenter_for

from ..jsontext import dumps

Entry = dict[str, Any]

_MIME_RE = re.compile(r"^image/[a-z0-9.+-]+$")
_B64_RE = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_FORMATTER = HtmlFormatter(nowrap=True)


def _pretty(value: Any) -> str:
    """Indented JSON for tool arguments; compact when too deep to indent (hostile input)."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except RecursionError:
        return dumps(value)


def esc(value: Any) -> str:
    return escape(str(value), quote=True)


def _lexer(lang: str | None = None, path: str | None = None) -> Lexer | None:
    try:
        if lang:
            return get_lexer_by_name(lang)
        if path:
            return get_lexer_for_filename(path)
    except ClassNotFound:
        return None
    return None


def highlight_code(code: str, lang: str | None = None, path: str | None = None) -> str:
    """Inner HTML of a code block: Pygments spans (classes styled by the page CSS) or escaped text."""
    lexer = _lexer(lang, path)
    if lexer is None:
        return esc(code)
    html: str = highlight(code, lexer, _FORMATTER)  # Pygments ships no types
    return html.rstrip("\n")


def _md_highlight(code: str, lang: str, _attrs: str) -> str:
    inner = highlight_code(code, lang.strip() or None)
    return f'<pre class="code hl"><code>{inner}</code></pre>'


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _md_highlight})

    # markdown-it's renderer-rule signature: the renderer comes first (unused here)
    def render_image(
        _renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = esc("".join(child.content for child in token.children or []))
        if src.startswith("data:image/"):
            return f'<img class="message-image" src="{esc(src)}" alt="{alt}">'
        return f'<a href="{esc(src)}">{alt or esc(src)}</a>'  # a link, never a fetched resource

    md.add_render_rule("image", render_image)
    return md


def markdown(text: str) -> str:
    html: str = _markdown().render(text)  # markdown-it declares render() as returning Any
    return html


def image_tag(block: Mapping[str, Any], cls: str = "message-image") -> str:
    mime = str(block.get("mimeType", ""))
    data = str(block.get("data", ""))
    if not _MIME_RE.match(mime) or not _B64_RE.match(data):
        return '<div class="error-text">[image with invalid data]</div>'
    return f'<img class="{cls}" src="data:{mime};base64,{data}" alt="image">'


def shorten_path(path: str) -> str:
    for root in ("/Users/", "/home/"):
        if path.startswith(root):
            parts = path.split("/")
            if len(parts) > 2:
                return "~" + path[len(root) + len(parts[2]) :]
    return path


def _expandable(text: str, preview_lines: int, lang_path: str | None = None) -> str:
    """Tool output: short output inline; longer output as <details> with the first lines as summary."""
    text = text.replace("\t", "   ")
    lines = text.split("\n")

    def block(t: str) -> str:
        inner = highlight_code(t, path=lang_path) if lang_path else esc(t)
        return f'<pre class="hl">{inner}</pre>'

    if len(lines) <= preview_lines:
        return f'<div class="tool-output">{block(text)}</div>'
    preview = "\n".join(lines[:preview_lines])
    more = len(lines) - preview_lines
    return (
        f'<details class="tool-output expandable"><summary>{block(preview)}'
        f'<div class="expand-hint">... ({more} more lines)</div></summary>{block(text)}</details>'
    )


def _images(result: Mapping[str, Any] | None) -> str:
    """The images of a tool result message, as HTML ('' when there are none)."""
    content = result.get("content") if result else None
    if not isinstance(content, list):
        return ""
    images = "".join(
        image_tag(c, "tool-image") for c in content if isinstance(c, dict) and c.get("type") == "image"
    )
    return f'<div class="tool-images">{images}</div>' if images else ""


_ROLE_CLASS: dict[Role, str] = {
    "title": "tool-name",
    "accent": "tool-path",
    "warning": "line-numbers",
    "output": "tool-output",
    "muted": "tool-muted",
    "error": "error-text",
}


def _spans_html(spans: tuple[Span, ...]) -> str:
    return "".join(
        esc(span.text)
        if span.role is None
        else f'<span class="{_ROLE_CLASS[span.role]}">{esc(span.text)}</span>'
        for span in spans
    )


def header_html(header: Header) -> str:
    """A presenter's header line; a line styled as a whole (bash's ``$ command``) is the command line."""
    cls = "tool-command" if header.base == "title" else "tool-header"
    return f'<div class="{cls}">{_spans_html(header.spans)}{_spans_html(header.tail)}</div>'


def diff_html(diff: str) -> str:
    out = []
    for line in diff.split("\n"):
        cls = (
            "diff-added"
            if line.startswith("+")
            else "diff-removed"
            if line.startswith("-")
            else "diff-context"
        )
        out.append(f'<div class="{cls}">{esc(line.replace(chr(9), "   "))}</div>')
    return '<div class="tool-diff">' + "".join(out) + "</div>"


def render_tool_call(call: Mapping[str, Any], result: Mapping[str, Any] | None) -> str:
    """One tool call with its result, drawn in the body form its presenter names."""
    name = str(call.get("name", ""))
    raw_args = call.get("arguments")
    args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
    presenter = presenter_for(name)
    data = ToolResultData.of(result)
    text, images = data.text, _images(result)
    status = "pending" if result is None else "error" if data.is_error else "success"
    first_changed = None if result is None or data.is_error else data.details.get("firstChangedLine")
    parts = [
        f'<div class="tool-execution {status}">',
        header_html(presenter.header(args, shorten_path, first_changed)),
    ]
    lines = presenter.html_preview_lines
    match presenter.body:
        case "tail":
            if text.strip():
                parts.append(_expandable(text.strip(), lines))
        case "code_result":
            parts.append(images)
            if text:
                parts.append(_expandable(text, lines, presenter.code_path(args)))
        case "code_args":
            content = args.get("content")
            if isinstance(content, str) and content:
                parts.append(_expandable(content, lines, presenter.code_path(args)))
            if text.strip():
                parts.append(f'<div class="tool-output"><pre>{esc(text.strip())}</pre></div>')
        case "diff":
            diff = data.details.get("diff")
            if isinstance(diff, str) and diff:
                parts.append(diff_html(diff))
            elif text.strip():
                parts.append(f'<div class="tool-output"><pre>{esc(text.strip())}</pre></div>')
        case "plain":
            if text.strip():
                parts.append(_expandable(text.strip(), lines))
        case "args_json":
            parts.append(f'<div class="tool-args"><pre>{esc(_pretty(args))}</pre></div>')
            parts.append(images)
            if text:
                parts.append(_expandable(text, lines))
    parts.append("</div>")
    return "".join(parts)


def _ts(entry: Mapping[str, Any]) -> str:
    ts = entry.get("timestamp")
    if not isinstance(ts, str) or len(ts) < 19:
        return ""
    return f'<div class="message-timestamp">{esc(ts[:19].replace("T", " "))}</div>'


def render_entry(entry: Entry, tool_results: Mapping[str, Mapping[str, Any]]) -> str:
    """HTML of one entry in the message column ('' for entries that show nothing there)."""
    eid = esc(entry.get("id", ""))
    kind = entry.get("type")
    ts = _ts(entry)
    if kind == "message":
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        assert isinstance(msg, dict)
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            html = f'<div class="user-message" id="entry-{eid}">{ts}'
            if isinstance(content, list):
                imgs = "".join(
                    image_tag(c) for c in content if isinstance(c, dict) and c.get("type") == "image"
                )
                if imgs:
                    html += f'<div class="message-images">{imgs}</div>'
            text = text_of(content, "\n")
            if text.strip():
                html += f'<div class="markdown-content">{markdown(text)}</div>'
            return html + "</div>"
        if role == "assistant":
            return _render_assistant(eid, ts, msg, tool_results)
        if role == "bashExecution":
            exit_code = msg.get("exitCode")
            failed = bool(msg.get("cancelled")) or (exit_code not in (0, None))
            html = f'<div class="tool-execution {"error" if failed else "success"}" id="entry-{eid}">{ts}'
            html += f'<div class="tool-command">$ {esc(msg.get("command", ""))}</div>'
            if msg.get("output"):
                html += _expandable(str(msg["output"]), 10)
            if msg.get("cancelled"):
                html += '<div class="warning-text">(cancelled)</div>'
            elif exit_code not in (0, None):
                html += f'<div class="error-text">(exit {esc(exit_code)})</div>'
            return html + "</div>"
        if role == "custom" and msg.get("display", True):
            return _custom(eid, ts, str(msg.get("customType", "")), content)
        return ""  # toolResult renders with its call
    if kind == "model_change":
        model = f"{entry.get('provider', '')}/{entry.get('modelId', '')}"
        return f'<div class="model-change" id="entry-{eid}">{ts}Switched to model: <span class="model-name">{esc(model)}</span></div>'
    if kind == "thinking_level_change":
        level = esc(entry.get("thinkingLevel", ""))
        return f'<div class="model-change" id="entry-{eid}">{ts}Thinking level: <span class="model-name">{level}</span></div>'
    if kind == "compaction":
        tokens = entry.get("tokensBefore", 0)
        tokens_s = f"{tokens:,}" if isinstance(tokens, int) else esc(tokens)
        return (
            f'<details class="compaction" id="entry-{eid}"><summary>[compaction] Compacted from {tokens_s} tokens'
            f'</summary><div class="markdown-content">{markdown(str(entry.get("summary", "")))}</div></details>'
        )
    if kind == "branch_summary":
        return (
            f'<div class="branch-summary" id="entry-{eid}">{ts}<div class="branch-summary-header">Branch Summary</div>'
            f'<div class="markdown-content">{markdown(str(entry.get("summary", "")))}</div></div>'
        )
    if kind == "custom_message" and entry.get("display", True):
        return _custom(eid, ts, str(entry.get("customType", "")), entry.get("content"))
    return ""


def _custom(eid: str, ts: str, custom_type: str, content: Any) -> str:
    text = content if isinstance(content, str) else text_of(content, "\n") or dumps(content)
    return (
        f'<div class="custom-message" id="entry-{eid}">{ts}<div class="custom-type">[{esc(custom_type)}]</div>'
        f'<div class="markdown-content">{markdown(text)}</div></div>'
    )


def _render_assistant(
    eid: str, ts: str, msg: Mapping[str, Any], tool_results: Mapping[str, Mapping[str, Any]]
) -> str:
    html = f'<div class="assistant-message" id="entry-{eid}">{ts}'
    blocks = [b for b in msg.get("content") or [] if isinstance(b, dict)]
    for block in blocks:
        if block.get("type") == "text" and str(block.get("text", "")).strip():
            html += f'<div class="assistant-text markdown-content">{markdown(str(block["text"]))}</div>'
        elif block.get("type") == "thinking" and str(block.get("thinking", "")).strip():
            html += (
                '<details class="thinking-block" open><summary>Thinking</summary>'
                f'<div class="thinking-text">{esc(block["thinking"])}</div></details>'
            )
        elif block.get("type") == "image":
            html += image_tag(block)
    for block in blocks:
        if block.get("type") == "toolCall":
            html += render_tool_call(block, tool_results.get(str(block.get("id", ""))))
    if msg.get("stopReason") == "aborted":
        html += '<div class="error-text">Aborted</div>'
    elif msg.get("stopReason") == "error":
        html += f'<div class="error-text">Error: {esc(msg.get("errorMessage") or "Unknown error")}</div>'
    return html + "</div>"


def tool_results_by_call(entries: list[Entry]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        msg = e.get("message") if e.get("type") == "message" else None
        if (
            isinstance(msg, dict)
            and msg.get("role") == "toolResult"
            and isinstance(msg.get("toolCallId"), str)
        ):
            out[msg["toolCallId"]] = msg
    return out
