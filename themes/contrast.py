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
# Markdown (and the code blocks inside it) also renders in user messages and expanded summaries.
_MARKDOWN = ("mdHeading", "mdLink", "mdCode", "mdCodeBlock", "mdQuote", "mdListBullet", *SYNTAX_TOKENS)
# What a tool box draws (widgets/tool_format.py): title, output, the path (accent), line ranges and
# truncation notes (warning), timeouts and expand hints (muted, dim), failures (error), and
# highlighted file contents (read results, write previews, which stay visible when a write fails).
_TOOL_TEXT = ("toolTitle", "toolOutput", "accent", "warning", "muted", "dim", "error", *SYNTAX_TOKENS)

CONTRAST_PAIRS: tuple[tuple[str, str], ...] = (
    *((fg, BACKGROUND) for fg in _ON_BACKGROUND),
    ("text", "selectedBg"),
    ("accent", "selectedBg"),
    ("userMessageText", "userMessageBg"),
    *((fg, "userMessageBg") for fg in _MARKDOWN),
    ("customMessageText", "customMessageBg"),
    ("customMessageLabel", "customMessageBg"),
    ("dim", "customMessageBg"),  # the expand key in a collapsed summary
    *((fg, "customMessageBg") for fg in _MARKDOWN),
    *((fg, bg) for bg in _TOOL_BGS for fg in _TOOL_TEXT),
    # Edit diffs (the argument preview while pending, the result diff once done). Word-level changes
    # are drawn reversed (the tool background on the diff colour): the same pair, the same ratio.
    *((fg, bg) for bg in ("toolPendingBg", "toolSuccessBg") for fg in ("toolDiffAdded", "toolDiffRemoved")),
    ("toolDiffContext", "toolPendingBg"),
    ("toolDiffContext", "toolSuccessBg"),
)
"""(text token, background token) pairs that must reach 4.5:1."""

MIN_RATIO = 4.5


def _pairs(by_background: dict[str, tuple[str, ...]]) -> frozenset[tuple[str, str]]:
    return frozenset((fg, bg) for bg, fgs in by_background.items() for fg in fgs)


# pi's own dark/light keep pi's exact values (spec §7.9: the gray/dimGray vars, the tool backgrounds,
# VS Code Dark+/Light+ syntax colours, the teal/green/yellow light vars) so they look like pi. These
# pairs fall short of 4.5:1 in pi itself; users who need more contrast pick `high-contrast` (7:1
# everywhere). Every other built-in has no exceptions. Ratios are noted for the worst member.
PI_EXCEPTIONS: dict[str, frozenset[tuple[str, str]]] = {
    "dark": _pairs(
        {
            # gray #808080 (4.47) and dimGray #666666 (3.08, tertiary text by design)
            BACKGROUND: ("muted", "thinkingText", "mdQuote", "toolDiffContext", "dim", "mdLinkUrl"),
            "userMessageBg": ("mdQuote", "syntaxComment", "syntaxKeyword"),  # 3.07
            "customMessageBg": ("customMessageLabel", "dim", "mdQuote", "syntaxComment"),  # 2.48
            # gray output, dimGray hints, red #cc6666 and Dark+ comment green on the tinted boxes
            "toolPendingBg": (
                "toolOutput",
                "muted",
                "dim",
                "error",
                "syntaxComment",
                "toolDiffRemoved",
                "toolDiffContext",
            ),
            "toolSuccessBg": (
                "toolOutput",
                "muted",
                "dim",
                "error",
                "syntaxComment",
                "toolDiffRemoved",
                "toolDiffContext",
            ),
            "toolErrorBg": ("toolOutput", "muted", "dim", "error", "syntaxComment"),  # 2.4
        }
    ),
    "light": _pairs(
        {
            # teal #5a8080 / green #588458 / yellow #9a7326 / blue #547da7 on white: 4.31-4.34
            BACKGROUND: (
                "accent",
                "success",
                "warning",
                "mdHeading",
                "mdLink",
                "mdCode",
                "mdCodeBlock",
                "mdListBullet",
                "toolDiffAdded",
            ),
            "selectedBg": ("accent",),  # 2.85
            # the same colours and Light+ comment/number/type on the tinted backgrounds: 3.52-4.42
            "userMessageBg": (
                "mdHeading",
                "mdLink",
                "mdCode",
                "mdCodeBlock",
                "mdQuote",
                "mdListBullet",
                "syntaxComment",
                "syntaxNumber",
                "syntaxType",
            ),
            "customMessageBg": (
                "customMessageLabel",
                "dim",
                "mdHeading",
                "mdLink",
                "mdCode",
                "mdCodeBlock",
                "mdQuote",
                "mdListBullet",
                "syntaxComment",
                "syntaxNumber",
                "syntaxType",
            ),
            "toolPendingBg": (
                "toolOutput",
                "accent",
                "warning",
                "muted",
                "dim",
                "error",
                "syntaxComment",
                "syntaxNumber",
                "syntaxType",
                "toolDiffAdded",
                "toolDiffRemoved",
                "toolDiffContext",
            ),
            "toolSuccessBg": (
                "accent",
                "warning",
                "dim",
                "error",
                "syntaxComment",
                "syntaxNumber",
                "syntaxType",
                "toolDiffAdded",
                "toolDiffRemoved",
            ),
            "toolErrorBg": (
                "toolOutput",
                "accent",
                "warning",
                "muted",
                "dim",
                "error",
                "syntaxComment",
                "syntaxNumber",
                "syntaxType",
            ),
        }
    ),
}
"""Known sub-4.5 pairs of pi's own themes (see above); checked to really fail, so the list stays minimal."""


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
