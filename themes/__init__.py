"""pi's JSON themes: loading, tokens, contrast and resolved colours (for Rich and the HTML export).

This package and its modules never import Textual; `themes.textual_adapter` turns the specs into Textual
themes, registers them on an app and highlights code in the active theme's variables.

A pi theme file is `{"$schema"?, "name", "vars"?, "colors": {51 tokens}, "export"?}` (see
`themes/dark.json`); colours are "#rrggbb", an xterm index 0-255, a `vars` name, or "" (terminal
default). Broken input never crashes: each problem is a `ThemeWarning` naming the file and token, and
the token falls back to the dark theme's value.

Textual CSS variables — naming rule: every pi token becomes one variable named `pi-` + the token in
kebab-case, e.g. `accent` -> `$pi-accent`, `toolPendingBg` -> `$pi-tool-pending-bg`,
`mdHeading` -> `$pi-md-heading`, `thinkingXhigh` -> `$pi-thinking-xhigh`, `bashMode` -> `$pi-bash-mode`.
The `pi-` prefix avoids clashes with Textual's own variables (`$accent`, `$border`, `$success`, ...).
Variables always hold concrete colours ("" becomes the theme's foreground or background), except in
terminal-palette themes (`terminal-dark`, `terminal-light`) which use `ansi_default`/`ansi_*` names.

Textual base colours: primary=accent, secondary=border, accent=borderAccent, success/warning/error,
foreground=text, background=export.pageBg or cardBg (the more extreme; else derived from
userMessageBg), surface=export.cardBg, panel=userMessageBg; `$border`/`$border-blurred` = borderAccent/borderMuted.

Code highlighting: `textual_adapter.PiHighlightTheme` (Textual `Content`, via `$pi-syntax-*`),
`textual_adapter.variables_syntax_theme(app.theme_variables)` (Rich `Syntax`/`Markdown` code blocks in the
active theme), `rich_syntax_theme(name)` / `pygments_style(name)` (a named theme, e.g. for the HTML export). Widgets holding pre-rendered content
re-render on `app.theme_changed_signal` (`widgets.rendering.on_theme_change`), which also fires when the
active theme file is hot-reloaded (`textual_adapter.install_theme`). `CONTRAST_PAIRS` lists every (text, background)
token pair the widgets draw; `PI_EXCEPTIONS` the sub-4.5:1 pairs pi's own dark/light ship with.

An app whose TCSS uses `$pi-*` should return `themes.variable_defaults()` from
`App.get_theme_variable_defaults()` so Textual's own themes still parse.
"""

from __future__ import annotations

from .contrast import CONTRAST_PAIRS, PI_EXCEPTIONS, contrast_failures
from .convert import is_terminal_palette
from .loader import ThemeSpec, ThemeWarning, load_theme_file, parse_theme
from .registry import (
    BUILTIN_THEMES,
    add_user_theme,
    available_themes,
    discover_themes,
    export_colors,
    get_spec,
    rich_token_colors,
    token_colors,
    variable_defaults,
)
from .syntax import pygments_style, rich_syntax_theme
from .tokens import TOKENS, contrast_ratio, css_variable_name, xterm_to_hex
from .watch import ThemeWatcher, detect_default_theme

__all__ = [
    "BUILTIN_THEMES",
    "CONTRAST_PAIRS",
    "PI_EXCEPTIONS",
    "TOKENS",
    "ThemeSpec",
    "ThemeWarning",
    "ThemeWatcher",
    "add_user_theme",
    "available_themes",
    "contrast_failures",
    "contrast_ratio",
    "css_variable_name",
    "detect_default_theme",
    "discover_themes",
    "export_colors",
    "get_spec",
    "is_terminal_palette",
    "load_theme_file",
    "parse_theme",
    "pygments_style",
    "rich_syntax_theme",
    "rich_token_colors",
    "token_colors",
    "variable_defaults",
    "xterm_to_hex",
]
