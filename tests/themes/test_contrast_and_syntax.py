"""WCAG contrast for every built-in theme; syntax styles built from the syntax tokens."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.syntax import Syntax

import themes
from themes.contrast import CONTRAST_PAIRS, PI_EXCEPTIONS, pair_ratio


def test_contrast_ratio_known_values():
    assert themes.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert themes.contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert themes.contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_pairs_cover_every_text_token_drawn_on_a_background():
    fgs = {fg for fg, _ in CONTRAST_PAIRS}
    for token in ("text", "userMessageText", "toolOutput", "mdHeading", "syntaxKeyword", "toolDiffAdded"):
        assert token in fgs
    assert ("toolOutput", "toolErrorBg") in CONTRAST_PAIRS


@pytest.mark.parametrize("name", themes.BUILTIN_THEMES)
def test_builtin_theme_contrast(name):
    if themes.is_terminal_palette(themes.get_spec(name)):
        pytest.skip("terminal-palette theme: colours come from the user's terminal")
    excluded = PI_EXCEPTIONS.get(name, frozenset())
    failures = [(fg, bg, r) for fg, bg, r in themes.contrast_failures(name) if (fg, bg) not in excluded]
    assert failures == []
    # Exclusions must stay minimal: each listed pair really fails (otherwise drop it from the list).
    for fg, bg in excluded:
        assert pair_ratio(name, fg, bg) < 4.5, (fg, bg)


def test_high_contrast_meets_aaa():
    assert themes.contrast_failures("high-contrast", minimum=7.0) == []


@pytest.mark.parametrize("name", ["dark", "light", "nord"])
def test_pygments_and_rich_syntax_use_theme_colours(name):
    from pygments.token import Comment, Keyword, String

    style = themes.pygments_style(name)
    hexes = themes.token_colors(name)
    assert style.style_for_token(Keyword)["color"] == hexes["syntaxKeyword"].lstrip("#")
    assert style.style_for_token(String)["color"] == hexes["syntaxString"].lstrip("#")
    assert style.style_for_token(Comment)["italic"]

    console = Console(color_system="truecolor", width=40, record=True)
    console.print(Syntax("return 'x'", "python", theme=themes.rich_syntax_theme(name)))
    html = console.export_html(inline_styles=True)
    assert hexes["syntaxKeyword"] in html and hexes["syntaxString"] in html
