"""Code highlighting in theme colours: a Pygments style, a Rich syntax theme and a Textual
`HighlightTheme`, all driven by the nine `syntax*` tokens."""

from __future__ import annotations

from collections.abc import Mapping
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
from rich.style import Style as RichStyle
from rich.syntax import PygmentsSyntaxTheme, SyntaxTheme
from textual.color import Color, ColorParseError
from textual.highlight import HighlightTheme

from .convert import background_of, is_terminal_palette
from .registry import get_spec, token_colors
from .tokens import css_variable_name

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


def _var(token: str) -> str:
    return "$" + css_variable_name(token)


class PiHighlightTheme(HighlightTheme):
    """Textual highlight theme using the `$pi-syntax-*` variables, so highlighted `Content` follows
    whichever pi theme is active (no per-theme class needed)."""

    STYLES = {
        tok: _var(pi) + (" italic" if tok is Comment else "")
        for tok, pi in SYNTAX_TOKEN_MAP.items()
        if tok is not Token
    }


def rich_color(value: str | None) -> str | None:
    """A Textual CSS colour value ("#rrggbb", "ansi_red", "ansi_default", ...) as a Rich colour
    string; None when empty or unparseable (the caller then leaves the colour unset)."""
    if not value:
        return None
    try:
        return Color.parse(value).rich_color.name
    except ColorParseError:
        return None


class VariablesSyntaxTheme(SyntaxTheme):
    """A Rich syntax theme read from resolved `$pi-syntax-*` values (an app's `theme_variables`),
    so renderables built from the *active* theme need no theme name. No background: code sits on
    whatever it is drawn on (pi draws code blocks without a fill)."""

    def __init__(self, styles: Mapping[_TokenType, RichStyle]) -> None:
        self._styles = dict(styles)

    def get_style_for_token(self, token_type: _TokenType) -> RichStyle:
        token: _TokenType | None = token_type
        while token is not None:
            style = self._styles.get(token)
            if style is not None:
                return style
            token = token.parent
        return RichStyle.null()

    def get_background_style(self) -> RichStyle:
        return RichStyle.null()


@cache
def _variables_syntax_theme(values: tuple[tuple[str, str | None], ...]) -> VariablesSyntaxTheme:
    colors = dict(values)
    styles = {
        tok: RichStyle(color=colors[pi], italic=tok is Comment or None)
        for tok, pi in SYNTAX_TOKEN_MAP.items()
    }
    return VariablesSyntaxTheme(styles)


def variables_syntax_theme(variables: Mapping[str, str]) -> VariablesSyntaxTheme:
    """For `rich.syntax.Syntax`/`rich.markdown.Markdown(code_theme=...)`: the syntax colours of
    whichever theme produced `variables` (e.g. `app.theme_variables`). Missing values fall back to
    the terminal default colour rather than failing."""
    needed = sorted(set(SYNTAX_TOKEN_MAP.values()))
    return _variables_syntax_theme(
        tuple((pi, rich_color(variables.get(css_variable_name(pi)))) for pi in needed)
    )
