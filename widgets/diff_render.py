"""pi's numbered diff format (`` 1 alpha`` / ``-2 beta`` / ``+2 BETA``): build it and colour it.

Pure functions; colours are theme variables inside :class:`textual.content.Content` styles so a theme
switch recolours without re-rendering.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from textual.content import Content, Span

ADDED = "$pi-tool-diff-added"
REMOVED = "$pi-tool-diff-removed"
CONTEXT = "$pi-tool-diff-context"
_LINE = re.compile(r"^([+\- ])(\s*\d*)\s(.*)$")
_WORD = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class DiffLine:
    """One line of pi's numbered diff: its ``+``/``-``/space prefix, the padded line number, and the text."""

    prefix: str  # "+", "-" or " "
    line_num: str  # as written, including its left padding
    content: str


def parse_diff_line(line: str) -> DiffLine | None:
    match = _LINE.match(line)
    if match is None:
        return None
    return DiffLine(match.group(1), match.group(2), match.group(3))


def replace_tabs(text: str) -> str:
    return text.replace("\t", "   ")


def word_diff(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character ranges that changed in ``old`` and in ``new`` (word granularity).

    A changed run's leading whitespace is left unmarked so indentation is not highlighted.
    """
    a, b = _WORD.findall(old), _WORD.findall(new)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    a_pos = [0]
    for tok in a:
        a_pos.append(a_pos[-1] + len(tok))
    b_pos = [0]
    for tok in b:
        b_pos.append(b_pos[-1] + len(tok))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for ranges, pos, text, s, e in ((removed, a_pos, old, i1, i2), (added, b_pos, new, j1, j2)):
            start, end = pos[s], pos[e]
            while start < end and text[start].isspace():
                start += 1
            if start < end:
                ranges.append((start, end))
    return removed, added


def _styled(prefix: str, line_num: str, content: str, style: str, inverse: list[tuple[int, int]]) -> Content:
    head = f"{prefix}{line_num} "
    spans = [Span(len(head) + s, len(head) + e, "reverse") for s, e in inverse]
    return Content(head + content, spans=spans).stylize_before(style)


def render_diff(diff_text: str) -> Content:
    """Colour a pi diff; a lone removed line followed by a lone added line gets word highlights."""
    lines = diff_text.split("\n")
    out: list[Content] = []
    i = 0
    while i < len(lines):
        parsed = parse_diff_line(lines[i])
        if parsed is None:
            out.append(Content(lines[i]).stylize_before(CONTEXT))
            i += 1
            continue
        if parsed.prefix == "-":
            removed: list[DiffLine] = []
            while i < len(lines) and (p := parse_diff_line(lines[i])) is not None and p.prefix == "-":
                removed.append(p)
                i += 1
            added: list[DiffLine] = []
            while i < len(lines) and (p := parse_diff_line(lines[i])) is not None and p.prefix == "+":
                added.append(p)
                i += 1
            if len(removed) == 1 and len(added) == 1:
                old, new = replace_tabs(removed[0].content), replace_tabs(added[0].content)
                r_ranges, a_ranges = word_diff(old, new)
                out.append(_styled("-", removed[0].line_num, old, REMOVED, r_ranges))
                out.append(_styled("+", added[0].line_num, new, ADDED, a_ranges))
            else:
                out.extend(_styled("-", r.line_num, replace_tabs(r.content), REMOVED, []) for r in removed)
                out.extend(_styled("+", a.line_num, replace_tabs(a.content), ADDED, []) for a in added)
        elif parsed.prefix == "+":
            out.append(_styled("+", parsed.line_num, replace_tabs(parsed.content), ADDED, []))
            i += 1
        else:
            out.append(_styled(" ", parsed.line_num, replace_tabs(parsed.content), CONTEXT, []))
            i += 1
    return Content("\n").join(out)


def generate_diff(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    """pi's numbered diff of two texts and the first changed line (in the new text)."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    width = len(str(max(len(old_lines), len(new_lines))))
    blank = " " * width
    out: list[str] = []
    first_changed: int | None = None
    opcodes = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            if first_changed is None:
                first_changed = j1 + 1
            out.extend(f"-{str(n + 1).rjust(width)} {old_lines[n]}" for n in range(i1, i2))
            out.extend(f"+{str(n + 1).rjust(width)} {new_lines[n]}" for n in range(j1, j2))
            continue
        after_change = index > 0
        before_change = index < len(opcodes) - 1
        if not (after_change or before_change):
            continue
        shown = list(range(i1, i2))
        skip_start = skip_end = False
        if not after_change and len(shown) > context_lines:
            shown, skip_start = shown[-context_lines:], True
        if not before_change and len(shown) > context_lines:
            shown, skip_end = shown[:context_lines], True
        if after_change and before_change and len(shown) > 2 * context_lines:
            # A long unchanged run between two changes: keep context on both sides only.
            head, tail = shown[:context_lines], shown[-context_lines:]
            out.extend(f" {str(n + 1).rjust(width)} {old_lines[n]}" for n in head)
            out.append(f" {blank} ...")
            out.extend(f" {str(n + 1).rjust(width)} {old_lines[n]}" for n in tail)
            continue
        if skip_start:
            out.append(f" {blank} ...")
        out.extend(f" {str(n + 1).rjust(width)} {old_lines[n]}" for n in shown)
        if skip_end:
            out.append(f" {blank} ...")
    return "\n".join(out), first_changed


def edit_args_diff(args: dict[str, object]) -> str | None:
    """Preview diff from an edit call's arguments alone (``edits[]`` or the legacy single form).

    Line numbers are relative to each snippet since the file is not read here.
    """
    edits = args.get("edits")
    if not isinstance(edits, list):
        edits = [{"oldText": args.get("oldText"), "newText": args.get("newText")}]
    chunks: list[str] = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        old, new = edit.get("oldText"), edit.get("newText")
        if not isinstance(old, str) or not isinstance(new, str):
            continue
        diff, _ = generate_diff(old, new)
        if diff:
            chunks.append(diff)
    return "\n ...\n".join(chunks) if chunks else None
