"""Syntax highlighting by file extension, coloured with pi's ``syntax*`` theme tokens."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from pygments.lexers import get_all_lexers, get_lexer_for_filename
from pygments.util import ClassNotFound
from textual.content import Content
from textual.highlight import highlight

from themes.textual_adapter import PiHighlightTheme

__all__ = ["PiHighlightTheme", "highlight_code", "language_for_path"]

_WILDCARD = re.compile(r"[*?\[\]]")


@dataclass
class _LexerTable:
    """pygments' file-name patterns, read from its lexer list (no lexer module imported)."""

    by_extension: dict[str, set[str]] = field(default_factory=dict)  # ".py" -> aliases claiming "*.py"
    other: list[tuple[str, str, str]] = field(default_factory=list)  # (pattern, longest literal, alias)


@lru_cache(maxsize=1)
def _lexer_table() -> _LexerTable:
    table = _LexerTable()
    for _name, aliases, patterns, _mimes in get_all_lexers():
        if not aliases:
            continue
        for pattern in patterns:
            ext = pattern[1:]
            if pattern.startswith("*.") and not _WILDCARD.search(ext) and "." not in ext[1:]:
                table.by_extension.setdefault(ext, set()).add(aliases[0])
            else:
                literal = max(_WILDCARD.split(pattern), key=len)
                table.other.append((pattern, literal, aliases[0]))
    return table


def has_language_name(name: str) -> bool:
    """Only names with an extension (and two well-known bare names) get a language."""
    return bool(name) and ("." in name or name in {"Makefile", "Dockerfile"})


@lru_cache(maxsize=256)
def language_for_path(path: str) -> str | None:
    """Pygments language alias for a file name (extension only; never guesses from content).

    pygments' own lookup compiles every lexer's ~930 file-name patterns on first use (~0.3 s, on the
    event loop, the first time a tool panel shows a file). Most names match one ``*.ext`` pattern of one
    lexer: that is answered from a table. Where several lexers claim the name (``.h``, ``.m``, ...),
    pygments decides by its priorities, as before.
    """
    name = os.path.basename(path)
    if not has_language_name(name):
        return None
    table = _lexer_table()
    _, dot, ext = name.rpartition(".")
    candidates = set(table.by_extension.get(f".{ext}", ())) if dot else set()
    for pattern, literal, alias in table.other:
        if literal in name and fnmatch.fnmatchcase(name, pattern):
            candidates.add(alias)
    if len(candidates) == 1:
        return candidates.pop()
    return pygments_language(name) if candidates else None


def pygments_language(name: str) -> str | None:
    """Pygments' own answer for a file name: every lexer's patterns, ties settled by its priorities."""
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
