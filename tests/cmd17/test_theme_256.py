"""Themes in 256-colour terminals (issue 17): every colour a deliberate palette choice that the terminal
shows as chosen, panel and message backgrounds kept apart from the screen, text contrast kept, and one
snapshot of each built-in theme drawn at 256 colours."""

from __future__ import annotations

import io

import pytest
from rich.color import Color, ColorSystem
from rich.console import Console

import themes
from tests.theme_snapshots.screens import SIZE, ScreenApp, conversation
from themes import textual_adapter
from themes.contrast import BACKGROUND, CONTRAST_PAIRS, MIN_RATIO
from themes.convert import background_of, token_hex
from themes.palette256 import lab, palette, quantize
from themes.tokens import BACKGROUND_TOKENS, contrast_ratio, hex_to_rgb, xterm_to_hex

HEX_THEMES = [n for n in themes.BUILTIN_THEMES if not themes.is_terminal_palette(themes.get_spec(n))]


def shown(value: str) -> str:
    """What a 256-colour terminal shows for ``value`` (Rich picks the palette entry)."""
    number = Color.parse(value).downgrade(ColorSystem.EIGHT_BIT).number
    assert number is not None
    return xterm_to_hex(number)


def chroma(value: str) -> float:
    _, a, b = lab(value)
    return (a * a + b * b) ** 0.5


def quantized(name: str) -> tuple[dict[str, str], str, dict[str, str], str]:
    spec = themes.get_spec(name)
    hexes, background = token_hex(spec), background_of(spec)
    q, screen = quantize(hexes, background)
    return hexes, background, q, screen


def test_every_palette_value_is_shown_as_itself():
    for value in palette():
        assert all(abs(x - y) <= 10 for x, y in zip(hex_to_rgb(value), hex_to_rgb(shown(value)), strict=True))
    assert len(palette()) >= 236


@pytest.mark.parametrize("name", HEX_THEMES)
def test_backgrounds_stay_visible_and_text_stays_readable(name):
    hexes, background, q, screen = quantized(name)
    assert set(q) == set(hexes) and screen in palette() and set(q.values()) <= set(palette())
    for token in BACKGROUND_TOKENS:
        if hexes[token].lower() != background.lower():
            assert q[token] != screen, token  # a panel never melts into the screen
    for fg, on in CONTRAST_PAIRS:
        before = contrast_ratio(hexes[fg], background if on == BACKGROUND else hexes[on])
        after = contrast_ratio(q[fg], screen if on == BACKGROUND else q[on])
        assert after >= min(before, MIN_RATIO) - 0.01, (fg, on, before, after)
    for token in BACKGROUND_TOKENS:  # pale tints stay pale (light's tool panels were bright green)
        assert chroma(q[token]) <= chroma(hexes[token]) + 12, token


@pytest.mark.parametrize("name", ["catppuccin-mocha", "tokyo-night"])
def test_rounding_by_channel_would_have_lost_the_panels(name):
    """The problem as reported: Rich's rounding puts these themes' panels on the screen's own colour."""
    hexes, background, q, screen = quantized(name)
    assert shown(hexes["toolSuccessBg"]) == shown(background)
    assert q["toolSuccessBg"] != screen


def test_nord_and_light_keep_their_character():
    _, _, nord, nord_screen = quantized("nord")
    assert chroma(nord_screen) < 5  # slate grey, not the teal #005f5f
    _, _, light, _ = quantized("light")
    assert all(chroma(light[t]) < 5 for t in ("toolPendingBg", "toolSuccessBg", "userMessageBg"))


def console_256() -> Console:
    return Console(
        color_system="256",
        file=io.StringIO(),
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
    )


class ScreenApp256(ScreenApp):
    """The per-theme screen app on a terminal that has 256 colours."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.console = console_256()


async def test_the_app_detects_256_colours_and_registers_palette_themes():
    app = ScreenApp256(conversation, "catppuccin-mocha")
    async with app.run_test(size=SIZE):
        assert textual_adapter.color_depth(app) == "256"
        variables = app.get_css_variables()
        assert variables["pi-tool-pending-bg"].lower() in palette()
        assert variables["background"].lower() in palette()
    plain = ScreenApp(conversation, "catppuccin-mocha")
    async with plain.run_test(size=SIZE):
        assert textual_adapter.color_depth(plain) == "truecolor"
        assert plain.get_css_variables()["pi-tool-pending-bg"].lower() == "#1e1e2e"


@pytest.mark.parametrize("theme", themes.BUILTIN_THEMES)
def test_theme_at_256_colours(snap_compare, theme):
    assert snap_compare(ScreenApp256(conversation, theme), terminal_size=SIZE)
