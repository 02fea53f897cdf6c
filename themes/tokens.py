"""pi's 51 colour tokens, the xterm 256-colour palette and small colour helpers (pure functions)."""

from __future__ import annotations

import re

# The 51 tokens every pi theme defines, in pi's documented order and groups.
CORE_TOKENS: tuple[str, ...] = (
    "accent",
    "border",
    "borderAccent",
    "borderMuted",
    "success",
    "error",
    "warning",
    "muted",
    "dim",
    "text",
    "thinkingText",
)
CONTENT_TOKENS: tuple[str, ...] = (
    "selectedBg",
    "userMessageBg",
    "userMessageText",
    "customMessageBg",
    "customMessageText",
    "customMessageLabel",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
    "toolTitle",
    "toolOutput",
)
MARKDOWN_TOKENS: tuple[str, ...] = (
    "mdHeading",
    "mdLink",
    "mdLinkUrl",
    "mdCode",
    "mdCodeBlock",
    "mdCodeBlockBorder",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdListBullet",
)
DIFF_TOKENS: tuple[str, ...] = ("toolDiffAdded", "toolDiffRemoved", "toolDiffContext")
SYNTAX_TOKENS: tuple[str, ...] = (
    "syntaxComment",
    "syntaxKeyword",
    "syntaxFunction",
    "syntaxVariable",
    "syntaxString",
    "syntaxNumber",
    "syntaxType",
    "syntaxOperator",
    "syntaxPunctuation",
)
THINKING_TOKENS: tuple[str, ...] = (
    "thinkingOff",
    "thinkingMinimal",
    "thinkingLow",
    "thinkingMedium",
    "thinkingHigh",
    "thinkingXhigh",
)
TOKENS: tuple[str, ...] = (
    CORE_TOKENS
    + CONTENT_TOKENS
    + MARKDOWN_TOKENS
    + DIFF_TOKENS
    + SYNTAX_TOKENS
    + THINKING_TOKENS
    + ("bashMode",)
)
assert len(TOKENS) == 51

# Tokens used as background colours; every other token is a foreground colour.
BACKGROUND_TOKENS: frozenset[str] = frozenset(
    {"selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"}
)
EXPORT_KEYS: tuple[str, ...] = ("pageBg", "cardBg", "infoBg")

CSS_PREFIX = "pi-"


def css_variable_name(token: str) -> str:
    """`toolPendingBg` -> `pi-tool-pending-bg` (used in TCSS as `$pi-tool-pending-bg`)."""
    return CSS_PREFIX + re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", token).lower()


# --- xterm 256-colour palette --------------------------------------------------------------------

# 0-15 are terminal-defined; these are the conventional xterm values (same as pi's HTML export).
_BASIC16: tuple[str, ...] = (
    "#000000",
    "#800000",
    "#008000",
    "#808000",
    "#000080",
    "#800080",
    "#008080",
    "#c0c0c0",
    "#808080",
    "#ff0000",
    "#00ff00",
    "#ffff00",
    "#0000ff",
    "#ff00ff",
    "#00ffff",
    "#ffffff",
)
# Textual's names for the 16 terminal palette colours, used by terminal-palette themes.
ANSI_NAMES: tuple[str, ...] = (
    "ansi_black",
    "ansi_red",
    "ansi_green",
    "ansi_yellow",
    "ansi_blue",
    "ansi_magenta",
    "ansi_cyan",
    "ansi_white",
    "ansi_bright_black",
    "ansi_bright_red",
    "ansi_bright_green",
    "ansi_bright_yellow",
    "ansi_bright_blue",
    "ansi_bright_magenta",
    "ansi_bright_cyan",
    "ansi_bright_white",
)
_CUBE = (0, 95, 135, 175, 215, 255)


def xterm_to_hex(index: int) -> str:
    """Hex value of an xterm 256-colour index (0-15 use the conventional xterm defaults)."""
    if not 0 <= index <= 255:
        raise ValueError(f"256-colour index out of range: {index}")
    if index < 16:
        return _BASIC16[index]
    if index < 232:
        i = index - 16
        r, g, b = _CUBE[i // 36], _CUBE[(i // 6) % 6], _CUBE[i % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    level = 8 + (index - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


_HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


def is_hex(value: str) -> bool:
    return bool(_HEX_RE.match(value))


def hex_to_rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def rgb_to_hex(rgb: tuple[float, float, float]) -> str:
    r, g, b = (max(0, min(255, round(c))) for c in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def relative_luminance(value: str) -> float:
    """WCAG 2.x relative luminance of a "#rrggbb" colour."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = hex_to_rgb(value)
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(fg: str, bg: str) -> float:
    """WCAG contrast ratio (1.0-21.0) between two "#rrggbb" colours."""
    a, b = relative_luminance(fg), relative_luminance(bg)
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def mix(a: str, b: str, amount: float) -> str:
    """Blend `amount` (0-1) of colour b into colour a."""
    ra, ga, ba = hex_to_rgb(a)
    rb, gb, bb = hex_to_rgb(b)
    return rgb_to_hex((ra + (rb - ra) * amount, ga + (gb - ga) * amount, ba + (bb - ba) * amount))
