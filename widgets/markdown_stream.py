"""Streaming Markdown into a live ``Markdown`` widget, with a stop that may drop what is not parsed yet.

Textual's public ``MarkdownStream`` (``textual.widgets.markdown``) always parses its pending fragments when it
stops; a live block that is about to be replaced by its frozen form only loses time doing that. This is the
same coalescing writer over the public ``Markdown.append``, plus ``stop(discard=True)``.

:func:`block_split_point` finds where a streamed answer can be frozen in pieces that draw what the whole
answer draws.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from textual.widgets import Markdown

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# A link reference definition (or footnote) makes inline text anywhere depend on text elsewhere.
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)
# Blocks Rich draws without the blank line it puts after every other top-level block (or draws as nothing).
_NO_BLANK_AFTER = frozenset({"hr", "html_block"})
# Top-level blocks that hold no other blocks (their opening token's type).
_LEAF_BLOCKS = frozenset({"paragraph_open", "heading_open", "fence", "code_block", "hr", "html_block"})


@lru_cache(maxsize=1)
def _rich_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # the parser rich.markdown uses


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
        for token in _rich_parser().parse(text)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]


class LiveMarkdownStream:
    def __init__(self, markdown: Markdown) -> None:
        self.markdown = markdown
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = asyncio.create_task(self._run())

    async def write(self, fragment: str) -> None:
        """Queue a fragment; fragments that arrive while a parse runs are appended together."""
        if self._task is None:
            raise RuntimeError("Can't write to the stream after it has stopped.")
        if fragment:
            self._pending.append(fragment)
            self._wake.set()
            await asyncio.sleep(0)  # let the writer task pick it up

    async def stop(self, discard: bool = False) -> None:
        """End the writer task; what is still queued is appended, or dropped with ``discard``."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError  # only a cancellation of the caller itself propagates
        rest, self._pending = "".join(self._pending), []
        if rest and not discard:
            await self.markdown.append(rest)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            text, self._pending = "".join(self._pending), []
            if text:
                await asyncio.shield(self.markdown.append(text))
