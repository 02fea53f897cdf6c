"""What follows once a resumed session's tail is on screen: the rest of its history typed in steps, the
unusable messages reported, and ↑'s earlier prompts collected (a walk over every message)."""

from __future__ import annotations

import asyncio

from .context import AppContext

# Messages of a resumed history typed per step once its tail is drawn (~15 ms each: keys stay responsive).
HISTORY_STEP = 500


async def finish_history(app: AppContext, warnings: list[str], header: bool) -> list[str]:
    """Type the rest of the history; each unusable message becomes a chat notice (the chat drawn again,
    typed, when one dropped out: message indices moved). Returns the new warnings."""
    session = app.session
    while not session.type_history_step(HISTORY_STEP):
        await asyncio.sleep(0)
    new, dropped = session.type_history()
    if new:
        from widgets.notices import Notice

        shown = new
        if dropped and not session.is_streaming:
            await app.rebuild_chat(header=header)
            shown = [*warnings, *new]
        for warning in shown:
            await app.chat.add(Notice(warning, kind="warning"))
    seed_prompt_history(app)
    return new


def seed_prompt_history(app: AppContext) -> None:
    """The session's user prompts, for ↑ in the editor."""
    from pi_app.ai.text import text_of
    from pi_app.ai.types import UserMessage
    from widgets.history import History

    history = History()
    for msg in app.session.messages:
        if isinstance(msg, UserMessage):
            history.add(text_of(msg.content))
    app.editor.prompt_history = history
