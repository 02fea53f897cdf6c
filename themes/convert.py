"""Turning a resolved `ThemeSpec` into resolved hex colours and Rich colour strings (the Textual `Theme` is
built from these in `themes.textual_adapter`).

pi draws on the terminal's own background; Textual paints every cell, so each theme needs a concrete
background. It is the theme's `export.pageBg` when given, else derived from `userMessageBg`.
"" (terminal default) becomes that background for background tokens and the theme's foreground for
text tokens. A theme whose every colour is "" or a palette index 0-15 is a *terminal-palette* theme:
it maps to Textual's ANSI colour names (`ansi_default`, `ansi_red`, ...) and `Theme(ansi=True)`.
"""

from __future__ import annotations

from .loader import ColorValue, ThemeSpec
from .tokens import BACKGROUND_TOKENS, TOKENS, mix, relative_luminance, xterm_to_hex

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
