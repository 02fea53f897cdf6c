"""Entry renderers, Markdown transformers and autocomplete providers of extensions in the app (Pilot):
custom entries show live and on resume at their place in the conversation (only types an extension renders);
assistant Markdown is transformed for display only, live and resumed; a ``#`` provider stacked on the
editor's completion suggests and a suggestion is accepted."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from pi_app.ai.providers.faux import faux_text
from pi_app.ai.text import text_of
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.session.store import SessionManager
from tests.extensions.helpers import write_ext
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from widgets.completion import CompletionItem

EXT = """
import re

from pi_app.extensions import AutocompleteItem, AutocompleteSuggestions


def card(entry, expanded):
    return [f"CARD {entry.data['title']}: {entry.data['count']}"]


class Issues:
    def __init__(self, current):
        self.current = current

    def get_suggestions(self, lines, cursor_line, cursor_col, force):
        match = re.search(r"(?:^|[ \\t])#([^\\s#]*)$", lines[cursor_line][:cursor_col])
        if match is None:
            return self.current.get_suggestions(lines, cursor_line, cursor_col, force)
        items = [
            AutocompleteItem("#2983", "#2983", "Extension API for autocomplete"),
            AutocompleteItem("#2753", "#2753", "Reload stale resource settings"),
        ]
        typed = match.group(1)
        return AutocompleteSuggestions("#" + typed, [i for i in items if i.value[1:].startswith(typed)])


def register(pi):
    pi.register_entry_renderer("card", card)
    pi.register_markdown_transformer(lambda md, ctx: md.replace("-->", "→").replace("~~", ctx.message_type))

    async def add(args, ctx):
        pi.append_entry("card", {"title": args, "count": 17})
        pi.append_entry("state", {"secret": "not drawn"})

    pi.register_command("card", add)
    pi.on("session_start", lambda event, ctx: ctx.ui.add_autocomplete_provider(Issues))
"""


async def _app(tmp_path: Path, session: Any = None) -> tuple[Any, Any]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = session or await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(write_ext(tmp_path / "ext", "cards.py", EXT)), "temporary")])
    runner.bind(session)
    return make_app(session, extensions=runner), session


def _text(app: Any) -> str:
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def _in_order(text: str, *parts: str) -> bool:
    positions = [text.find(p) for p in parts]
    return all(p >= 0 for p in positions) and positions == sorted(positions)


async def test_entries_and_markdown_live_and_resumed(tmp_path, faux):
    app, session = await _app(tmp_path)
    faux.enqueue(faux_text("first --> answer"), faux_text("second --> answer"))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("one ~~")
        await wait_for(pilot, lambda: "first → answer" in _text(app) and not session.is_streaming, "answer 1")
        app.submit("/card Indexed files")
        await wait_for(pilot, lambda: "CARD Indexed files: 17" in _text(app), "the live card")
        app.submit("two")
        await wait_for(
            pilot, lambda: "second → answer" in _text(app) and not session.is_streaming, "answer 2"
        )
        shown = _text(app)
        assert _in_order(shown, "first → answer", "CARD Indexed files: 17", "two", "second → answer")
        assert "not drawn" not in shown and "-->" not in shown and "one user" in shown
    # display only: the stored messages are unchanged
    assert text_of(next(m for m in session.messages if m.role == "user").content) == "one ~~"
    assert [text_of(m.content) for m in session.messages if m.role == "assistant"] == [
        "first --> answer",
        "second --> answer",
    ]

    resumed = await make_session(tmp_path / "proj", session=SessionManager.open(session.session_file))
    app2, _ = await _app(tmp_path, resumed)
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "second → answer" in _text(app2), "the resumed chat")
        shown = _text(app2)
        assert _in_order(
            shown, "one user", "first → answer", "CARD Indexed files: 17", "two", "second → answer"
        )
        assert "not drawn" not in shown


async def test_autocomplete_provider_suggests_and_accepts(tmp_path, faux):
    app, _ = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#editor")
        await pilot.press(*"fix #29")
        await wait_for(pilot, lambda: app.menu.is_open, "the suggestions")
        assert app.menu.completions is not None
        assert app.menu.completions.items == [
            CompletionItem("#2983", "#2983", "Extension API for autocomplete")
        ]
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.editor.text == "fix #2983 ", "the accepted suggestion")

        app.editor.load_text("")
        await pilot.press(*"/mo")  # the built-in provider still answers below it
        await wait_for(pilot, lambda: app.menu.is_open, "slash commands")
        assert any(item.value == "/model" for item in app.menu.completions.items)
