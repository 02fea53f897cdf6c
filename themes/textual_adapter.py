"""pi themes in a Textual app: `Theme` objects, registration and hot-reload install, and code highlighting
that follows the active theme's `$pi-*` variables.

The only module of `themes` that imports Textual: the rest of the package (loading, tokens, contrast, the
colours of the HTML export) is used by `pi_app.session.export`, which must not load Textual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Literal, Protocol

from pygments.token import Comment, Token, _TokenType
from rich.style import Style as RichStyle
from rich.syntax import SyntaxTheme
from textual.color import Color, ColorParseError
from textual.highlight import HighlightTheme
from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES
from textual.theme import Theme

from .convert import background_of, is_dark, is_terminal_palette, token_hex
from .loader import ColorValue, ThemeSpec, ThemeWarning
from .palette256 import nearest, quantize
from .registry import BUILTIN_THEMES, _builtin_spec, add_user_theme, discover_themes, get_spec
from .syntax import SYNTAX_TOKEN_MAP
from .tokens import ANSI_NAMES, TOKENS, css_variable_name, mix

# --- Theme objects -----------------------------------------------------------------------------------


def _ansi_css(value: ColorValue) -> str:
    if value == "":
        return "ansi_default"
    if isinstance(value, int):
        return ANSI_NAMES[value]
    return value


def _terminal_theme(spec: ThemeSpec) -> Theme:
    c = {t: _ansi_css(v) for t, v in spec.colors.items()}

    def base(token: str, default: str) -> str:
        return default if c[token] == "ansi_default" else c[token]

    dark = is_dark(spec)
    # Start from Textual's own terminal-palette theme (it defines $ansi-background & co. that Textual's
    # default CSS needs), then add the pi variables.
    variables = dict(TEXTUAL_THEMES["ansi-dark" if dark else "ansi-light"].variables)
    variables.update({css_variable_name(t): c[t] for t in TOKENS})
    variables.update(
        {
            "border": base("borderAccent", "ansi_blue"),
            "border-blurred": base("borderMuted", "ansi_bright_black"),
            "footer-key-foreground": base("accent", "ansi_blue"),
        }
    )
    return Theme(
        name=spec.name,
        ansi=True,
        primary=base("accent", "ansi_blue"),
        secondary=base("border", "ansi_cyan"),
        accent=base("borderAccent", "ansi_magenta"),
        warning=base("warning", "ansi_yellow"),
        error=base("error", "ansi_red"),
        success=base("success", "ansi_green"),
        foreground="ansi_default",
        background="ansi_default",
        surface="ansi_default",
        panel="ansi_default",
        boost="ansi_default",
        dark=dark,
        variables=variables,
    )


ColorDepth = Literal["truecolor", "256"]


def color_depth(app: object) -> ColorDepth:
    """ "256" when the app's console draws with the xterm 256-colour palette (Rich's choice from the
    environment: no ``COLORTERM=truecolor``), else "truecolor" (16-colour terminals keep Rich's own
    rounding: their 16 colours are the user's)."""
    console = getattr(app, "console", None)
    return "256" if getattr(console, "color_system", None) == "256" else "truecolor"


def to_textual_theme(spec: ThemeSpec, depth: ColorDepth = "truecolor") -> Theme:
    """The Textual theme for a pi theme: base colours from the pi tokens plus `$pi-*` variables. At 256
    colours every colour is a palette colour chosen by :mod:`themes.palette256`."""
    if is_terminal_palette(spec):
        return _terminal_theme(spec)
    hexes = token_hex(spec)
    background = background_of(spec)
    surface = mix(background, hexes["userMessageBg"], 0.5)
    if depth == "256":
        hexes, background = quantize(hexes, background)
        surface = nearest(surface)
    variables = {css_variable_name(t): hexes[t] for t in TOKENS}
    variables.update(
        {
            "border": hexes["borderAccent"],
            "border-blurred": hexes["borderMuted"],
            "footer-key-foreground": hexes["accent"],
            "block-cursor-background": hexes["selectedBg"],
            "block-cursor-foreground": hexes["text"],
            "block-cursor-text-style": "none",
        }
    )
    return Theme(
        name=spec.name,
        primary=hexes["accent"],
        secondary=hexes["border"],
        accent=hexes["borderAccent"],
        warning=hexes["warning"],
        error=hexes["error"],
        success=hexes["success"],
        foreground=hexes["text"],
        background=background,
        surface=surface,
        panel=hexes["userMessageBg"],
        boost=hexes["text"] + "0a",  # ~4% of the text colour, Textual's usual boost
        dark=is_dark(spec),
        variables=variables,
    )


def get_theme(name: str, depth: ColorDepth = "truecolor") -> Theme:
    """The Textual theme for pi theme `name`; the Textual theme name equals `name`."""
    return to_textual_theme(get_spec(name), depth)


# --- registration ------------------------------------------------------------------------------------


class ThemeHost(Protocol):
    def register_theme(self, theme: Theme) -> None: ...


def register_all(
    app: ThemeHost,
    cwd: str | Path | None = None,
    extra_paths: Iterable[str | Path] = (),
    agent_dir: str | Path | None = None,
    project: bool = True,
) -> list[ThemeWarning]:
    """Register every built-in and every discovered user theme on a Textual app; returns the
    discovery warnings (show them as notices). With cwd=None only built-ins are registered. The colours
    suit the app's terminal (see :func:`color_depth`)."""
    depth = color_depth(app)
    for name in BUILTIN_THEMES:
        app.register_theme(to_textual_theme(_builtin_spec(name), depth))
    if cwd is None:
        return []
    specs, warnings = discover_themes(cwd, extra_paths, agent_dir, project)
    for spec in specs.values():
        add_user_theme(spec)
        app.register_theme(to_textual_theme(spec, depth))
    return warnings


class ThemedApp(ThemeHost, Protocol):
    theme: str

    def refresh_css(self, animate: bool = True) -> None: ...


def install_theme(app: ThemedApp, spec: ThemeSpec) -> None:
    """Register a discovered or hot-reloaded theme on a running app; when it is the active theme the
    CSS is refreshed at once (re-setting `app.theme` to the same name would not fire its watcher).
    Widgets with colours baked into content should also listen to `app.theme_changed_signal`."""
    add_user_theme(spec)
    theme = to_textual_theme(spec, color_depth(app))
    app.register_theme(theme)
    if app.theme == spec.name:
        app.refresh_css(animate=False)
        signal = getattr(app, "theme_changed_signal", None)
        if signal is not None:
            signal.publish(theme)


# --- highlighting in the active theme ----------------------------------------------------------------


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
