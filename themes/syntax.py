"""Code highlighting in theme colours: a Pygments style and a Rich syntax theme for a named theme, driven
by the nine `syntax*` tokens (the Textual `HighlightTheme` is in `themes.textual_adapter`)."""

from __future__ import annotations

from functools import cache

from pygments.style import Style
from pygments.token import (
    Comment,
    Error,
    Generic,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Token,
    _TokenType,
)
from rich.syntax import PygmentsSyntaxTheme

from .convert import background_of, is_terminal_palette
from .registry import get_spec, token_colors

# Pygments token -> pi token. Sub-tokens not listed inherit from their parent.
SYNTAX_TOKEN_MAP: dict[_TokenType, str] = {
    Token: "text",
    Comment: "syntaxComment",
    Keyword: "syntaxKeyword",
    Keyword.Type: "syntaxType",
    Keyword.Constant: "syntaxKeyword",
    Name: "syntaxVariable",
    Name.Variable: "syntaxVariable",
    Name.Function: "syntaxFunction",
    Name.Function.Magic: "syntaxFunction",
    Name.Decorator: "syntaxFunction",
    Name.Class: "syntaxType",
    Name.Namespace: "syntaxType",
    Name.Builtin: "syntaxType",
    Name.Builtin.Pseudo: "syntaxKeyword",
    Name.Tag: "syntaxKeyword",
    Name.Attribute: "syntaxVariable",
    Name.Constant: "syntaxVariable",
    String: "syntaxString",
    String.Doc: "syntaxComment",
    Number: "syntaxNumber",
    Operator: "syntaxOperator",
    Operator.Word: "syntaxKeyword",
    Punctuation: "syntaxPunctuation",
    Generic.Inserted: "toolDiffAdded",
    Generic.Deleted: "toolDiffRemoved",
    Generic.Heading: "mdHeading",
    Generic.Subheading: "mdHeading",
    Error: "error",
}


@cache
def _pygments_style(name: str, colors_key: tuple[tuple[str, str], ...], background: str) -> type[Style]:
    colors = dict(colors_key)
    styles = {tok: colors[pi] for tok, pi in SYNTAX_TOKEN_MAP.items()}
    styles[Comment] += " italic"
    class_name = "Pi" + "".join(part.capitalize() for part in name.replace("_", "-").split("-")) + "Style"
    return type(class_name, (Style,), {"styles": styles, "background_color": background})


def pygments_style(name: str) -> type[Style]:
    """A Pygments Style class whose colours are theme `name`'s syntax tokens."""
    spec = get_spec(name)
    colors = token_colors(name)
    background = "#000000" if is_terminal_palette(spec) else background_of(spec)
    return _pygments_style(name, tuple(sorted(colors.items())), background)


def rich_syntax_theme(name: str) -> PygmentsSyntaxTheme:
    """For `rich.syntax.Syntax(code, lexer, theme=rich_syntax_theme(name))`."""
    return PygmentsSyntaxTheme(pygments_style(name))
