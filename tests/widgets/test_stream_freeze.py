"""A streamed answer is frozen in pieces as it arrives; finalizing draws it from those pieces. What is drawn
must be what rendering the whole answer at once draws (a resumed message), cell for cell."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from rich.console import Console

import themes
from pi_app.ai.types import AssistantMessage, TextContent, ThinkingContent
from tests.widgets.harness import PiTestApp
from widgets import rendering
from widgets.chat_log import ChatLog
from widgets.markdown_stream import block_split_point, has_references, starts_with_leaf
from widgets.messages import FREEZE_CHARS, AssistantMessageView
from widgets.rendering import JoinedMarkdown, SelectableStatic, Stacked, ThemedMarkdown

SAMPLES = [
    # paragraphs, code, headings
    "Intro with **bold** and `code`.\n\n```python\nx = 1\n\ny = 2\n```\n\n## Next\n\nText after.\n",
    # loose and tight lists (a list split between its items would renumber or re-pad)
    "Steps:\n\n1. one\n\n2. two\n\n3. three\n\n4. four\n\n5. five\n\n6. six\n\n7. seven\n\n8. eight\n\n"
    "9. nine\n\n10. ten\n\nDone.\n\n- a\n- b\n  - nested\n\n  continued item\n\nEnd.\n",
    # rules and html (Rich puts no blank line after a rule), quotes, tables
    "Para\n\n---\n\nAfter rule\n\n<div>\nhtml block\n</div>\n\nAfter html\n\n> quote\n> more\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nTail ***\n\n***\n\nx\n",
    # setext headings, indented code, a fence with a longer fence inside, no blank lines between blocks
    "Title\n=====\n\nSub\n---\n\n    indented code\n\n    more\n\nPara\n````\n```\ninner\n```\n````\n# H\nText\n",
    # leading whitespace, indented block starts, emphasis across lines
    "\n\n   Leading spaces\n\n   # indented heading\n\n*emphasis\nacross lines* end\n\n  - item\n\nlast",
]


def _console(width: int) -> tuple[Console, Any]:
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=width)
    return console, console.options.update_width(width).update(highlight=False)


def _stream_pieces(text: str, sizes: random.Random) -> tuple[list[str], list[bool]]:
    """The heads AssistantMessageView freezes ``text`` in, streamed in chunks of random size, and whether a
    blank line goes before each (known when the piece is frozen: its first block is finished then)."""
    heads: list[str] = []
    gaps: list[bool] = []
    live = ""
    pos = 0
    while pos < len(text):
        step = sizes.randint(1, 40)
        live += text[pos : pos + step]
        pos += step
        lead = 0 if heads else len(live) - len(live.lstrip())
        cut, leaf = block_split_point(live[lead:])
        if cut:
            gaps.append(leaf and bool(heads))
            heads.append(live[: lead + cut])
            live = live[lead + cut :]
    return heads, gaps


def _joined(text: str, heads: list[str], gaps: list[bool], variables: dict[str, str]) -> JoinedMarkdown:
    parts: list[rendering.CachedRender] = []
    for index, head in enumerate(heads):
        parts.append(ThemedMarkdown(head.rstrip() if index else head.strip(), lambda: variables))
    rest = text[len("".join(heads)) :].rstrip()
    if rest:
        parts.append(ThemedMarkdown(rest, lambda: variables))
        gaps = [*gaps, starts_with_leaf(rest)]
    return JoinedMarkdown(parts, gaps, lambda: variables)


@pytest.mark.parametrize("sample", range(len(SAMPLES)))
def test_pieces_cut_at_block_starts_draw_what_the_whole_text_draws(sample: int) -> None:
    text = SAMPLES[sample]
    variables = themes.variable_defaults()
    for seed in range(8):
        heads, gaps = _stream_pieces(text, random.Random(seed))
        assert "".join(heads) == text[: len("".join(heads))]
        for width in (30, 80):
            console, options = _console(width)
            whole = ThemedMarkdown(text.strip(), lambda: variables).render_lines(console, options)
            joined = _joined(text, heads, gaps, variables).render_lines(console, options)
            assert joined == whole, (seed, width, heads)
    assert len(_stream_pieces(text, random.Random(0))[0]) >= 2  # the sample really is cut


def test_no_cut_inside_a_list_or_after_a_rule() -> None:
    text = "1. one\n\n2. two\n\n3. three"
    assert block_split_point(text) == (0, False)  # one list: still open
    text = "1. one\n\n2. two\n\n3"
    assert block_split_point(text) == (0, False)  # "3" may yet be "3. three"
    text = "Para\n\n---\n\nNext\n"
    cut, _ = block_split_point(text)
    assert text[cut:] == "---\n\nNext\n"  # the rule goes with what follows it
    assert block_split_point("- item\n\nPara\n\nMore\n") == (len("- item\n\nPara\n\n"), False)
    assert starts_with_leaf("Para\n\n- item") and not starts_with_leaf("> quote\n\nPara")
    assert has_references("See [x].\n\n[x]: http://example.com\n")


async def _drawn(app: PiTestApp, view: AssistantMessageView) -> list[str]:
    frozen = view.query_one(".-frozen")
    return [frozen.render_line(y).text for y in range(frozen.size.height)]


def _live_lines(view: AssistantMessageView, index: int) -> list[str]:
    """The lines block ``index`` draws while streaming: its finished pieces, then its rest, with the blank
    line its margin makes between them."""
    lines: list[str] = []
    for widget in (list(view.query(".-pieces"))[index], list(view.query(".-live"))[index]):
        if widget.display:
            lines += [""] * widget.styles.margin.top if lines else []
            lines += [widget.render_line(y).text for y in range(widget.size.height)]
    return lines


@pytest.mark.parametrize("largest", [200, 3000])  # small deltas; bursts of several finished blocks
async def test_a_streamed_answer_freezes_to_what_a_resumed_one_draws(monkeypatch, largest: int) -> None:
    renders: list[int] = []
    original = ThemedMarkdown._render

    def spy(self: ThemedMarkdown, *args: Any) -> Any:
        renders.append(len(self.markup))
        return original(self, *args)

    monkeypatch.setattr(ThemedMarkdown, "_render", spy)
    thinking = "Let me *think*.\n\nFirst this.\n\nThen that, at some length. " * 12
    text = "".join(SAMPLES) * 8
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(100, 40)) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        await view.append_thinking(thinking)
        chunks = random.Random(1)
        pos = 0
        while pos < len(text):
            step = chunks.randint(1, largest)
            await view.append_text(text[pos : pos + step])
            pos += step
            assert len(view.children) == 4  # two Statics per block, however much was frozen
        await view.caught_up()
        await pilot.pause()
        assert view.frozen_pieces > (5 if largest < 1000 else 1)
        while_streaming = _live_lines(view, 1)
        streamed = sum(renders)
        assert streamed < 2 * (len(text) + len(thinking))  # each finished piece rendered about once
        message = AssistantMessage(content=[ThinkingContent(thinking=thinking), TextContent(text=text)])
        await view.finalize(message)
        await pilot.pause()
        # only the rest after the last piece is rendered: no whole re-render
        assert sum(renders) - streamed < len(text) // 4
        drawn = view.query_one(".-frozen", SelectableStatic).content
        assert isinstance(drawn, Stacked)
        assert [type(part) for part in drawn.parts] == [JoinedMarkdown, JoinedMarkdown]
        streamed_lines = await _drawn(app, view)
        # the live block showed, blank lines between pieces included, what the finished message shows
        start = streamed_lines.index(while_streaming[0])  # the text block, after the thinking block
        assert while_streaming == streamed_lines[start:]

        resumed = AssistantMessageView.from_message(message)
        await log.add(resumed)
        await pilot.pause()
        assert streamed_lines == await _drawn(app, resumed)
        assert view.frozen_markup() == resumed.frozen_markup()


async def test_a_transformed_answer_is_rendered_whole() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(100, 40)) as pilot:
        view = AssistantMessageView()
        view.markdown_transform = lambda markdown, kind, streaming: markdown.replace("Para", "PARA")
        await log.add(view)
        text = "Para one with words.\n\n" * (FREEZE_CHARS // 10)
        await view.append_text(text)
        await view.finalize(AssistantMessage(content=[TextContent(text=text)]))
        await pilot.pause()
        assert any("PARA one" in line for line in await _drawn(app, view))


async def test_blocks_without_blank_lines_between_them_still_freeze(monkeypatch) -> None:
    import widgets.messages as messages

    looks: list[int] = []
    original = messages.block_split_point

    def spy(text: str) -> tuple[int, bool]:
        looks.append(len(text))
        return original(text)

    monkeypatch.setattr(messages, "block_split_point", spy)
    text = "# Heading\nA paragraph right under it.\n```python\nx = 1\n```\n" * 60  # no blank lines at all
    fence = "```python\n" + "value = compute(value)\n" * 200 + "```\n"  # one open block of ~4,600 characters
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(100, 40)) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        largest = 0
        for source, step in ((text, 50), (fence, 100)):
            looks.clear()
            for pos in range(0, len(source), step):
                await view.append_text(source[pos : pos + step])
                largest = max(largest, len(view._live_text)) if source is text else largest
            if source is text:
                assert view.frozen_pieces
                assert largest < messages.SEGMENT_CHARS + 100  # the live block stays small
            else:
                assert len(looks) < len(fence) // (messages.SEGMENT_CHARS // 4) + 2  # no parse per delta
        message = AssistantMessage(content=[TextContent(text=text + fence)])
        await view.finalize(message)
        resumed = AssistantMessageView.from_message(message)
        await log.add(resumed)
        await pilot.pause()
        assert await _drawn(app, view) == await _drawn(app, resumed)


async def test_only_a_long_answer_reserves_the_scrollbar_column() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(100, 40)) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        await pilot.pause()
        for i in range(4):  # ~700 characters: finished blocks are frozen, the log does not overflow
            await view.append_text(
                f"Paragraph {i} with enough words in it to fill most of a line of text.\n\n" * 2
            )
        assert view.frozen_pieces
        assert log.styles.scrollbar_gutter == "auto"  # a short answer draws as wide as before
        await view.append_text("More words in another paragraph of the long answer.\n\n" * 40)
        assert log.styles.scrollbar_gutter == "stable"
