"""Syntax highlighting by file extension, coloured with pi's ``syntax*`` theme tokens."""

from __future__ import annotations

import os
from functools import lru_cache

from pygments.lexers import get_lexer_for_filename
from pygments.token import Token
from pygments.util import ClassNotFound
from textual.content import Content
from textual.highlight import HighlightTheme, highlight


class PiHighlightTheme(HighlightTheme):
    """Maps Pygments token types onto ``$pi-syntax-*`` variables."""

    STYLES = {
        Token.Comment: "$pi-syntax-comment italic",
        Token.Keyword: "$pi-syntax-keyword",
        Token.Keyword.Type: "$pi-syntax-type",
        Token.Name.Function: "$pi-syntax-function",
        Token.Name.Function.Magic: "$pi-syntax-function",
        Token.Name.Class: "$pi-syntax-type",
        Token.Name.Builtin: "$pi-syntax-type",
        Token.Name.Decorator: "$pi-syntax-function",
        Token.Name.Variable: "$pi-syntax-variable",
        Token.Name.Attribute: "$pi-syntax-variable",
        Token.Name: "$pi-syntax-variable",
        Token.Literal.String: "$pi-syntax-string",
        Token.String: "$pi-syntax-string",
        Token.Literal.Number: "$pi-syntax-number",
        Token.Number: "$pi-syntax-number",
        Token.Operator: "$pi-syntax-operator",
        Token.Punctuation: "$pi-syntax-punctuation",
        Token.Whitespace: "",
    }


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
