"""The app driven by a real AgentSession on the faux provider."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text, faux_tool
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from tests.waits import HANG_GUARD_S
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.tool_panel import ToolPanel


async def test_prompt_streams_answer_tool_panels_and_footer(project: Path, faux) -> None:
    faux.enqueue(
        faux_tool("ls", {"path": "."}, text="Let me look.", usage={"input": 1200, "output": 30}),
        faux_text("There are **two** entries.", usage={"input": 1500, "output": 40}),
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("what is here?")
        await pilot.press("enter")
        await pilot.pause()
        await app.wait_until_idle()
        await pilot.pause()
        users = list(app.query(UserMessageView))
        assert [u.text for u in users] == ["what is here?"]
        answers = list(app.query(AssistantMessageView))
        assert answers[-1].text == "There are **two** entries."
        assert all(a.finalized for a in answers)
        panels = list(app.query(ToolPanel))
        assert len(panels) == 1 and panels[0].tool_name == "ls"
        assert panels[0].state == "success"
        assert "notes.txt" in panels[0].result.output
        data = app.footer.data
        assert (data.input_tokens, data.output_tokens) == (2700, 70)
        assert data.model_id == "faux-1"
        lines = [line.plain for line in app.footer.lines()]
        assert "↑2.7k ↓70" in lines[1]
        assert lines[0].startswith("/work/proj")


async def _type_and_send(app, pilot, text: str, key: str = "enter") -> None:
    app.editor.load_text(text)
    app.editor.move_cursor(app.editor.document.end)
    await pilot.pause()
    app.menu.hide()  # Enter would accept a completion instead of submitting
    submitted = asyncio.Event()
    submit = app.submit

    def recording_submit(text: str, follow_up: bool = False, images: Any = None) -> None:
        submit(text, follow_up, images)
        submitted.set()

    app.submit = recording_submit  # the Submitted message reaches the app a few loop turns later
    try:
        await pilot.press(key)
        await asyncio.wait_for(submitted.wait(), HANG_GUARD_S)
    finally:
        del app.submit
    await pilot.pause()


async def _wait_streaming(app, pilot) -> None:
    await wait_for(pilot, lambda: app.session.is_streaming and app.chat.current is not None, "streaming")


def _held(release: asyncio.Event, text: str = "working on it") -> FauxResponse:
    """A stream that stays open after its first delta until ``release`` is set (or it is aborted), so the
    queueing steps happen mid-stream however loaded the machine is."""
    return FauxResponse(steps=[FauxStep("text", text=text)], chunk_size=4, hold=release)


async def test_steering_and_follow_up_while_streaming(project: Path, faux) -> None:
    release = asyncio.Event()
    faux.enqueue(
        _held(release),
        faux_text("steered answer"),
        faux_text("follow-up answer"),
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "start")
        await _wait_streaming(app, pilot)
        await _type_and_send(app, pilot, "also check tests")
        await _type_and_send(app, pilot, "then summarise", key="alt+enter")
        await wait_for(pilot, lambda: app.queue_area.follow_up, "the follow-up to be queued")
        assert app.queue_area.steering == ["also check tests"]
        assert app.queue_area.follow_up == ["then summarise"]
        assert "Steering: also check tests" in str(app.queue_area.render())
        release.set()
        await app.wait_until_idle()
        await pilot.pause()
        users = [u.text for u in app.query(UserMessageView)]
        assert users == ["start", "also check tests", "then summarise"]
        assert app.queue_area.steering == [] and app.queue_area.follow_up == []
        assert [a.text for a in app.query(AssistantMessageView)][-1] == "follow-up answer"


async def test_escape_aborts_and_restores_queue_into_editor(project: Path, faux) -> None:
    faux.enqueue(_held(asyncio.Event()))  # never released: only the abort ends it
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "go")
        await _wait_streaming(app, pilot)
        await _type_and_send(app, pilot, "first queued")
        await _type_and_send(app, pilot, "second queued", key="alt+enter")
        app.editor.load_text("draft")
        await pilot.press("escape")
        await app.wait_until_idle()
        await pilot.pause()
        assert app.editor.text == "first queued\n\nsecond queued\n\ndraft"
        assert session.get_steering_messages() == [] and session.get_follow_up_messages() == []
        assert not session.is_streaming
        last = list(app.query(AssistantMessageView))[-1]
        assert last.stop_reason == "aborted"
        assert "Operation aborted" in last.frozen_markup()
        assert not app.status.has_class("-active")


async def test_alt_up_dequeues_without_aborting(project: Path, faux) -> None:
    faux.enqueue(_held(asyncio.Event()))  # never released: the test aborts it at the end
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "go")
        await _wait_streaming(app, pilot)
        await _type_and_send(app, pilot, "later", key="alt+enter")
        await pilot.press("alt+up")
        await pilot.pause()
        assert app.editor.text == "later"
        assert session.is_streaming
        assert session.get_follow_up_messages() == []
        await session.abort()
        await app.wait_until_idle()


async def test_history_completion_and_paste_markers(project: Path, faux) -> None:
    faux.enqueue(faux_text("one"), faux_text("two"), faux_text("pasted"))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "first prompt")
        await app.wait_until_idle()
        await _type_and_send(app, pilot, "second prompt")
        await app.wait_until_idle()
        await pilot.press("up")
        assert app.editor.text == "second prompt"
        await pilot.press("up")
        assert app.editor.text == "first prompt"
        await pilot.press("down", "down")
        assert app.editor.text == ""
        # slash completion lists built-ins; Tab accepts the highlighted one
        await pilot.press("slash", "c", "o")
        await pilot.pause()
        assert app.menu.is_open
        labels = [i.label for i in app.menu.completions.items]
        assert "/copy" in labels and "/compact" in labels
        await pilot.press("tab")
        assert app.editor.text in ("/compact ", "/copy ")
        app.editor.clear()
        await pilot.press("at", "n", "o")
        await pilot.pause()
        assert [i.value for i in app.menu.completions.items] == ["@notes.txt"]
        await pilot.press("escape")  # closes the menu, does not abort or clear
        assert not app.menu.is_open and app.editor.text == "@no"
        app.editor.clear()
        big = "\n".join(f"line {i}" for i in range(30))
        app.editor.focus()
        from textual import events

        app.editor.post_message(events.Paste(big))
        await pilot.pause()
        assert app.editor.text == "[paste #1 +30 lines]"
        await pilot.press("enter")
        await app.wait_until_idle()
        assert faux.requests[-1].messages[-1].content[0].text == big


async def test_copy_puts_markdown_source_on_clipboard(project: Path, faux) -> None:
    from pi_app.tui.clipboard import MemoryClipboard

    answer = "## Result\n\n```python\nprint('x')\n```\n\n- **bold** item"
    faux.enqueue(faux_text(answer))
    session = await make_session(project)
    clipboard = MemoryClipboard()
    app = make_app(session, clipboard=clipboard)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "/copy")
        await app.wait_until_idle()
        assert clipboard.copies == []
        assert "No agent messages to copy yet." in app.chat.items[-1].text
        await _type_and_send(app, pilot, "show me")
        await app.wait_until_idle()
        await _type_and_send(app, pilot, "/copy")
        await app.wait_until_idle()
        assert clipboard.last == answer
        assert app.chat.items[-1].text == "Copied last agent message to clipboard"
        # keyboard selection: ctrl+x selects the newest copyable message, up moves, c copies
        await pilot.press("ctrl+x")
        assert app.selection.active
        await pilot.press("up", "c")
        await pilot.pause()
        assert clipboard.last == "show me"
        assert not app.selection.active


async def test_copy_failure_is_not_reported_as_success(project: Path, faux) -> None:
    from pi_app.tui.clipboard import MemoryClipboard

    faux.enqueue(faux_text("hello"))
    session = await make_session(project)
    app = make_app(session, clipboard=MemoryClipboard(available=False))
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "hi")
        await app.wait_until_idle()
        await _type_and_send(app, pilot, "/copy")
        await app.wait_until_idle()
        assert app.chat.items[-1].text == "Could not copy: no clipboard available"


async def test_no_model_panel_and_prompt_error(project: Path, faux) -> None:
    from widgets.no_model import NoModelPanel

    session = await make_session(project, model=None)
    assert session.model is None
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        assert len(app.query(NoModelPanel)) == 1
        await _type_and_send(app, pilot, "hello")
        await app.wait_until_idle()
        assert "model" in app.chat.items[-1].text.lower()
        assert app.footer.data.model_id is None


async def test_unknown_command_and_session_name(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "/frobnicate now")
        await app.wait_until_idle()
        assert app.chat.items[-1].text == "Unknown command: /frobnicate"
        await _type_and_send(app, pilot, "/name my work")
        await app.wait_until_idle()
        assert session.session_name == "my work"
        assert app.chat.items[-1].text == "Session name set: my work"
        await pilot.pause()
        assert "• my work" in app.footer.lines()[0].plain
        await _type_and_send(app, pilot, "/session")
        await app.wait_until_idle()
        info = app.chat.items[-1].text
        assert info.startswith("Session Info") and "Name: my work" in info and "Tool Calls: 0" in info
        await _type_and_send(app, pilot, "/hotkeys")
        await app.wait_until_idle()
        keys = app.chat.items[-1].text
        assert "Keyboard Shortcuts" in keys and "Cycle thinking level" in keys and "Queue follow-up" in keys
        assert not faux.requests  # none of this reached the model


async def test_thinking_toggle_persists_and_thinking_level_cycles(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.chat.hide_thinking
        assert session.settings.settings.hideThinkingBlock is True
        assert app.chat.items[-1].text == "Thinking blocks: hidden"
        before = session.thinking_level
        await pilot.press("shift+tab")
        await pilot.pause()
        assert session.thinking_level != before
        assert app.editor.thinking_level == session.thinking_level
        # consecutive statuses replace each other
        assert app.chat.items[-1].text == f"Thinking level: {session.thinking_level}"
        assert not any(getattr(w, "text", "") == "Thinking blocks: hidden" for w in app.chat.items)


async def test_ctrl_c_clears_then_twice_quits_and_ctrl_d(project: Path, faux) -> None:
    from tests.tui.conftest import FakeClock

    clock = FakeClock()
    session = await make_session(project)
    app = make_app(session, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("some text")
        await pilot.press("ctrl+c")
        assert app.editor.text == ""
        clock.advance(2.0)
        await pilot.press("ctrl+c")
        assert app.is_running
        clock.advance(0.2)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0
    app2 = make_app(await make_session(project))
    async with app2.run_test(size=SIZE) as pilot:
        app2.editor.load_text("ab")
        app2.editor.move_cursor((0, 0))
        await pilot.press("ctrl+d")  # not empty: deletes forward
        assert app2.editor.text == "b"
        app2.editor.clear()
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert not app2.is_running


async def test_double_escape_on_empty_editor(project: Path, faux) -> None:
    from tests.tui.conftest import FakeClock
    from widgets.tree.screen import TreeBrowserScreen

    clock = FakeClock()
    app = make_app(await make_session(project), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        clock.advance(1.0)
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.screen_stack) == 1  # too far apart: no double escape
        clock.advance(0.3)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: isinstance(app.screen, TreeBrowserScreen), "the tree (doubleEscapeAction)"
        )


async def test_user_bash_runs_live_and_reaches_context(project: Path, faux) -> None:
    from widgets.bash_view import BashExecutionView

    faux.enqueue(faux_text("seen"))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await _type_and_send(app, pilot, "!echo hello-from-bash")
        await app.wait_until_idle()
        views = list(app.query(BashExecutionView))
        assert len(views) == 1 and views[0].status == "done"
        assert "hello-from-bash" in views[0].output
        await _type_and_send(app, pilot, "!!echo private")
        await app.wait_until_idle()
        await _type_and_send(app, pilot, "what ran?")
        await app.wait_until_idle()
        sent = str(faux.requests[-1].messages)
        assert "hello-from-bash" in sent and "private" not in sent


async def test_model_selector_filters_and_switches(project: Path, faux) -> None:
    from pi_app.ai.providers.faux import faux_model
    from pi_app.tui.screens.model_select import ModelSelectScreen

    session = await make_session(project)
    registry = session.model_registry
    other = faux_model("faux-2", reasoning=False)
    registry._models.extend([session.model, other])  # test-only: a second available model
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+l")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ModelSelectScreen)
        await pilot.press("2")
        await pilot.pause()
        assert [m.id for m in screen.shown] == ["faux-2"]
        await pilot.press("enter")
        await app.wait_until_idle()
        await pilot.pause()
        assert session.model.id == "faux-2"
        assert app.footer.data.model_id == "faux-2"
        assert app.chat.items[-1].text == "Model: faux-2"
        await pilot.press("ctrl+p")
        await app.wait_until_idle()
        await pilot.pause()
        assert session.model.id == "faux-1"
        assert app.chat.items[-1].text.startswith("Switched to Faux faux-1")


async def test_ctrl_g_edits_the_prompt_in_the_external_editor(
    project: Path, faux, monkeypatch, tmp_path
) -> None:
    script = tmp_path / "fake-editor.sh"
    script.write_text('#!/bin/sh\nprintf "edited: %s\\n" "$(cat "$1")" > "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(script))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.insert("fix the bug")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.editor.text == "edited: fix the bug"
        monkeypatch.setenv("VISUAL", "false")  # an editor that fails leaves the prompt alone
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.editor.text == "edited: fix the bug"
