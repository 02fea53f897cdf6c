"""Pure text logic behind ``edit``: line endings, pi's fuzzy normalisation, multi-edit application,
the closest-match hint for failed matches, and pi's line-numbered diff (also used for TUI previews)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from pi_app.agent.tool import ToolError

BOM = "\ufeff"

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


def detect_line_ending(content: str) -> str:
    """CRLF when the first CRLF comes before the first bare LF, else LF."""
    lf = content.find("\n")
    crlf = content.find("\r\n")
    if lf == -1 or crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def strip_bom(content: str) -> tuple[str, str]:
    """(bom, text): the model never types the invisible BOM, so match without it and put it back."""
    return (BOM, content[1:]) if content.startswith(BOM) else ("", content)


def normalize_for_fuzzy_match(text: str) -> str:
    """pi's fuzzy space: NFKC, trailing whitespace dropped per line, typographic quotes/dashes/spaces
    folded to ASCII."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass
class FuzzyMatch:
    """Where ``old_text`` was found, and the text to replace in (normalised when only the fuzzy search matched)."""

    found: bool
    index: int
    match_length: int
    used_fuzzy_match: bool
    content_for_replacement: str


def fuzzy_find_text(content: str, old_text: str) -> FuzzyMatch:
    """Exact ``find`` first; otherwise search in the fuzzy space (and replace there)."""
    idx = content.find(old_text)
    if idx != -1:
        return FuzzyMatch(True, idx, len(old_text), False, content)
    fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    idx = fuzzy_content.find(fuzzy_old)
    if idx == -1:
        return FuzzyMatch(False, -1, 0, False, content)
    return FuzzyMatch(True, idx, len(fuzzy_old), True, fuzzy_content)


def count_occurrences(content: str, old_text: str) -> int:
    return normalize_for_fuzzy_match(content).count(normalize_for_fuzzy_match(old_text))


@dataclass
class Replacement:
    """One edit: the ``old_text`` to find in the file and the ``new_text`` to put in its place."""

    old_text: str
    new_text: str


# ---------------------------------------------------------------- errors (pi's exact texts)
def _not_found(path: str, i: int, n: int) -> str:
    if n == 1:
        return (
            f"Could not find the exact text in {path}. "
            "The old text must match exactly including all whitespace and newlines."
        )
    return f"Could not find edits[{i}] in {path}. The oldText must match exactly including all whitespace and newlines."


def _duplicate(path: str, i: int, n: int, count: int) -> str:
    if n == 1:
        return (
            f"Found {count} occurrences of the text in {path}. "
            "The text must be unique. Please provide more context to make it unique."
        )
    return (
        f"Found {count} occurrences of edits[{i}] in {path}. "
        "Each oldText must be unique. Please provide more context to make it unique."
    )


def _empty(path: str, i: int, n: int) -> str:
    return (
        f"oldText must not be empty in {path}."
        if n == 1
        else f"edits[{i}].oldText must not be empty in {path}."
    )


def _no_change(path: str, n: int) -> str:
    if n == 1:
        return (
            f"No changes made to {path}. The replacement produced identical content. This might indicate an "
            "issue with special characters or the text not existing as expected."
        )
    return f"No changes made to {path}. The replacements produced identical content."


def apply_edits(content: str, edits: list[Replacement], path: str) -> tuple[str, str]:
    """Apply disjoint replacements to LF-normalised ``content``; every ``old_text`` is matched against the
    original. Returns (base_content, new_content); base is the fuzzy-normalised content when any edit
    needed fuzzy matching. Raises ToolError with pi's texts (plus a closest-match hint when not found)."""
    norm = [Replacement(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    n = len(norm)
    for i, e in enumerate(norm):
        if not e.old_text:
            raise ToolError(_empty(path, i, n))
    fuzzy_needed = any(content.find(e.old_text) == -1 for e in norm)
    base = normalize_for_fuzzy_match(content) if fuzzy_needed else content
    matched: list[tuple[int, int, int, str]] = []  # (start, length, edit index, new text)
    for i, e in enumerate(norm):
        m = fuzzy_find_text(base, e.old_text)
        if not m.found:
            raise ToolError(_not_found(path, i, n) + closest_match_hint(content, e.old_text))
        count = count_occurrences(base, e.old_text)
        if count > 1:
            raise ToolError(_duplicate(path, i, n, count))
        matched.append((m.index, m.match_length, i, e.new_text))
    matched.sort()
    for prev, cur in zip(matched, matched[1:], strict=False):
        if prev[0] + prev[1] > cur[0]:
            raise ToolError(
                f"edits[{prev[2]}] and edits[{cur[2]}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    pieces: list[str] = []
    pos = 0
    for start, length, _i, new_text in matched:
        pieces.append(base[pos:start])
        pieces.append(new_text)
        pos = start + length
    pieces.append(base[pos:])
    new = "".join(pieces)
    if new == base:
        raise ToolError(_no_change(path, n))
    return base, new


# ---------------------------------------------------------------- closest match
_HINT_MAX_LINES = 12
_HINT_MIN_RATIO = 0.5
_FULL_SCAN_LINES = 20000


def closest_match_hint(content: str, old_text: str) -> str:
    """``\\nClosest match (lines A-B, NN% similar):\\n<numbered lines>`` or "" when nothing is close.

    Windows of the same line count as ``old_text`` are ranked by how many of their lines occur in
    ``old_text`` (cheap), then the best few are scored with difflib; single lines fall back to a
    character-level search so a one-line typo still finds its target."""
    file_lines = content.split("\n")
    want = [line.strip() for line in normalize_for_fuzzy_match(old_text).split("\n")]
    while len(want) > 1 and not want[-1]:
        want.pop()
    k = min(len(want), len(file_lines))
    if k == 0:
        return ""
    norm_lines = [line.strip() for line in normalize_for_fuzzy_match(content).split("\n")]
    wanted = {w for w in want if w}
    hits = [1 if line and line in wanted else 0 for line in norm_lines]
    starts = range(len(norm_lines) - k + 1)
    scores: list[tuple[int, int]] = []
    window = sum(hits[:k])
    for s in starts:
        if s:
            window += hits[s + k - 1] - hits[s - 1]
        if window:
            scores.append((window, s))
    if scores:
        scores.sort(key=lambda t: (-t[0], t[1]))
        candidates = [s for _, s in scores[:25]]
    elif len(norm_lines) <= _FULL_SCAN_LINES:
        first = next((w for w in want if w), "")
        matcher = difflib.SequenceMatcher(None, "", first, autojunk=False)
        ranked = []
        for s, line in enumerate(norm_lines[: len(norm_lines) - k + 1]):
            matcher.set_seq1(line)
            if matcher.real_quick_ratio() >= _HINT_MIN_RATIO and matcher.quick_ratio() >= _HINT_MIN_RATIO:
                ranked.append((matcher.ratio(), s))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        candidates = [s for _, s in ranked[:25]]
    else:
        return ""
    target = "\n".join(want)
    best_ratio, best_start = 0.0, -1
    for s in candidates:
        ratio = difflib.SequenceMatcher(
            None, "\n".join(norm_lines[s : s + k]), target, autojunk=False
        ).ratio()
        if ratio > best_ratio:
            best_ratio, best_start = ratio, s
    if best_start < 0 or best_ratio < _HINT_MIN_RATIO:
        return ""
    shown = file_lines[best_start : best_start + min(k, _HINT_MAX_LINES)]
    width = len(str(best_start + len(shown)))
    body = "\n".join(f"{str(best_start + 1 + j).rjust(width)}\t{line[:300]}" for j, line in enumerate(shown))
    more = f"\n... ({k - len(shown)} more lines)" if k > len(shown) else ""
    return (
        f"\nClosest match (lines {best_start + 1}-{best_start + k}, {int(best_ratio * 100)}% similar):\n"
        f"{body}{more}"
    )


# ---------------------------------------------------------------- diff
def _line_parts(old: str, new: str) -> list[tuple[str, list[str]]]:
    """Line diff as ("equal"|"removed"|"added", lines) parts, removed before added like jsdiff."""
    a = old.splitlines(keepends=True) if old else []
    b = new.splitlines(keepends=True) if new else []
    # a trailing "\r" alone would be split by splitlines; content here is LF-only, so only "\n" matters
    prefix = 0
    while prefix < len(a) and prefix < len(b) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < len(a) - prefix and suffix < len(b) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    parts: list[tuple[str, list[str]]] = []

    def add(kind: str, tokens: list[str]) -> None:
        if not tokens:
            return
        lines = "".join(tokens).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if parts and parts[-1][0] == kind:
            parts[-1][1].extend(lines)
        else:
            parts.append((kind, lines))

    add("equal", a[:prefix])
    mid_a, mid_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add("equal", mid_a[i1:i2])
        else:
            add("removed", mid_a[i1:i2])
            add("added", mid_b[j1:j2])
    add("equal", a[len(a) - suffix :])
    return parts


def generate_diff_string(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    """pi's numbered diff: ``+N text`` / ``-N text`` / `` N text`` with ``...`` for skipped context.
    Returns (diff, first changed line in the new file)."""
    parts = _line_parts(old, new)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    pad = " " * width
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    last_was_change = False

    def context(lines: list[str]) -> None:
        nonlocal old_no, new_no
        for line in lines:
            out.append(f" {str(old_no).rjust(width)} {line}")
            old_no += 1
            new_no += 1

    def skip(count: int) -> None:
        nonlocal old_no, new_no
        out.append(f" {pad} ...")
        old_no += count
        new_no += count

    for i, (kind, lines) in enumerate(parts):
        if kind != "equal":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                if kind == "added":
                    out.append(f"+{str(new_no).rjust(width)} {line}")
                    new_no += 1
                else:
                    out.append(f"-{str(old_no).rjust(width)} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = i + 1 < len(parts) and parts[i + 1][0] != "equal"
        if last_was_change and next_is_change:
            if len(lines) <= context_lines * 2:
                context(lines)
            else:
                context(lines[:context_lines])
                skip(len(lines) - 2 * context_lines)
                context(lines[-context_lines:])
        elif last_was_change:
            context(lines[:context_lines])
            if len(lines) > context_lines:
                skip(len(lines) - context_lines)
        elif next_is_change:
            skipped = max(0, len(lines) - context_lines)
            if skipped:
                skip(skipped)
            context(lines[skipped:])
        else:
            old_no += len(lines)
            new_no += len(lines)
        last_was_change = False
    return "\n".join(out), first_changed
