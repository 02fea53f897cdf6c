"""Shared rendering helpers: a theme-aware Rich Markdown renderable and an update throttle."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.text import Text
from rich.theme import Theme as RichTheme
from textual.timer import Timer
from textual.widget import Widget

# Rich markdown style names -> pi tokens (as Textual variable names).
_MD_STYLES = {
    "markdown.h1": ("pi-md-heading", "bold underline"),
    "markdown.h2": ("pi-md-heading", "bold"),
    "markdown.h3": ("pi-md-heading", "bold"),
    "markdown.h4": ("pi-md-heading", "bold"),
    "markdown.h5": ("pi-md-heading", "bold"),
    "markdown.h6": ("pi-md-heading", "bold"),
    "markdown.code": ("pi-md-code", ""),
    "markdown.link": ("pi-md-link", ""),
    "markdown.link_url": ("pi-md-link-url", "underline"),
    "markdown.block_quote": ("pi-md-quote", "italic"),
    "markdown.hr": ("pi-md-hr", ""),
    "markdown.item.bullet": ("pi-md-list-bullet", ""),
    "markdown.item.number": ("pi-md-list-bullet", ""),
}


def markdown_theme(variables: Mapping[str, str]) -> RichTheme:
    styles: dict[str, Style] = {}
    for name, (var, extra) in _MD_STYLES.items():
        colour = variables.get(var)
        try:
            styles[name] = (
                Style.parse(f"{extra} {colour}".strip()) if colour else Style.parse(extra or "none")
            )
        except Exception:  # an odd colour value (e.g. "ansi_default") must not break rendering
            styles[name] = Style.parse(extra or "none")
    return RichTheme(styles, inherit=True)


class ThemedMarkdown:
    """Rich Markdown rendered with pi's markdown colours, looked up when drawn (so theme switches apply)."""

    def __init__(
        self,
        markup: str,
        get_variables: Callable[[], Mapping[str, str]],
        style: str = "",
        italic: bool = False,
    ) -> None:
        self.markup = markup
        self._get_variables = get_variables
        self._style = style
        self._italic = italic

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        variables = self._get_variables()
        style = Style(italic=True) if self._italic else Style()
        if self._style and variables.get(self._style):
            try:
                style += Style.parse(variables[self._style])
            except Exception:
                pass
        md = RichMarkdown(self.markup, style=style, code_theme="monokai")
        with console.use_theme(markdown_theme(variables)):
            lines = console.render_lines(md, options, pad=False, new_lines=True)
        for line in lines:
            yield from line


def group(*parts: Any) -> Group:
    return Group(*[p for p in parts if p is not None])


def styled_text(text: str, variables: Mapping[str, str], var: str, extra: str = "") -> Text:
    colour = variables.get(var, "")
    try:
        return Text(text, style=Style.parse(f"{extra} {colour}".strip() or "none"))
    except Exception:
        return Text(text)


class Throttle:
    """Run ``callback`` at most once per ``interval`` seconds (coalesces bursts of updates)."""

    def __init__(self, owner: Widget, callback: Callable[[], None], interval: float = 1 / 30) -> None:
        self._owner = owner
        self._callback = callback
        self._interval = interval
        self._timer: Timer | None = None

    def __call__(self) -> None:
        if self._timer is None:
            self._timer = self._owner.set_timer(self._interval, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._callback()

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._callback()
