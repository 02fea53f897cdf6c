"""Shared rendering helpers: a theme-aware Rich Markdown renderable (cached per width, drawn line by line
through :class:`CachedVisual`, joinable from pieces), theme-change subscription for widgets holding
pre-rendered content, and an update throttle."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderResult
from rich.markdown import CodeBlock
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme as RichTheme
from textual.content import Content
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.theme import Theme
from textual.timer import Timer
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget
from textual.widgets import Static

from themes.textual_adapter import rich_color, variables_syntax_theme
from widgets.markdown_stream import rich_parser

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
    # With hyperlinks on (Rich's default) the visible link *text* gets the link_url style and the URL
    # is only the OSC 8 target, so it takes pi's link colour (pi: text in mdLink, underlined).
    "markdown.link_url": ("pi-md-link", "underline"),
    "markdown.block_quote": ("pi-md-quote", "italic"),
    "markdown.hr": ("pi-md-hr", ""),
    "markdown.item.bullet": ("pi-md-list-bullet", ""),
    "markdown.item.number": ("pi-md-list-bullet", ""),
}


def _style(variables: Mapping[str, str], var: str, extra: str = "") -> Style:
    """``extra`` plus the colour held by Textual variable ``var``; an unknown or odd colour value
    leaves the colour unset rather than breaking rendering. ``ansi_*`` values (terminal-palette
    themes) become Rich palette colours."""
    colour = rich_color(variables.get(var))
    return Style.parse(f"{extra} {colour or ''}".strip() or "none")


def markdown_theme(variables: Mapping[str, str]) -> RichTheme:
    styles = {name: _style(variables, var, extra) for name, (var, extra) in _MD_STYLES.items()}
    return RichTheme(styles, inherit=True)


class _VariablesVersion:
    """A number that changes only when the pi colours (``pi-*`` variables, the only ones these
    renderables read) change.

    Textual rebuilds ``theme_variables`` (a new dict) whenever it refreshes CSS, often with the same pi
    values (at startup the first frame is laid out before the chosen theme's CSS refresh); keying render
    caches on identity would throw away every pre-rendered message."""

    def __init__(self) -> None:
        self._obj: Mapping[str, str] | None = None
        self._pi: dict[str, str] = {}
        self.version = 0

    def __call__(self, variables: Mapping[str, str]) -> int:
        if variables is not self._obj:
            pi = {k: v for k, v in variables.items() if k.startswith("pi-")}
            if pi != self._pi:
                self._pi = pi
                self.version += 1
            self._obj = variables
        return self.version


variables_version = _VariablesVersion()


class CachedRender:
    """Base for renderables drawn from theme variables: rendered lines are cached per width and
    reused until the theme's colours change. Layout asks every message for its height and then for its
    lines, several times per frame; re-parsing Markdown each time dominated resume and relayouts."""

    def __init__(self, get_variables: Callable[[], Mapping[str, str]]) -> None:
        self._get_variables = get_variables
        self._cache_version = -1
        self._cache: dict[int, list[list[Segment]]] = {}
        self.render_seconds = 0.0  # how long the last render took (wall clock)

    def build(self, variables: Mapping[str, str]) -> Any:
        raise NotImplementedError

    def size(self) -> int:
        """Characters of source: what rendering this costs, roughly."""
        return 0

    def pending(self, width: int) -> int:
        """Characters still to render for ``width`` (0: the lines are cached for the current colours)."""
        if width in self._cache and self._cache_version == variables_version(self._get_variables()):
            return 0
        return self.size()

    def theme(self, variables: Mapping[str, str]) -> RichTheme | None:
        return None

    def render_lines(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        variables = self._get_variables()
        version = variables_version(variables)
        if version != self._cache_version:
            self._cache_version = version
            self._cache = {}
        width = options.max_width
        lines = self._cache.get(width)
        if lines is None:
            started = time.perf_counter()
            lines = self._render(console, options, variables)
            self.render_seconds = time.perf_counter() - started
            if len(self._cache) >= 4:  # a few widths (resizes); never unbounded
                self._cache.clear()
            self._cache[width] = lines
        return lines

    def cached_lines(self, width: int) -> list[list[Segment]] | None:
        """The lines at ``width`` if they are rendered for the current colours (None: not yet)."""
        if self._cache_version != variables_version(self._get_variables()):
            return None
        return self._cache.get(width)

    def prerender(self, console: Console, options: ConsoleOptions) -> None:
        """Fill the cache for ``options.max_width`` (safe to call from a worker thread: Rich keeps its
        theme stack per thread), so the first layout after mounting finds the lines ready."""
        self.render_lines(console, options)

    def _render(
        self, console: Console, options: ConsoleOptions, variables: Mapping[str, str]
    ) -> list[list[Segment]]:
        renderable = self.build(variables)
        opts = options.update(height=None)
        theme = self.theme(variables)
        if theme is None:
            return console.render_lines(renderable, opts, pad=False, new_lines=True)
        with console.use_theme(theme):
            return console.render_lines(renderable, opts, pad=False, new_lines=True)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.render_lines(console, options):
            yield from line


_STRIPS_BY_LINE = 1_000  # strips kept by line for the next content: a few screens' worth


class CachedVisual(RichVisual):
    """How a widget draws a :class:`CachedRender`: its height is the number of cached lines, and its lines
    are built straight from them, one at a time as they are painted (:meth:`line`; ``RichVisual`` renders
    the renderable again through Rich on every height query and every repaint, then re-splits and re-crops
    every line of it, on screen or not). A long frozen message is laid out and painted without touching
    Rich, and only its visible lines are ever built."""

    def __init__(self, widget: Widget, renderable: CachedRender) -> None:
        super().__init__(widget, renderable)
        self.cached = renderable
        self._key: tuple[object, ...] | None = None
        self._lines: list[list[Segment]] | None = None
        self._link_style: Style | None = None
        self._built: dict[int, Strip] = {}
        # Strips by the rendered line they were built from (its id, with the line kept alive): a new
        # content made of the same cached lines (a streamed block that grew) builds only its new lines.
        self._by_line: dict[int, tuple[list[Segment], Strip]] = {}

    def inherit(self, previous: CachedVisual) -> None:
        """Reuse the strips ``previous`` built for lines this content draws too (same width and style)."""
        self._key = previous._key
        self._link_style = previous._link_style
        self._by_line = previous._by_line

    def _lines_at(self, width: int) -> list[list[Segment]]:
        lines = self.cached.cached_lines(width)
        if lines is not None:
            return lines  # painting asks per line: no console options built for each
        app = self._widget.app
        options = app.console_options.update_width(width).update(highlight=False)
        return self.cached.render_lines(app.console, options)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self._lines_at(width))

    def line(self, y: int, width: int, style: VisualStyle) -> Strip | None:
        """Line ``y`` as ``render_strips`` draws it (None: past the last line), built once."""
        lines = self._lines_at(width)
        key = (width, style.rich_style)  # the link style follows the widget's styles, as this does
        if key != self._key or lines is not self._lines:
            widget = self._widget
            if key != self._key:
                self._by_line = {}
            self._link_style = widget.link_style if widget.auto_links else None
            self._key, self._lines, self._built = key, lines, {}
        strip = self._built.get(y)
        if strip is None:
            if not 0 <= y < len(lines):
                return None
            line = lines[y]
            known = self._by_line.get(id(line))
            if known is not None and known[0] is line:
                strip = known[1]
            else:
                strip = _strip(line, width, style.rich_style, self._link_style)
                if len(self._by_line) >= _STRIPS_BY_LINE:
                    self._by_line = {}
                self._by_line[id(line)] = (line, strip)
            self._built[y] = strip
        return strip

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        count = len(self._lines_at(width))
        count = count if height is None else min(height, count)
        return [line for y in range(count) if (line := self.line(y, width, style)) is not None]


def _strip(line: list[Segment], width: int, base: Style | None, link_style: Style | None) -> Strip:
    """What RichVisual draws for one rendered line: the widget's base style under each segment, the link
    style over clickable ones, cropped to the width (minus Rich's re-render and re-split of the line)."""
    segments: list[Segment] = []
    for text, seg_style, control in line:
        if text == "\n" and not control:
            continue
        if base:
            seg_style, control = (base + seg_style if seg_style else base), None
        if link_style and seg_style is not None and seg_style._meta is not None:
            if "@click" in seg_style.meta:
                seg_style = seg_style + link_style
        segments.append(Segment(text, seg_style, control))
    strip = Strip(segments)
    return strip.crop(0, width) if strip.cell_length > width else strip


async def prerender_off_loop(renderable: CachedRender, options: ConsoleOptions) -> None:
    """Render ``renderable`` at ``options.max_width`` in a worker thread, so a long message freezes
    without stalling keys and frames."""
    await asyncio.to_thread(prerender_detached, renderable, options)


def prerender_detached(renderable: CachedRender, options: ConsoleOptions) -> None:
    """Render ``renderable`` at ``options.max_width`` with a private Console: for worker threads (Rich's
    theme stack is shared between threads of one Console, and the app's console keeps drawing meanwhile)."""
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", highlight=False)
    renderable.prerender(console, options)


def warm_markdown() -> None:
    """Pay the first-use costs of drawing an answer ahead of it, in the caller's (worker) thread: Rich's
    Markdown parser and Pygments' Python lexer for a code block. Otherwise the first answer pays them on the
    event loop (~60–170 ms) while it streams."""
    sample = "# warm\n\nSome *text*, `code` and a list:\n\n- one\n\n```python\ndef f(x):\n    return x\n```\n"
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", highlight=False)
    console.print(FastCodeMarkdown(sample))


@lru_cache(maxsize=64)
def _lexer(name: str) -> Any:
    """The Pygments lexer Rich's Syntax would look up for ``name`` (its plain-text one when none matches)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=4)


class _CodeBlock(CodeBlock):
    """Rich's code block, with its lexer looked up once per language: Rich looks it up by name for every
    block it draws, a scan of every lexer Pygments knows (a sixth of rendering a code-heavy answer)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, _lexer(self.lexer_name), theme=self.theme, word_wrap=True, padding=1)


class FastCodeMarkdown(RichMarkdown):
    """``rich.markdown.Markdown`` drawing code blocks with a cached lexer, parsed by one shared parser (Rich
    builds a new one for every text: ~1 ms, as long as parsing a short paragraph). The same output."""

    elements = {**RichMarkdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}

    def __init__(
        self,
        markup: str,
        code_theme: Any = "monokai",
        justify: JustifyMethod | None = None,
        style: str | Style = "none",
        hyperlinks: bool = True,
        inline_code_lexer: str | None = None,
        inline_code_theme: str | None = None,
    ) -> None:
        # What rich.markdown.Markdown.__init__ sets (tests compare the two), minus building a parser.
        self.markup = markup
        self.parsed = rich_parser().parse(markup)
        self.code_theme = code_theme
        self.justify = justify
        self.style = style
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = inline_code_lexer
        self.inline_code_theme = inline_code_theme or code_theme


class ThemedMarkdown(CachedRender):
    """Rich Markdown rendered with pi's markdown colours, looked up when drawn (so theme switches apply)."""

    def __init__(
        self,
        markup: str,
        get_variables: Callable[[], Mapping[str, str]],
        style: str = "",
        italic: bool = False,
    ) -> None:
        super().__init__(get_variables)
        self.markup = markup
        self._style = style
        self._italic = italic

    def size(self) -> int:
        return len(self.markup)

    def build(self, variables: Mapping[str, str]) -> Any:
        style = Style(italic=True) if self._italic else Style()
        if self._style:
            style += _style(variables, self._style)
        # Fenced code takes the active theme's syntax* colours (Rich accepts a SyntaxTheme object here).
        code_theme: Any = variables_syntax_theme(variables)
        return FastCodeMarkdown(self.markup, style=style, code_theme=code_theme)

    def theme(self, variables: Mapping[str, str]) -> RichTheme | None:
        return markdown_theme(variables)


class ThemedText(CachedRender):
    """Plain text in the colour of one theme variable, looked up when drawn."""

    def __init__(
        self, text: str, get_variables: Callable[[], Mapping[str, str]], var: str, extra: str = ""
    ) -> None:
        super().__init__(get_variables)
        self.text = text
        self._var = var
        self._extra = extra

    def size(self) -> int:
        return len(self.text)

    def build(self, variables: Mapping[str, str]) -> Any:
        return Text(self.text, style=_style(variables, self._var, self._extra))


class Stacked(CachedRender):
    """Several renderables one under the other with a blank line between them, cached as one."""

    def __init__(self, parts: list[Any], get_variables: Callable[[], Mapping[str, str]]) -> None:
        super().__init__(get_variables)
        self.parts = parts

    def size(self) -> int:
        return sum(p.size() for p in self.parts if isinstance(p, CachedRender))

    def pending(self, width: int) -> int:
        return sum(p.pending(width) for p in self.parts if isinstance(p, CachedRender))

    def render_lines(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        if len(self.parts) == 1 and isinstance(self.parts[0], CachedRender):
            return self.parts[0].render_lines(console, options)  # the usual case: nothing to stack
        return super().render_lines(console, options)

    def cached_lines(self, width: int) -> list[list[Segment]] | None:
        if len(self.parts) == 1 and isinstance(self.parts[0], CachedRender):
            return self.parts[0].cached_lines(width)
        return super().cached_lines(width)

    def build(self, variables: Mapping[str, str]) -> Any:
        items: list[Any] = []
        for part in self.parts:
            if items:
                items.append(Text(""))
            items.append(part)
        return Group(*items)


class JoinedMarkdown(CachedRender):
    """Markdown rendered in pieces cut between top-level blocks, drawn one under another: what a streamed
    answer's frozen segments already hold. ``gaps[i]`` says whether a blank line goes before piece ``i``
    (Rich draws one before a leaf block, while a piece starting with a list, quote or table draws its own).
    For cuts made by :func:`widgets.markdown_stream.block_split_point` this draws exactly what rendering
    the whole text at once draws, without rendering it again."""

    def __init__(
        self,
        parts: list[CachedRender],
        gaps: list[bool],
        get_variables: Callable[[], Mapping[str, str]],
    ) -> None:
        super().__init__(get_variables)
        self.parts = parts
        self.gaps = gaps

    def size(self) -> int:
        return sum(p.size() for p in self.parts)

    def pending(self, width: int) -> int:
        return sum(p.pending(width) for p in self.parts)

    def _render(
        self, console: Console, options: ConsoleOptions, variables: Mapping[str, str]
    ) -> list[list[Segment]]:
        lines: list[list[Segment]] = []
        for index, part in enumerate(self.parts):
            if index and self.gaps[index]:
                lines.append([Segment.line()])
            lines.extend(part.render_lines(console, options))
        return lines


def highlight_span(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """``strip`` with ``style`` layered over characters ``start``..``end`` (character indexes, as the
    selection offsets count them; -1 = to the end of the line)."""
    out: list[Segment] = []
    pos = 0
    for seg in strip:
        text, seg_style, control = seg
        n = len(text)
        lo = max(start, pos)
        hi = pos + n if end < 0 else min(end, pos + n)
        if control or hi <= lo:
            out.append(seg)
        else:
            a, b = lo - pos, hi - pos
            if a:
                out.append(Segment(text[:a], seg_style))
            out.append(Segment(text[a:b], seg_style + style if seg_style else style))
            if b < n:
                out.append(Segment(text[b:], seg_style))
        pos += n
    return Strip(out, strip.cell_length)


class SelectableLines:
    """Mouse selection for a ``Static`` showing a Rich renderable (pre-rendered Markdown etc.).

    Textual selects text only in lines whose segments carry ``offset`` meta, and copies what
    ``get_selection`` returns; it does both for ``Content`` but not for Rich renderables. Here every
    drawn line gets offsets (column = character index in the drawn line, row = drawn line), the
    selected part is highlighted with the ``screen--selection`` style, and ``get_selection`` cuts the
    same drawn lines, so a drag copies exactly the characters under it (trailing padding trimmed).
    A selection of the whole widget (select-all, or a drag passing over it) copies
    :meth:`selection_source` instead when it gives one: a message's Markdown source pastes better than
    its wrapped, padded rendering. Lines stay cached: offsets are memoised per strip by Textual, and
    only lines inside a selection are re-styled."""

    _cached_visual: CachedVisual | None = None

    def selection_source(self) -> str | None:
        """Text to copy when the whole widget is selected (None: the drawn text)."""
        return None

    def render(self) -> Any:
        """A :class:`CachedRender` is drawn through one :class:`CachedVisual` for as long as it is the
        content (Textual drops its own visual on every layout)."""
        content = getattr(self, "content", None)
        if not isinstance(content, CachedRender):
            return super().render()  # type: ignore[misc]
        visual = self._cached_visual
        if visual is None or visual.cached is not content:
            previous, visual = visual, CachedVisual(self, content)  # type: ignore[arg-type]
            if previous is not None:
                visual.inherit(previous)
            self._cached_visual = visual
        return visual

    def _rich_content(self) -> bool:
        return not isinstance(self._render(), Content)  # type: ignore[attr-defined]

    def render_line(self, y: int) -> Strip:
        visual = self._render()  # type: ignore[attr-defined]
        if isinstance(visual, CachedVisual) and self.styles.content_align == ("left", "top"):  # type: ignore[attr-defined]
            # Only the lines painted are built (Widget.render_line would build every line of the widget).
            width = self.size.width  # type: ignore[attr-defined]
            style = self.visual_style  # type: ignore[attr-defined]
            line = visual.line(y, width, style)
            strip = Strip.blank(width, style.rich_style) if line is None else line
        else:
            strip = super().render_line(y)  # type: ignore[misc]
            if isinstance(visual, Content):
                return strip  # Content already carries offsets and draws its selection
        selection: Selection | None = self.text_selection  # type: ignore[attr-defined]
        if selection is not None and (span := selection.get_span(y)) is not None:
            style = self.screen.get_component_rich_style("screen--selection")  # type: ignore[attr-defined]
            strip = highlight_span(strip, span[0], span[1], style)
        return strip.apply_offsets(0, y)

    def drawn_lines(self) -> list[str]:
        """The plain text of each drawn content line, as laid out now (same width, same wrapping)."""
        if self._dirty_regions:  # type: ignore[attr-defined]
            self._render_content()  # type: ignore[attr-defined]
        return [strip.text for strip in self._render_cache.lines]  # type: ignore[attr-defined]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        if not self._rich_content():
            return super().get_selection(selection)  # type: ignore[misc]
        if selection.start is None and selection.end is None:
            source = self.selection_source()
            if source is not None:
                return source, "\n"
        lines = [line.rstrip() for line in self.drawn_lines()]
        return selection.extract("\n".join(lines)), "\n"


class SelectableStatic(SelectableLines, Static):
    """A ``Static`` whose Rich content can be selected with the mouse; ``source`` gives the text a
    whole-widget selection copies (e.g. the Markdown it renders)."""

    def __init__(self, *args: Any, source: Callable[[], str] | str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._source = source

    def selection_source(self) -> str | None:
        source = self._source
        return source() if callable(source) else source


def group(*parts: Any) -> Group:
    return Group(*[p for p in parts if p is not None])


def styled_text(text: str, variables: Mapping[str, str], var: str, extra: str = "") -> Text:
    return Text(text, style=_style(variables, var, extra))


def on_theme_change(widget: Widget, callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever the app's theme changes (a switch, or a hot reload of the active
    theme, which publishes the same signal). For widgets whose content bakes in colours or whose
    cached render would otherwise keep the old ones. Call from ``on_mount``; the subscription ends
    when the widget is removed."""

    def changed(_theme: Theme) -> None:
        if widget.is_attached:
            callback()

    widget.app.theme_changed_signal.subscribe(widget, changed)


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
