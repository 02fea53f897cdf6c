"""Theme colours for 256-colour terminals (tmux without ``COLORTERM``, macOS Terminal.app).

Such a terminal gets each truecolor value rounded to the xterm palette by Rich, channel by channel, which
lands the dark, slightly blue backgrounds of catppuccin-mocha and tokyo-night on black (the same as the
screen: panels and message backgrounds vanish), turns nord's slate background teal and light's pale tool
panels bright green. Here every colour is chosen from the palette deliberately instead:

- the nearest palette colour by perceived difference (CIE Lab), not by rounding channels;
- each given as a value Rich sends as exactly that entry (its grey rounding is off by one step for light
  greys), so what is chosen is what the terminal shows;
- a background token (message, tool panel, selection) never lands on the screen background's colour: then
  the nearest colour on its side of the background (lighter on a dark theme) is taken, so panels stay
  visible;
- a text colour keeps the contrast it had on each background it is drawn on (``themes.contrast`` pairs, up
  to 4.5:1): the nearest palette colour that does.

Pure functions over "#rrggbb" strings; the Textual theme is built from the result in ``textual_adapter``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from .tokens import BACKGROUND_TOKENS, contrast_ratio, hex_to_rgb, xterm_to_hex

Lab = tuple[float, float, float]


def _linear(c: int) -> float:
    s = c / 255
    return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4


def _f(t: float) -> float:
    return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116


@cache
def lab(value: str) -> Lab:
    """CIE L*a*b* (D65) of a "#rrggbb" colour."""
    r, g, b = (_linear(c) for c in hex_to_rgb(value))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    fx, fy, fz = _f(x), _f(y), _f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def distance(a: str, b: str) -> float:
    """Perceived difference (CIE76 ΔE) between two colours."""
    la, lb = lab(a), lab(b)
    return sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5


@cache
def palette() -> tuple[str, ...]:
    """The 240 fixed xterm colours (16-255: the 16 basic ones are the terminal's own), each as a value Rich
    sends as that very palette entry. Rich rounds light greys one step down (``#eeeeee`` arrives as 254), so
    those are given as the nearest grey Rich sends as the entry itself."""
    from rich.color import Color, ColorSystem

    def sent(value: str) -> int | None:
        return Color.parse(value).downgrade(ColorSystem.EIGHT_BIT).number

    greys: dict[int, list[int]] = {}
    for level in range(256):
        number = sent(f"#{level:02x}{level:02x}{level:02x}")
        if number is not None:
            greys.setdefault(number, []).append(level)
    out = []
    for index in range(16, 256):
        value = xterm_to_hex(index)
        if sent(value) != index:
            level = hex_to_rgb(value)[0]
            levels = greys.get(index)
            if not levels:
                continue  # no value reaches it: leave it out
            best = min(levels, key=lambda v: abs(v - level))
            value = f"#{best:02x}{best:02x}{best:02x}"
        out.append(value)
    return tuple(out)


@cache
def _palette_lab() -> tuple[tuple[str, float, float, float], ...]:
    return tuple((c, *lab(c)) for c in palette())


def ranked(value: str) -> list[str]:
    """Palette colours, closest to ``value`` first."""
    l0, a0, b0 = lab(value)
    return [
        c
        for _, c in sorted(
            ((lum - l0) ** 2 + (a - a0) ** 2 + (b - b0) ** 2, c) for c, lum, a, b in _palette_lab()
        )
    ]


@cache
def nearest(value: str, avoid: str | None = None, lighter: bool | None = None) -> str:
    """The palette colour closest to ``value``; not ``avoid``, and lighter (True) or darker (False) than
    ``avoid`` when asked."""
    l0, a0, b0 = lab(value)
    limit = lab(avoid)[0] if avoid is not None else 0.0
    best, best_d = "", float("inf")
    for c, lum, a, b in _palette_lab():
        if avoid is not None and (
            c == avoid or (lighter is True and lum <= limit) or (lighter is False and lum >= limit)
        ):
            continue
        d = (lum - l0) ** 2 + (a - a0) ** 2 + (b - b0) ** 2
        if d < best_d:
            best, best_d = c, d
    return best


def quantize(hexes: Mapping[str, str], background: str) -> tuple[dict[str, str], str]:
    """Every token and the background as palette colours (see the module docstring)."""
    from .contrast import BACKGROUND, CONTRAST_PAIRS, MIN_RATIO

    screen = nearest(background)
    out: dict[str, str] = {}
    for token, value in hexes.items():
        if token not in BACKGROUND_TOKENS:
            continue
        chosen = nearest(value)
        if chosen == screen and value.lower() != background.lower():
            lighter = lab(value)[0] >= lab(background)[0]
            chosen = nearest(value, avoid=screen, lighter=lighter)
        out[token] = chosen

    def bg(token: str, table: Mapping[str, str], screen_bg: str) -> str:
        return screen_bg if token == BACKGROUND else table[token]

    pairs: dict[str, list[str]] = {}
    for fg, on in CONTRAST_PAIRS:
        pairs.setdefault(fg, []).append(on)
    for token, value in hexes.items():
        if token in BACKGROUND_TOKENS:
            continue
        # Text keeps the contrast it had on each background it is drawn on (up to the 4.5:1 aim), so the
        # rounding of text and backgrounds never leaves a pair unreadable that was readable.
        needs = [
            (bg(on, out, screen), min(MIN_RATIO, contrast_ratio(value, bg(on, hexes, background))))
            for on in pairs.get(token, ())
            if on == BACKGROUND or on in hexes
        ]
        chosen = nearest(value)
        if not all(contrast_ratio(chosen, b) >= need - 0.005 for b, need in needs):
            chosen = next(
                (c for c in ranked(value) if all(contrast_ratio(c, b) >= need - 0.005 for b, need in needs)),
                chosen,
            )
        out[token] = chosen
    return out, screen
