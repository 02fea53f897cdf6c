"""Mouse selection on pre-rendered chat widgets: offsets, highlight, copied text."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widget import Widget

from pi_app.ai.types import AssistantMessage, TextContent
from tests.widgets.harness import PiTestApp
from widgets.bash_view import BashExecutionView
from widgets.chat_log import ChatLog
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import CompactionSummaryView, ErrorNotice
from widgets.rendering import SelectableLines, highlight_span
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel

ANSWER = (
    "# Title\n\nHello **world**, this is a paragraph that is long enough to wrap around the narrow "
    "width we use.\n\n- item one\n- item two\n\n```python\nprint('hi')\n```"
)


def _find(lines: list[str], needle: str) -> tuple[int, int]:
    """(column, row) of ``needle`` in drawn lines."""
    for row, line in enumerate(lines):
        col = line.find(needle)
        if col >= 0:
            return col, row
    raise AssertionError(f"{needle!r} not drawn in {lines!r}")


def _plain_lines(widget: Widget) -> list[str]:
    """What is drawn in the widget's content area, read back from the rendered strips."""
    content = widget.content_region
    return [widget.render_line(y).text for y in range(content.height)]


async def _drag(pilot: Pilot, widget: Widget, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press at content cell ``start``, move to ``end``, release (cells relative to the content area)."""
    dx = widget.content_region.x - widget.region.x
    dy = widget.content_region.y - widget.region.y
    await pilot.mouse_down(widget, offset=(start[0] + dx, start[1] + dy))
    await pilot.hover(widget, offset=(end[0] + dx, end[1] + dy))
    await pilot.mouse_up(widget, offset=(end[0] + dx, end[1] + dy))
    await pilot.pause()


async def test_drag_across_frozen_assistant_message_selects_drawn_text() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(50, 40)) as pilot:
        view = AssistantMessageView.from_message(AssistantMessage(content=[TextContent(text=ANSWER)]))
        await log.add(view)
        await pilot.pause()
        frozen = view.query_one(".-frozen")
        assert isinstance(frozen, SelectableLines)
        lines = _plain_lines(frozen)
        assert frozen.drawn_lines() == lines
        start = _find(lines, "world,")
        end_col, end_row = _find(lines, "enough")
        assert end_row > start[1]  # the paragraph wraps at this width
        await _drag(pilot, frozen, start, (end_col + len("enough") - 1, end_row))
        selected = app.screen.get_selected_text()
        assert selected is not None and "\n" in selected  # the drawn line break is kept
        assert selected.replace("\n", " ") == "world, this is a paragraph that is long enough"
        # The selected part is highlighted; a line outside the selection is not.
        sel_bg = app.screen.get_component_rich_style("screen--selection").bgcolor
        row = frozen.render_line(start[1])
        highlighted = "".join(s.text for s in row if s.style and s.style.bgcolor == sel_bg)
        assert highlighted.startswith("world, this is")
        assert not any(s.style and s.style.bgcolor == sel_bg for s in frozen.render_line(start[1] + 3))


async def test_single_line_drag_and_code_block_drag() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(60, 40)) as pilot:
        view = AssistantMessageView.from_message(AssistantMessage(content=[TextContent(text=ANSWER)]))
        await log.add(view)
        await pilot.pause()
        frozen = view.query_one(".-frozen")
        lines = _plain_lines(frozen)
        col, row = _find(lines, "item two")
        await _drag(pilot, frozen, (col + 5, row), (col + 7, row))
        assert app.screen.get_selected_text() == "two"
        col, row = _find(lines, "print('hi')")
        await _drag(pilot, frozen, (col, row), (col + 10, row))
        assert app.screen.get_selected_text() == "print('hi')"


async def test_select_all_copies_markdown_source_and_unselected_lines_stay_cached() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(60, 40)) as pilot:
        view = AssistantMessageView.from_message(AssistantMessage(content=[TextContent(text=ANSWER)]))
        await log.add(view)
        await pilot.pause()
        frozen = view.query_one(".-frozen")
        # No selection: the same strip object each time (offsets memoised, nothing re-rendered).
        assert frozen.render_line(2) is frozen.render_line(2)
        frozen.text_select_all()
        await pilot.pause()
        assert app.screen.get_selected_text() == ANSWER
        app.screen.clear_selection()
        await pilot.pause()
        assert app.screen.get_selected_text() is None


async def test_user_message_drag_and_select_all() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(60, 30)) as pilot:
        user = UserMessageView("please **fix** the tests\n")
        await log.add(user)
        await pilot.pause()
        lines = _plain_lines(user)
        col, row = _find(lines, "fix the")
        await _drag(pilot, user, (col, row), (col + 6, row))
        assert app.screen.get_selected_text() == "fix the"
        user.text_select_all()
        await pilot.pause()
        assert app.screen.get_selected_text() == "please **fix** the tests"


async def test_drag_from_user_message_into_answer_spans_both() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(60, 40)) as pilot:
        user = UserMessageView("first question")
        await log.add(user)
        view = AssistantMessageView.from_message(
            AssistantMessage(content=[TextContent(text="Plain answer.")])
        )
        await log.add(view)
        await pilot.pause()
        frozen = view.query_one(".-frozen")
        ucol, urow = _find(_plain_lines(user), "question")
        await pilot.mouse_down(user, offset=(ucol + 1, urow + 1))  # user view has 1 cell of padding
        fcol, frow = _find(_plain_lines(frozen), "answer")
        dx = frozen.content_region.x - frozen.region.x
        # Across widgets Textual ends the selection before the pointer's cell (within one, on it).
        await pilot.hover(frozen, offset=(fcol + dx + 6, frow))
        await pilot.mouse_up(frozen, offset=(fcol + dx + 6, frow))
        await pilot.pause()
        assert app.screen.get_selected_text() == "question\nPlain answer"


async def test_tool_panel_notice_bash_and_summary_are_selectable() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(80, 60)) as pilot:
        panel = ToolPanel("t1", "bash", {"command": "ls"})
        await log.add(panel)
        panel.set_result(ToolResultData.from_content([{"type": "text", "text": "alpha.txt\nbeta.txt"}]))
        notice = ErrorNotice("Error: rate limited")
        await log.add(notice)
        bash = BashExecutionView("echo hi", tick=False)
        await log.add(bash)
        bash.append_output("hi there\n")
        bash.finish(0)
        summary = CompactionSummaryView("We fixed **bugs**.", tokens_before=12345)
        await log.add(summary)
        await pilot.pause()

        col, row = _find(_plain_lines(panel), "beta.txt")
        await _drag(pilot, panel, (col, row), (col + 3, row))
        assert app.screen.get_selected_text() == "beta"

        col, row = _find(_plain_lines(notice), "rate limited")
        await _drag(pilot, notice, (col, row), (col + 11, row))
        assert app.screen.get_selected_text() == "rate limited"

        col, row = _find(_plain_lines(bash), "hi there")
        await _drag(pilot, bash, (col, row), (col + 7, row))
        assert app.screen.get_selected_text() == "hi there"

        col, row = _find(_plain_lines(summary), "12,345")
        await _drag(pilot, summary, (col, row), (col + 5, row))
        assert app.screen.get_selected_text() == "12,345"
        summary.set_expanded(True)
        await pilot.pause()
        col, row = _find(_plain_lines(summary), "bugs")
        await _drag(pilot, summary, (col - 10, row), (col + 3, row))
        assert app.screen.get_selected_text() == "We fixed bugs"
        summary.text_select_all()
        await pilot.pause()
        assert app.screen.get_selected_text() == summary.plain


def test_highlight_span_layers_style_over_characters() -> None:
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    strip = Strip([Segment("ab", Style(bold=True)), Segment("cdé", None), Segment("f", Style(italic=True))])
    sel = Style(bgcolor="red")
    out = highlight_span(strip, 1, 4, sel)
    assert out.text == "abcdéf"
    marked = "".join(s.text for s in out if s.style and s.style.bgcolor is not None)
    assert marked == "bcd"
    assert [s.style.bold for s in out if s.text == "b"] == [True]  # the original style is kept under it
    assert "".join(s.text for s in highlight_span(strip, 4, -1, sel) if s.style and s.style.bgcolor) == "éf"


async def test_frozen_segments_of_a_streaming_answer_are_selectable() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(80, 40)) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        for i in range(40):
            await view.append_text(f"Paragraph {i} says something fairly long to fill the segment up.\n\n")
        await view.caught_up()
        await pilot.pause()
        assert view.frozen_pieces
        segment = view.query_one(".-pieces")  # the finished pieces, one widget
        assert isinstance(segment, SelectableLines)
        log.scroll_to_widget(segment, animate=False, top=True)
        await pilot.pause()
        col, row = _find(_plain_lines(segment), "Paragraph 1 says")
        await _drag(pilot, segment, (col + 10, row), (col + 15, row))
        assert app.screen.get_selected_text() == "1 says"
        segment.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None and selected.startswith("Paragraph 0 says")
        assert "\n\nParagraph 1 says" in selected  # the Markdown source, not the drawn lines
