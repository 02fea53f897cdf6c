"""Structural guards for issue 8's performance budgets (widget counts, render counts, refreshes).

These never time anything: they pin down the properties that keep resume, streaming and typing cheap.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Markdown

from pi_app.ai.providers.faux import FAUX, FauxResponse, FauxStep
from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.store import SessionManager
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from tests.widgets.harness import PiTestApp
from widgets import rendering
from widgets.chat_log import ChatLog
from widgets.messages import SEGMENT_CHARS, AssistantMessageView, UserMessageView, markdown_split_point
from widgets.rendering import SelectableStatic


def _session_file(cwd: Path, entries: int) -> str:
    manager = SessionManager.create(str(cwd))
    for i in range(entries // 2):
        manager.append_message(UserMessage(content=[TextContent(text=f"question {i}")]))
        manager.append_message(
            AssistantMessage(content=[TextContent(text=f"answer **{i}**")], model="faux-1", provider="faux")
        )
    assert manager.session_file is not None
    return manager.session_file


@pytest.fixture
def render_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    original = rendering.CachedRender._render

    def counting(self: Any, console: Any, options: Any, variables: Any) -> Any:
        calls.append((self, options.max_width))
        return original(self, console, options, variables)

    monkeypatch.setattr(rendering.CachedRender, "_render", counting)
    return calls


@pytest.mark.slow
async def test_resuming_5000_entries_mounts_a_bounded_tail_rendered_once(
    project: Path, faux, render_calls: list[Any]
) -> None:
    path = _session_file(project, 5000)
    session = await make_session(project, session=SessionManager.open(path))
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        items = app.chat.items
        assert app.chat.has_earlier
        assert len(items) <= app.options.tail_messages + 5  # tail plus header/notices, not 5,000
        widgets = list(app.screen.walk_children(with_self=True))
        assert len(widgets) <= 2 * app.options.tail_messages + 30
        for item in items:
            if isinstance(item, AssistantMessageView):
                # a finished message: one frozen Static, no live Markdown, no nesting
                assert [type(c) for c in item.children] == [SelectableStatic]
                assert not item.query(Markdown)
            elif isinstance(item, UserMessageView):
                assert not item.children
        # every message's Markdown is rendered once (one width, one theme), not once per layout pass
        assert render_calls
        seen = [id(r) for r, _ in render_calls if isinstance(r, rendering.ThemedMarkdown)]
        assert len(seen) == len(set(seen))


async def test_typing_does_not_touch_the_chat(project: Path, faux, render_calls: list[Any]) -> None:
    path = _session_file(project, 300)
    session = await make_session(project, session=SessionManager.open(path))
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        refreshed: list[Widget] = []
        for widget in [app.chat, *app.chat.walk_children()]:

            def spy(*args: Any, _w: Widget = widget, _orig: Any = widget.refresh, **kwargs: Any) -> Any:
                refreshed.append(_w)
                return _orig(*args, **kwargs)

            widget.refresh = spy  # type: ignore[method-assign]
        render_calls.clear()
        await pilot.press("h", "i", "space", "t", "h", "e", "r", "e")
        await pilot.pause()
        assert app.editor.text == "hi there"
        assert refreshed == []
        assert render_calls == []


async def test_a_burst_answer_never_builds_live_markdown(project: Path, faux, monkeypatch) -> None:
    started: list[AssistantMessageView] = []
    original = AssistantMessageView._start_block

    async def spy(self: AssistantMessageView, kind: str) -> None:
        started.append(self)
        await original(self, kind)  # type: ignore[arg-type]

    monkeypatch.setattr(AssistantMessageView, "_start_block", spy)
    text = "Para with **bold**.\n\n" * 400
    FAUX.enqueue(FauxResponse(steps=[FauxStep("text", text=text)], chunk_size=8))
    app = make_app(await make_session(project))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("go")
        await pilot.pause()
        await app.wait_until_idle()
        await pilot.pause()
        views = list(app.query(AssistantMessageView))
        assert len(views) == 1 and views[0].finalized
        assert started == []  # the whole answer came with its message_end: straight to the frozen form
        assert [type(c) for c in views[0].children] == [SelectableStatic]
        assert views[0].text == text


@pytest.mark.slow
async def test_a_long_streamed_block_keeps_the_live_markdown_small() -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=SIZE) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        # ~20,000 characters, ten times SEGMENT_CHARS, in 200 deltas: each delta re-renders the live block,
        # so the number of deltas is the test's cost; without the split the live text would reach 20,000
        words = "with some words in it, and then a few more of them to make a longer streamed line"
        chunks = [f"Paragraph {i} {words}.\n\n" for i in range(200)]
        largest = 0
        for chunk in chunks:
            await view.append_text(chunk)
            assert len(view.children) == 2  # pieces and rest of the streamed block, however long
            largest = max(largest, len(view._live_text))
        await pilot.pause()
        assert largest < SEGMENT_CHARS + 100  # finished blocks moved into cached pieces
        assert view.frozen_pieces > 5
        await view.finalize()
        await pilot.pause()
        assert [type(c) for c in view.children] == [SelectableStatic]
        assert view.text == "".join(chunks)


def test_markdown_split_point_only_cuts_between_top_level_blocks() -> None:
    text = "para one\n\n```python\nx = 1\n\ny = 2\n```\n\nnext para\n"
    cut = markdown_split_point(text)
    assert text[cut:] == "next para\n"  # the blank line inside the fence is not a boundary
    assert markdown_split_point("no blank line yet") == 0
    assert markdown_split_point("open fence\n\n```\ncode\n\nmore code\n") == len("open fence\n\n")
    assert markdown_split_point("item\n\n    indented continuation\n") == 0


async def test_cached_render_follows_a_theme_switch(render_calls: list[Any]) -> None:
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=SIZE) as pilot:
        await log.add(UserMessageView("hello *there*"))
        await pilot.pause()
        before = len(render_calls)
        assert before >= 1
        app.theme = "light"
        await pilot.pause()
        await pilot.pause()
        assert len(render_calls) > before  # new colours: rendered again, not served stale


async def test_resume_paints_the_last_entries_first_then_the_rest(project: Path, faux) -> None:
    path = _session_file(project, 400)
    session = await make_session(project, session=SessionManager.open(path))
    app = make_app(session)
    painted: list[int] = []
    original = app._display

    def display(screen: Any, update: Any) -> None:
        painted.append(len(app.chat.items) if app.chat.is_attached else 0)
        original(screen, update)

    app._display = display  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = next(n for n in painted if n)
        assert first <= app.chat.first_paint + 3  # header/notices at most on top of the tail
        await app.chat.settle()
        await pilot.pause()
        assert app.chat.settled
        users = [u.text for u in app.query(UserMessageView)]
        assert len(users) == app.options.tail_messages // 2
        assert users == sorted(users, key=lambda t: int(t.split()[1]))  # in order, no gaps or repeats


@pytest.mark.slow
async def test_asking_for_earlier_history_during_resume_mounts_in_order(project: Path, faux) -> None:
    path = _session_file(project, 160)
    session = await make_session(project, session=SessionManager.open(path))
    app = make_app(session, tail_messages=40)  # a short tail: the same flow as 100 of 400, a third the work
    async with app.run_test(size=SIZE) as pilot:
        app.chat.action_scroll_to_top()  # may arrive while the first frame's leftovers are pending
        await pilot.pause()
        app.chat.action_scroll_to_top()
        await pilot.pause()
        await pilot.pause()
        users = [int(u.text.split()[1]) for u in app.query(UserMessageView)]
        assert users == list(range(users[0], 80))
        assert users[0] < 60  # earlier history really came in


async def test_streamed_deltas_are_coalesced_into_few_widget_updates(
    project: Path, faux, monkeypatch
) -> None:
    appends: list[str] = []
    original = AssistantMessageView.append_text

    async def spy(self: AssistantMessageView, delta: str) -> None:
        appends.append(delta)
        await original(self, delta)

    monkeypatch.setattr(AssistantMessageView, "append_text", spy)
    # 400 chunks of 5 characters: the first alone, then (released once it is on screen) the other 399 in
    # one burst — what a frame receives then depends on the pump alone, not on the machine's load.
    text = "word " * 400
    release = asyncio.Event()
    FAUX.enqueue(FauxResponse(steps=[FauxStep("text", text=text)], chunk_size=5, hold=release))
    app = make_app(await make_session(project))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("go")
        await wait_for(pilot, lambda: appends, "the first delta on screen")
        release.set()
        await app.wait_until_idle()
        await pilot.pause()
        (view,) = list(app.query(AssistantMessageView))
        assert view.text == text
    assert 0 < len(appends) < 400 // 4  # batched per frame, not one widget update per delta


async def test_finalizing_right_after_a_split_does_not_cancel_the_caller() -> None:
    """The fresh live stream made by a split has not run yet when finalize stops it; MarkdownStream
    re-raises its own cancellation then, which once killed the event pump."""
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=SIZE) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        await view.append_text("start\n\n")
        text = "".join(f"Paragraph {i} of the answer.\n\n" for i in range(120))
        await view.append_text(text)  # one delta past SEGMENT_CHARS: splits and starts a new stream
        assert view.frozen_pieces
        await view.finalize()  # must not raise CancelledError
        await pilot.pause()
        assert [type(c) for c in view.children] == [SelectableStatic]
        assert view.text == "start\n\n" + text
