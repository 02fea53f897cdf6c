"""Turning a resolved `ThemeSpec` into a Textual `Theme`, resolved hex colours and Rich colour strings.

pi draws on the terminal's own background; Textual paints every cell, so each theme needs a concrete
background. It is the theme's `export.pageBg` when given, else derived from `userMessageBg`.
"" (terminal default) becomes that background for background tokens and the theme's foreground for
text tokens. A theme whose every colour is "" or a palette index 0-15 is a *terminal-palette* theme:
it maps to Textual's ANSI colour names (`ansi_default`, `ansi_red`, ...) and `Theme(ansi=True)`.
"""

from __future__ import annotations

from textual.theme import BUILTIN_THEMES, Theme

from .loader import ColorValue, ThemeSpec
from .tokens import (
    ANSI_NAMES,
    BACKGROUND_TOKENS,
    TOKENS,
    css_variable_name,
    mix,
    relative_luminance,
    xterm_to_hex,
)

DARK_FOREGROUND = "#dcdcdc"
LIGHT_FOREGROUND = "#1e1e1e"
# Where black and white text have equal contrast: below it a background counts as dark.
_DARK_LUMINANCE = 0.179


def is_terminal_palette(spec: ThemeSpec) -> bool:
    return all(v == "" or (isinstance(v, int) and v < 16) for v in spec.colors.values())


def _concrete(value: ColorValue) -> str | None:
    if value == "":
        return None
    return xterm_to_hex(value) if isinstance(value, int) else value


def background_of(spec: ThemeSpec) -> str:
    """The screen background: of export.pageBg/cardBg the one further from mid-grey (terminal
    backgrounds sit at the extremes), else derived from userMessageBg."""
    exported = [c for c in (_concrete(spec.export.get(k, "")) for k in ("pageBg", "cardBg")) if c]
    if exported:
        return max(exported, key=lambda c: abs(relative_luminance(c) - _DARK_LUMINANCE))
    user_bg = _concrete(spec.colors["userMessageBg"])
    if user_bg is None:
        return "#000000"
    if relative_luminance(user_bg) < _DARK_LUMINANCE:
        return mix(user_bg, "#000000", 0.5)
    return mix(user_bg, "#ffffff", 0.6)


def is_dark(spec: ThemeSpec) -> bool:
    if is_terminal_palette(spec):
        # Terminal themes declare darkness by name; a user one is judged by its text colour.
        return not spec.name.endswith("light") and spec.colors["text"] not in (0, 8)
    return relative_luminance(background_of(spec)) < _DARK_LUMINANCE


def foreground_of(spec: ThemeSpec) -> str:
    text = _concrete(spec.colors["text"])
    if text and not is_terminal_palette(spec):
        return text
    return DARK_FOREGROUND if is_dark(spec) else LIGHT_FOREGROUND


def token_hex(spec: ThemeSpec) -> dict[str, str]:
    """Every token as "#rrggbb" ("" resolved against the theme's foreground/background)."""
    if is_terminal_palette(spec):
        bg = "#000000" if is_dark(spec) else "#ffffff"
    else:
        bg = background_of(spec)
    fg = foreground_of(spec)
    out: dict[str, str] = {}
    for token in TOKENS:
        out[token] = _concrete(spec.colors[token]) or (bg if token in BACKGROUND_TOKENS else fg)
    return out


def rich_color(value: ColorValue) -> str:
    """A Rich colour string: "" -> "default", 7 -> "color(7)", hex unchanged."""
    if value == "":
        return "default"
    return f"color({value})" if isinstance(value, int) else value


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
    variables = dict(BUILTIN_THEMES["ansi-dark" if dark else "ansi-light"].variables)
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


def to_textual_theme(spec: ThemeSpec) -> Theme:
    """The Textual theme for a pi theme: base colours from the pi tokens plus `$pi-*` variables."""
    if is_terminal_palette(spec):
        return _terminal_theme(spec)
    hexes = token_hex(spec)
    background = background_of(spec)
    surface = mix(background, hexes["userMessageBg"], 0.5)
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
