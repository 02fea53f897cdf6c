"""Structural guards for keys staying responsive while an answer streams (issue 15): a streamed block is a
fixed pair of widgets whatever its length, streamed updates never pile up between two frames, full garbage
collections wait for the answer to be drawn, and Rich Markdown builds no parser per text. Nothing is timed."""

from __future__ import annotations

import asyncio
import gc
import io
from typing import Any

import rich.markdown
from rich.console import Console

from pi_app.agent.events import AgentEndEvent, MessageEndEvent, MessageStartEvent
from pi_app.ai.types import AssistantMessage, TextContent
from pi_app.modes import startup_gc
from tests.widgets.harness import PiTestApp
from widgets.conversation import Conversation
from widgets.messages import AssistantMessageView
from widgets.rendering import FastCodeMarkdown

SIZE = (100, 30)
ANSWER = "".join(
    f"Paragraph {i} with **bold** and `code`.\n\n```python\nprint({i})\n```\n\n" for i in range(50)
)


def _message(text: str = "") -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)] if text else [])


async def _stream(chat: Conversation, text: str, step: int) -> None:
    """Feed ``text`` in deltas of ``step`` characters from a task of its own, as the event pump does."""

    async def pump() -> None:
        for pos in range(0, len(text), step):
            await chat.append_text(text[pos : pos + step])

    await asyncio.create_task(pump())


async def test_a_streamed_block_is_two_widgets_and_updates_wait_for_the_frame(monkeypatch) -> None:
    chat = Conversation()
    app = PiTestApp([chat])
    redraws: list[int] = []
    original = AssistantMessageView._show_live

    def counting(self: AssistantMessageView, now: bool = False) -> None:
        before = self._drawn_at
        original(self, now)
        if self._drawn_at != before:  # redrawn (not put off: see TAIL_BACKOFF)
            redraws.append(len(frames))

    monkeypatch.setattr(AssistantMessageView, "_show_live", counting)
    frames: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        display = app._display

        def drawn(screen: Any, update: Any) -> None:
            frames.append(update)
            display(screen, update)

        app._display = drawn  # type: ignore[method-assign]
        mounted: list[object] = []
        await chat.apply(MessageStartEvent(message=_message()))
        view = chat.current
        assert view is not None
        mount_all = view.mount_all
        monkeypatch.setattr(view, "mount_all", lambda *a, **k: (mounted.append(a), mount_all(*a, **k))[1])
        await _stream(chat, ANSWER, 40)
        await pilot.pause()
        assert len(view.children) == 2  # the finished pieces and the rest: however long the answer
        assert view.frozen_pieces > 5
        assert len(mounted) == 1  # the block's pair, once; nothing per delta or per frozen piece
        # every redraw but the first waited for the frame of the one before: none was painted over
        assert len(redraws) > 10
        assert all(later > earlier for earlier, later in zip(redraws, redraws[1:], strict=False)), redraws
        await chat.apply(MessageEndEvent(message=_message(ANSWER)))
        await pilot.pause()
        assert view.text == ANSWER


async def test_full_collections_wait_while_a_run_streams_answers(monkeypatch) -> None:
    chat = Conversation()
    app = PiTestApp([chat])
    threshold = gc.get_threshold()
    async with app.run_test(size=SIZE):
        assert not startup_gc.full_collections_held()
        await chat.apply(MessageStartEvent(message=_message()))
        assert startup_gc.full_collections_held()
        assert gc.get_threshold()[:2] == threshold[:2] and gc.get_threshold()[2] > 10**9
        await chat.append_text("Some text.\n\n")
        await chat.apply(MessageEndEvent(message=_message("Some text.\n\n")))
        await chat.wait_for_refresh()
        assert startup_gc.full_collections_held()  # the run goes on: its tools, its next answer
        await chat.apply(MessageStartEvent(message=_message()))  # holds never stack
        await chat.apply(AgentEndEvent())
        await chat.wait_for_refresh()  # released once the run's last answer is drawn
        assert not startup_gc.full_collections_held()
        assert gc.get_threshold() == threshold
        # a long run releases between two answers
        monkeypatch.setattr("widgets.conversation.GC_HOLD_S", 0.0)
        await chat.apply(MessageStartEvent(message=_message()))
        await chat.apply(MessageEndEvent(message=_message("More.")))
        await chat.wait_for_refresh()
        assert not startup_gc.full_collections_held()
        await chat.apply(MessageStartEvent(message=_message()))
        assert startup_gc.full_collections_held()
    # unmounted while streaming: released
    assert not startup_gc.full_collections_held()
    assert gc.get_threshold() == threshold


def test_fast_markdown_is_rich_markdown_without_a_parser_per_text(monkeypatch) -> None:
    built: list[object] = []
    parser = rich.markdown.MarkdownIt

    class Counting(parser):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(rich.markdown, "MarkdownIt", Counting)
    kwargs: dict[str, Any] = {"code_theme": "monokai", "style": "italic", "hyperlinks": False}
    ours = [FastCodeMarkdown(ANSWER[:2000], **kwargs) for _ in range(3)]
    assert built == []
    rich_one = rich.markdown.Markdown(ANSWER[:2000], **kwargs)
    assert len(built) == 1
    # the same attributes, set the same way (a Rich upgrade that adds one fails here)
    assert vars(ours[0]).keys() == vars(rich_one).keys()
    assert {k: v for k, v in vars(ours[0]).items() if k != "parsed"} == {
        k: v for k, v in vars(rich_one).items() if k != "parsed"
    }
    assert [t.as_dict() for t in ours[0].parsed] == [t.as_dict() for t in rich_one.parsed]

    def drawn(renderable: Any) -> str:
        console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80)
        console.print(renderable)
        out = console.file.getvalue()  # type: ignore[attr-defined]
        assert isinstance(out, str)
        return out

    plain = rich.markdown.Markdown(ANSWER[:2000], **kwargs)
    plain.elements = FastCodeMarkdown.elements  # (code blocks drawn with the cached lexer, as ours)
    assert drawn(ours[1]) == drawn(plain)


async def test_the_first_frozen_piece_is_drawn_stripped_as_the_whole_block_is() -> None:
    chat = Conversation()
    app = PiTestApp([chat])
    async with app.run_test(size=SIZE):
        await chat.apply(MessageStartEvent(message=_message()))
        view = chat.current
        assert view is not None
        await view.append_text("\n\n   ")
        await view.append_text(ANSWER[:2000])
        first = view._streamed[0].pieces[0][1]
        assert first.markup == first.markup.strip()


async def test_a_theme_switch_repaints_every_streamed_block() -> None:
    chat = Conversation()
    app = PiTestApp([chat])
    async with app.run_test(size=SIZE) as pilot:
        await chat.apply(MessageStartEvent(message=_message()))
        view = chat.current
        assert view is not None
        await view.append_thinking(ANSWER[:1500])
        await view.append_text(ANSWER[:1500])  # the thinking block is done, the text block streams
        await view.caught_up()
        await pilot.pause()
        statics = [w for w in view.children if (w.has_class("-pieces") or w.has_class("-live")) and w.display]
        assert len(statics) == 4
        before = [w.render_line(0) for w in statics]
        app.theme = "light"
        await pilot.pause()
        after = [w.render_line(0) for w in statics]
        assert all(a.text == b.text and a != b for a, b in zip(before, after, strict=True))
