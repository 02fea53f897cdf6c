"""Long sessions open at the end: only the tail is mounted; earlier messages load when asked for."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.store import SessionManager
from tests.tui.conftest import SIZE, make_app, make_session
from widgets.chat_log import ChatLog
from widgets.messages import UserMessageView


def conversation(pairs: int) -> list:
    out: list = []
    for i in range(pairs):
        out.append(UserMessage(content=[TextContent(text=f"question {i}")]))
        out.append(
            AssistantMessage(content=[TextContent(text=f"answer {i}")], model="faux-1", provider="faux")
        )
    return out


async def test_resume_mounts_tail_and_loads_earlier_on_demand(project: Path, faux) -> None:
    first = await make_session(project)
    for message in conversation(150):  # 300 messages, persisted to the session file
        first.session_manager.append_message(message)
    path = first.session_file
    assert path is not None
    resumed = await make_session(project, session=SessionManager.open(path))
    assert len(resumed.messages) == 300
    app = make_app(resumed, tail_messages=100)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        users = [u.text for u in app.query(UserMessageView)]
        assert users[0] == "question 100" and users[-1] == "question 149" and len(users) == 50
        assert app.chat.has_earlier
        app.chat.post_message(ChatLog.EarlierRequested(app.chat))
        await pilot.pause()
        users = [u.text for u in app.query(UserMessageView)]
        assert users[0] == "question 50" and len(users) == 100
        # history browsing covers the whole session, not only what is mounted
        assert app.editor.prompt_history.entries[-1] == "question 149"
