"""Keys as terminals send them (issue 17): Alt+Enter as ESC CR is a follow-up, not Enter; keys that cannot
arrive (Shift+Enter in tmux without extended-keys) are named once and never advertised."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual._xterm_parser import XTermParser

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_text
from pi_app.tui.terminal_keys import key_notes, recognise_esc_cr, unreachable_keys
from tests.tui.session_helpers import wait_for
from tests.tui_daily.helpers import SIZE, start


def _keys(data: str) -> list[str]:
    """The keys Textual's terminal parser reports for ``data`` read in one go."""
    recognise_esc_cr()
    parser = XTermParser()
    return [event.key for event in parser.feed(data) if hasattr(event, "key")]


def test_esc_cr_is_alt_enter_and_cr_stays_enter() -> None:
    assert _keys("\x1b\r") == ["alt+enter"]
    assert _keys("\r") == ["enter"]
    assert _keys("ok\x1b\r") == ["o", "k", "alt+enter"]
    assert _keys("\x1b[13;3u") == ["alt+enter"]  # the kitty protocol's spelling is unchanged


async def test_esc_cr_while_streaming_queues_a_follow_up(project: Path, faux) -> None:
    release = asyncio.Event()
    held = FauxResponse(steps=[FauxStep("text", text="working on it")], chunk_size=4, hold=release)
    app = await start(project, faux, [held, faux_text("follow-up answer")])
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("first")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.is_streaming and app.chat.current is not None, "streaming")
        parser = XTermParser()
        recognise_esc_cr()
        for event in parser.feed("later\x1b\r"):  # what tmux or xterm writes for "later" + Alt+Enter
            app.post_message(event)
        await wait_for(pilot, lambda: app.session.get_follow_up_messages() == ["later"], "follow-up queued")
        assert app.session.get_steering_messages() == []
        assert app.editor.text == ""
        release.set()
        await app.wait_until_idle()


def test_shift_enter_in_tmux_without_extended_keys_is_named_once() -> None:
    def tmux_off(name: str) -> str:
        assert name == "extended-keys"
        return "off"

    unreachable = unreachable_keys({"TMUX": "/tmp/tmux-0/default,1,0"}, tmux_off)
    assert {"shift+enter", "ctrl+enter", "ctrl+shift+f", "ctrl+shift+p"} <= unreachable
    (note,) = key_notes(unreachable)
    assert "Shift+Enter arrives as Enter" in note and "Ctrl+J" in note
    assert unreachable_keys({"TMUX": "x"}, lambda name: "on") == frozenset()
    assert unreachable_keys({}, tmux_off) == frozenset()
    assert key_notes(frozenset()) == []


async def test_hotkeys_never_list_a_key_that_cannot_arrive(project: Path, faux) -> None:
    app = await start(project, faux, [])
    async with app.run_test(size=SIZE):

        def listed() -> set[str]:
            # /hotkeys rows: "  keys  description", several keys joined by " / "
            rows = [line.strip() for line in app.hotkeys_text().splitlines() if line.startswith("  ")]
            return {key for row in rows for key in row.split("  ")[0].split(" / ")}

        assert {"shift+enter", "ctrl+shift+f", "ctrl+shift+p"} <= listed()
        app.unreachable_keys = unreachable_keys({"TMUX": "x"}, lambda name: "off")
        keys = listed()
        assert "shift+enter" not in keys and "ctrl+j" in keys
        assert "ctrl+shift+f" not in keys and "ctrl+f" in keys  # the key that does arrive stays listed
        assert "ctrl+shift+p" not in keys
