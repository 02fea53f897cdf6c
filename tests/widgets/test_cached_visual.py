"""A pre-rendered Markdown renderable is drawn through CachedVisual: the same strips as Textual's RichVisual,
and not rebuilt while nothing about it changes."""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from textual.containers import VerticalScroll
from textual.visual import RichVisual, Visual

from tests.widgets.harness import PiTestApp
from widgets import rendering
from widgets.rendering import CachedVisual, SelectableStatic, ThemedMarkdown

MARKDOWN = (
    "# Title\n\nSome **bold** and *italic* text with `code` and a [link](http://example.com/a/long/path) "
    "in a paragraph long enough to wrap across several lines of the widget, and then a few more words.\n\n"
    "```python\ndef greet(name):\n    return f'hello {name}'  # a comment that runs past the width "
    + "x"
    * 90
    + "\n```\n\n"
    "- one\n- two with `code`\n\n> a quote\n\n1. first\n2. second\n"
)


def _segments(strips: list) -> list[list[Segment]]:
    return [list(strip) for strip in strips]


async def test_cached_visual_draws_what_rich_visual_draws() -> None:
    widget = SelectableStatic("")
    app = PiTestApp([VerticalScroll(widget)])
    async with app.run_test(size=(80, 30)) as pilot:
        renderable = ThemedMarkdown(MARKDOWN, lambda: app.theme_variables)
        widget.update(renderable)
        await pilot.pause()
        visual = widget.render()
        assert isinstance(visual, CachedVisual)
        width = widget.content_size.width
        rich = RichVisual(widget, renderable)
        assert visual.get_height(widget.styles, width) == rich.get_height(widget.styles, width)
        for height in (None, 5):
            ours = Visual.to_strips(widget, visual, width, height, widget.visual_style)
            theirs = Visual.to_strips(widget, rich, width, height, widget.visual_style)
            assert _segments(ours) == _segments(theirs)
            assert [s.cell_length for s in ours] == [s.cell_length for s in theirs]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per screen line ``CachedVisual`` builds."""
    lines: list[int] = []
    original = rendering._strip

    def spy(line: list[Segment], *args: Any) -> Any:
        lines.append(1)
        return original(line, *args)

    monkeypatch.setattr(rendering, "_strip", spy)
    return lines


async def test_painted_lines_are_rich_visual_lines_and_built_once_per_width(built: list[int]) -> None:
    widget = SelectableStatic("")
    app = PiTestApp([VerticalScroll(widget)])
    async with app.run_test(size=(80, 30)) as pilot:
        renderable = ThemedMarkdown(MARKDOWN, lambda: app.theme_variables)
        widget.update(renderable)
        await pilot.pause()
        height = widget.size.height
        assert 0 < len(built) <= height
        rich = Visual.to_strips(
            widget, RichVisual(widget, renderable), widget.size.width, None, widget.visual_style
        )
        for y in range(height):  # what Textual's own path would draw, line by line
            assert list(widget.render_line(y)) == list(rich[y].apply_offsets(0, y))
        painted = len(built)
        widget.refresh()  # a repaint builds nothing again
        await pilot.pause()
        assert len(built) == painted == height
        await pilot.resize_terminal(60, 30)  # another width: drawn again
        await pilot.pause()
        assert len(built) > painted


async def test_a_theme_switch_redraws_the_cached_visual() -> None:
    widget = SelectableStatic("")
    app = PiTestApp([VerticalScroll(widget)])
    async with app.run_test(size=(80, 30)) as pilot:
        widget.update(ThemedMarkdown(MARKDOWN, lambda: app.theme_variables))
        await pilot.pause()
        before = _segments(widget.render().render_strips(70, None, widget.visual_style, _options(widget)))
        app.theme = "light"
        await pilot.pause()
        after = _segments(widget.render().render_strips(70, None, widget.visual_style, _options(widget)))
        assert before != after
        assert rendering.variables_version(app.theme_variables) >= 2


def _options(widget: SelectableStatic):
    from textual.visual import RenderOptions

    return RenderOptions(widget._get_style, widget.styles)


async def test_a_long_message_builds_only_the_lines_on_screen(built: list[int]) -> None:
    widget = SelectableStatic("")
    scroll = VerticalScroll(widget)
    scroll.styles.scrollbar_gutter = "stable"  # one width (no second layout when the scrollbar appears)
    app = PiTestApp([scroll])
    async with app.run_test(size=(80, 30)) as pilot:
        widget.update(ThemedMarkdown(MARKDOWN * 20, lambda: app.theme_variables))
        await pilot.pause()
        assert widget.size.height > 200
        assert 0 < len(built) <= 30  # a screenful, not the whole message


def test_fast_code_markdown_draws_what_rich_draws() -> None:
    import io

    from rich.console import Console
    from rich.markdown import Markdown as RichMarkdown

    from themes import variable_defaults
    from themes.textual_adapter import variables_syntax_theme

    text = (
        "```python\ndef f(x):\n\treturn x  # tab\n```\n\n```nosuchlanguage\nplain?\n```\n\n```\nno language\n```"
        "\n\n    indented code\n\n```js\nconst a = 1;\n```\n"
    )
    theme = variables_syntax_theme(variable_defaults())
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=60)
    ours = console.render_lines(rendering.FastCodeMarkdown(text, code_theme=theme), console.options)
    rich = console.render_lines(RichMarkdown(text, code_theme=theme), console.options)
    assert ours == rich
