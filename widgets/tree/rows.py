"""A row of the tree as drawn: its shape (gutters, connector, marks) and text, and how a prefix shifts left."""

from __future__ import annotations

from dataclasses import dataclass

from .entry_text import DisplayText

ACTIVE_MARK = "← active"
INDENT_CAP = 8  # indent levels drawn at most; deeper rows get a depth marker
DEPTH_SEP = "› "  # after the real depth in a capped row's marker: "12› "
PATH_MARK = "• "
FOLDED = "⊞"
FOLDABLE = "⊟"


@dataclass(frozen=True, slots=True)
class Row:
    """One visible line of the tree."""

    id: str
    prefix: str  # gutters and connector, e.g. "│  ├─ " (fold state shown in the connector: "├⊞ ")
    fold_marker: str  # "⊞ " for a folded row that has no connector (a root), else ""
    on_path: bool  # on the root→leaf path (drawn with "• ")
    is_active: bool  # the leaf (or, when a bookkeeping leaf is filtered out, the message it follows)
    label: str | None
    text: DisplayText
    stub: str = ""  # a folded side branch in the spine layout: "48 entries · "


def split_prefix(prefix: str) -> tuple[str, str, str]:
    """(depth marker, gutters, connector) of a row prefix; only the gutters may be cut to shift a row left."""
    marker = ""
    head, sep, rest = prefix.partition(DEPTH_SEP)
    if sep and head.isdigit():
        marker, prefix = head + sep, rest
    if prefix.endswith(("─ ", f"{FOLDED} ", f"{FOLDABLE} ")):
        return marker, prefix[:-3], prefix[-3:]
    return marker, prefix, ""


def shifted_prefix(prefix: str, left: int) -> str:
    """The prefix drawn with up to ``left`` cells of gutters cut (a dim "‹" shows where), marker and connector
    kept: a row's text moves left, never off the edge."""
    marker, gutters, conn = split_prefix(prefix)
    cut = min(left, len(gutters))  # gutters are one cell per character
    if not cut:
        return prefix
    return f"{marker}‹{gutters[cut + 1 :] if cut < len(gutters) else ''}{conn}"
