"""The Conversation: a live run and the same session resumed show the same widgets (one builder for both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from pi_app.ai.providers.faux import FauxResponse, FauxStep
from pi_app.session.store import SessionManager
from pi_app.tui.bridge import EventBridge
from tests.tui.conftest import SIZE, make_app, make_session
from widgets.bash_view import BashExecutionView
from widgets.conversation import Conversation
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import Notice
from widgets.tool_panel import ToolPanel


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    return root


def shown(items: list[Widget]) -> list[tuple[str, Any]]:
    """What each conversation entry shows, independent of how it was built."""
    out: list[tuple[str, Any]] = []
    for widget in items:
        if isinstance(widget, UserMessageView):
            out.append(("user", widget.text))
        elif isinstance(widget, AssistantMessageView):
            out.append(("assistant", widget.frozen_markup(), bool(widget.display)))
        elif isinstance(widget, ToolPanel):
            assert widget.result is not None
            out.append(("tool", widget.tool_name, widget.args, widget.state, widget.build().plain))
        elif isinstance(widget, BashExecutionView):
            out.append(("bash", widget.command, widget.output, widget.status))
        elif isinstance(widget, Notice):
            out.append(("notice", widget.text))
    return out


async def test_a_live_run_and_its_resume_show_the_same_entries(project: Path, faux) -> None:
    faux.enqueue(
        FauxResponse(
            steps=[
                FauxStep("thinking", text="Look at the file first."),
                FauxStep("tool", name="read", arguments={"path": "notes.txt"}, id="call_read"),
                FauxStep("tool", name="ls", arguments={"path": "."}, id="call_ls"),
            ]
        )
    )
    faux.enqueue(FauxResponse(steps=[FauxStep("text", text="It has **three** lines.")]))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("What is in notes.txt?")
        await app.wait_until_idle()
        await pilot.pause()
        assert isinstance(app.chat, Conversation)
        live = shown(app.chat.items)
        assert [entry[0] for entry in live] == ["user", "assistant", "tool", "tool", "assistant"]
        assert live[1][2] is True  # the thinking shows; a tool-call-only turn without it would be hidden
        assert live[2][3] == "success" and "alpha" in live[2][4]
        path = session.session_file
    resumed_session = await make_session(project, session=SessionManager.open(path))
    resumed = make_app(resumed_session)
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert shown(resumed.chat.items) == live


async def test_the_pump_posts_screen_changes_as_messages(project: Path, faux) -> None:
    faux.enqueue(FauxResponse(steps=[FauxStep("text", text="done")]))
    app = make_app(await make_session(project))
    seen: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        original = app.post_message

        def spy(message: Any) -> bool:
            if isinstance(message, EventBridge.StatusChanged):
                seen.append(f"status:{message.state}")
            elif isinstance(message, EventBridge.FooterChanged):
                seen.append("footer")
            return original(message)

        app.post_message = spy  # type: ignore[method-assign]
        app.submit("go")
        await app.wait_until_idle()
        await pilot.pause()
        assert seen[0] == "status:working"
        assert seen.index("status:idle") > 0 and seen[-1] == "footer"  # agent_end: idle, then the footer


async def test_selection_is_a_cursor_with_the_conversations_own_keys() -> None:
    from tests.widgets.harness import PiTestApp

    conversation = Conversation()
    copies: list[str | None] = []

    class Host(PiTestApp):
        def on_conversation_copy_requested(self, message: Conversation.CopyRequested) -> None:
            copies.append(message.control.selected_text())
            message.control.stop_selection()

    app = Host([conversation])
    async with app.run_test(size=(60, 10)) as pilot:
        for i in range(30):
            await conversation.add(UserMessageView(f"m{i}"))
        conversation.focus()
        conversation.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("down", "down", "c")  # no cursor: the keys scroll, "c" does nothing
        await pilot.pause()
        assert conversation.scroll_y == 2 and copies == [] and not conversation.selecting
        conversation.start_selection()
        await pilot.press("up", "up", "down")
        await pilot.pause()
        assert [w.text for w in conversation.items if w.has_class("-pi-selected")] == ["m28"]
        await pilot.press("enter")
        await pilot.pause()
        assert copies == ["m28"] and not conversation.selecting
        assert not any(w.has_class("-pi-selected") for w in conversation.items)
