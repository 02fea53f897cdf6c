"""Where a streamed answer can be cut into pieces that Rich draws as it draws the whole answer
(:func:`block_split_point`), and the Markdown parser Rich's renderer uses, built once (:func:`rich_parser`)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# A link reference definition (or footnote) makes inline text anywhere depend on text elsewhere.
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)
# Blocks Rich draws without the blank line it puts after every other top-level block (or draws as nothing).
_NO_BLANK_AFTER = frozenset({"hr", "html_block"})
# Top-level blocks that hold no other blocks (their opening token's type).
_LEAF_BLOCKS = frozenset({"paragraph_open", "heading_open", "fence", "code_block", "hr", "html_block"})


@lru_cache(maxsize=1)
def rich_parser() -> MarkdownIt:
    """The parser ``rich.markdown.Markdown`` builds for every text it is given (~1 ms each), built once.
    Parsing keeps no state in it, so threads share it."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")


def has_references(text: str) -> bool:
    """A link reference definition (or footnote): inline text anywhere may depend on text elsewhere."""
    return _REFERENCE.search(text) is not None


def block_cuts(text: str) -> tuple[list[tuple[int, bool]], bool]:
    """Where ``text`` may be cut into pieces that Rich draws as it draws the whole: the offset of each
    top-level block (as Rich's parser reads it) after the first whose block before is not one
    ``_NO_BLANK_AFTER`` names, with whether that block is a leaf (not a list, quote or table); and whether
    the first block is a leaf. The blocks before the last one are finished: later text cannot change them.

    Rich renders every top-level block on its own; before one it draws a blank line when the element
    closed last asked for one: for a leaf, the block before it (every kind but a rule does); for a list,
    quote or table, its own last child. So Rich draws ``text`` exactly as it draws the pieces between cuts
    (each stripped) one under another, with a blank line before each piece that starts with a leaf (see
    :class:`widgets.rendering.JoinedMarkdown`), as long as no reference definition ties text across a cut
    (:func:`has_references`).

    Only whole lines count: a line still being written may read as another kind of block ("3" ends a list
    that "3. three" continues)."""
    starts = _block_starts(text[: text.rfind("\n") + 1])
    cuts: list[tuple[int, bool]] = []
    offset = line = 0
    for index in range(1, len(starts)):
        while line < starts[index][0]:
            offset = text.index("\n", offset) + 1
            line += 1
        if starts[index - 1][1] not in _NO_BLANK_AFTER and text[:offset].strip():
            cuts.append((offset, starts[index][1] in _LEAF_BLOCKS))
    return cuts, bool(starts) and starts[0][1] in _LEAF_BLOCKS


def block_split_point(text: str) -> tuple[int, bool]:
    """The last of :func:`block_cuts` (0: none), and whether the first block of ``text`` is a leaf."""
    cuts, leaf = block_cuts(text)
    return (cuts[-1][0], leaf) if cuts else (0, False)


def starts_with_leaf(text: str) -> bool:
    """Whether the first top-level block of ``text`` holds no other blocks (not a list, quote or table).
    Its kind shows by its first blank line (a table's header and delimiter rows come before any)."""
    blank = text.find("\n\n")
    starts = _block_starts(text if blank < 0 else text[: blank + 1])
    return bool(starts) and starts[0][1] in _LEAF_BLOCKS


def _block_starts(text: str) -> list[tuple[int, str]]:
    """(first line, type) of each top-level block of ``text`` as Rich's parser reads it."""
    return [
        (token.map[0], token.type)
        for token in rich_parser().parse(text)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]
