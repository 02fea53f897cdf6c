"""WCAG contrast pairs: which text token is drawn on which background in the TUI."""

from __future__ import annotations

from .convert import background_of, is_terminal_palette
from .registry import get_spec, token_colors
from .tokens import SYNTAX_TOKENS, contrast_ratio

BACKGROUND = "background"
"""Pseudo-token: the Textual screen background (pi draws plain text on the terminal background)."""

_ON_BACKGROUND = (
    "accent",
    "success",
    "error",
    "warning",
    "muted",
    "dim",
    "text",
    "thinkingText",
    "mdHeading",
    "mdLink",
    "mdLinkUrl",
    "mdCode",
    "mdCodeBlock",
    "mdQuote",
    "mdListBullet",
    "toolDiffAdded",
    "toolDiffRemoved",
    "toolDiffContext",
    *SYNTAX_TOKENS,
)
_TOOL_BGS = ("toolPendingBg", "toolSuccessBg", "toolErrorBg")

CONTRAST_PAIRS: tuple[tuple[str, str], ...] = (
    *((fg, BACKGROUND) for fg in _ON_BACKGROUND),
    ("text", "selectedBg"),
    ("accent", "selectedBg"),
    ("userMessageText", "userMessageBg"),
    ("customMessageText", "customMessageBg"),
    ("customMessageLabel", "customMessageBg"),
    *((fg, bg) for bg in _TOOL_BGS for fg in ("toolTitle", "toolOutput")),
    # Edit diffs and highlighted file contents render inside the tool box.
    *((fg, bg) for bg in ("toolPendingBg", "toolSuccessBg") for fg in ("toolDiffAdded", "toolDiffRemoved")),
    ("toolDiffContext", "toolSuccessBg"),
    *((fg, "toolSuccessBg") for fg in SYNTAX_TOKENS),
)
"""(text token, background token) pairs that must reach 4.5:1."""

MIN_RATIO = 4.5


def pair_ratio(name: str, fg: str, bg: str) -> float:
    colors = token_colors(name)
    bg_hex = background_of(get_spec(name)) if bg == BACKGROUND else colors[bg]
    return contrast_ratio(colors[fg], bg_hex)


def contrast_failures(name: str, minimum: float = MIN_RATIO) -> list[tuple[str, str, float]]:
    """Pairs of theme `name` below `minimum`; terminal-palette themes are not checkable (their
    colours are whatever the user's terminal palette says) and return []."""
    if is_terminal_palette(get_spec(name)):
        return []
    out = []
    for fg, bg in CONTRAST_PAIRS:
        ratio = pair_ratio(name, fg, bg)
        if ratio < minimum:
            out.append((fg, bg, round(ratio, 2)))
    return out
