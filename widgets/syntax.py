"""Syntax highlighting by file extension, coloured with pi's ``syntax*`` theme tokens."""

from __future__ import annotations

import os
from functools import lru_cache

from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from textual.content import Content
from textual.highlight import highlight

from themes.textual_adapter import PiHighlightTheme

__all__ = ["PiHighlightTheme", "highlight_code", "language_for_path"]


@lru_cache(maxsize=256)
def language_for_path(path: str) -> str | None:
    """Pygments language alias for a file name (extension only; never guesses from content)."""
    name = os.path.basename(path)
    if not name or "." not in name and name not in {"Makefile", "Dockerfile"}:
        return None
    try:
        lexer = get_lexer_for_filename(name)
    except ClassNotFound:
        return None
    return lexer.aliases[0] if lexer.aliases else None


def highlight_code(code: str, language: str) -> list[Content]:
    """Highlighted lines of ``code`` (tabs shown as three spaces, like pi)."""
    content = highlight(code.replace("\t", "   "), language=language, theme=PiHighlightTheme)
    lines = content.split("\n")
    # highlight() ensures a trailing newline; drop the empty line it adds.
    if len(lines) > len(code.split("\n")):
        lines = lines[: len(code.split("\n"))]
    return lines
