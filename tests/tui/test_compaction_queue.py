"""Prompts submitted while a compaction runs wait for it and are then sent, whatever started it: /compact or
the automatic compaction before a prompt (which once left them waiting for the next /compact)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text
from tests.agent_session.helpers import Script, make_session
from tests.tui.conftest import SIZE, make_app
from tests.waits import wait_until


def _user_texts(requests: list[object]) -> list[str]:
    """The user prompts a provider request carried (the faux provider's record of its context)."""
    out: list[str] = []
    for ctx in requests:
        for m in ctx.messages:  # type: ignore[attr-defined]
            if m.role == "user" and m.content:
                text = m.content if isinstance(m.content, str) else m.content[0].text
                if text not in out:
                    out.append(text)
    return out


async def test_a_prompt_queued_during_an_automatic_compaction_is_sent_after_it(tmp_path: Path, faux) -> None:
    session = await make_session(
        tmp_path,
        settings={"compaction": {"enabled": False, "reserveTokens": 500, "keepRecentTokens": 3}},
        context_window=2000,
    )
    script = Script(
        faux,
        faux_text("z"),
        faux_text("a", usage={"input": 1600, "output": 10}),  # the next prompt compacts first
        faux_text("b"),
        faux_text("c"),
    )
    release = asyncio.Event()
    script.summary = FauxResponse(steps=[FauxStep("text", text="S" * 400)], chunk_size=1, hold=release)
    await session.prompt("zero")
    await session.prompt("one")
    session.set_auto_compaction_enabled(True)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("two")
        await wait_until(lambda: session.is_compacting, "the automatic compaction before 'two'")
        app.submit("three")
        await wait_until(lambda: app.prompts.compaction_queue == ["three"], "'three' held for the compaction")
        release.set()
        await wait_until(lambda: "three" in _user_texts(script.agent_requests), "'three' sent after it")
        await app.wait_until_idle()
        await pilot.pause()
        assert app.prompts.compaction_queue == []
        assert _user_texts(script.agent_requests[-1:])[-2:] == ["two", "three"]
