"""A live theme switch recolours what is already on screen: frozen markdown code blocks, tool-panel
diffs, user messages and a message that is still streaming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import themes
from pi_app.ai.types import AssistantMessage, TextContent
from tests.theme_snapshots.cells import find_cell
from tests.theme_snapshots.screens import SIZE, ScreenApp, conversation
from themes import textual_adapter
from widgets.chat_log import ChatLog
from widgets.messages import AssistantMessageView
from widgets.notices import CompactionSummaryView


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")


def _colors(app) -> dict[str, str | None]:
    return {
        # Frozen assistant markdown: `def` in the fenced python block.
        "keyword": find_cell(app, "def greet", "def").fg,
        "string": find_cell(app, 'return f"hello', 'f"').fg,
        "comment": find_cell(app, 'return f"hello', "#").fg,
        # Edit diff inside the success tool panel.
        "added": find_cell(app, "+10", "+").fg,
        "removed": find_cell(app, "-10", "-").fg,
        "success_bg": find_cell(app, "-10", "-").bg,
        "user_bg": find_cell(app, "Make greet", "M").bg,
    }


def _expected(name: str) -> dict[str, str]:
    c = themes.token_colors(name)
    return {
        "keyword": c["syntaxKeyword"],
        "string": c["syntaxString"],
        "comment": c["syntaxComment"],
        "added": c["toolDiffAdded"],
        "removed": c["toolDiffRemoved"],
        "success_bg": c["toolSuccessBg"],
        "user_bg": c["userMessageBg"],
    }


async def test_switching_theme_recolours_frozen_content():
    app = ScreenApp(conversation, "dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert _colors(app) == _expected("dark")
        for name in ("nord", "light"):
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            assert _colors(app) == _expected(name), name
        # The themes really differ in every checked colour, so the switch was observable.
        assert all(_expected("dark")[k] != _expected("light")[k] for k in _expected("dark"))


async def test_streaming_code_fence_uses_theme_syntax_colours():
    app = ScreenApp(lambda: [ChatLog()], "dark")
    async with app.run_test(size=SIZE) as pilot:
        view = AssistantMessageView()
        await app.query_one(ChatLog).mount(view)
        await view.append_text("Here:\n\n```python\nimport os\n")
        await view.append_text("```\n")
        await pilot.pause()
        await pilot.pause()
        assert find_cell(app, "import os", "import").fg == themes.token_colors("dark")["syntaxKeyword"]
        app.theme = "gruvbox"
        await pilot.pause()
        await pilot.pause()
        assert find_cell(app, "import os", "import").fg == themes.token_colors("gruvbox")["syntaxKeyword"]


def _baked() -> list:
    log = ChatLog()
    log.compose_add_child(
        AssistantMessageView.from_message(
            AssistantMessage(
                content=[TextContent(text="```python\ndef greet():\n```")],
                stopReason="error",
                errorMessage="boom",
            )
        )
    )
    log.compose_add_child(CompactionSummaryView("Summary body", tokens_before=1234))
    return [log]


async def test_switching_theme_recolours_colours_baked_at_render_time():
    """The error line of a frozen message and a summary's label are styled when built, not by CSS."""
    app = ScreenApp(_baked, "dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for name in ("dark", "tokyo-night", "solarized-light"):
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            colors = themes.token_colors(name)
            assert find_cell(app, "Error: boom", "E").fg == colors["error"], name
            assert find_cell(app, "[compaction]", "c").fg == colors["customMessageLabel"], name


def _user_theme(keyword: str, error: str) -> themes.ThemeSpec:
    data = json.loads((Path(themes.__file__).parent / "dark.json").read_text())
    data["name"] = "mine"
    data["colors"]["syntaxKeyword"] = keyword
    data["colors"]["error"] = error
    spec, warnings = themes.parse_theme(data, "<test>", themes.get_spec("dark"))
    assert spec is not None and warnings == []
    return spec


async def test_hot_reload_of_active_theme_recolours_frozen_content():
    """install_theme() on the active theme (what the file watcher does) keeps the theme name, so only
    the signal tells widgets; both the code block and the baked error line must follow."""
    app = ScreenApp(_baked, "dark")
    async with app.run_test(size=SIZE) as pilot:
        textual_adapter.install_theme(app, _user_theme("#aa00aa", "#ff1010"))
        app.theme = "mine"
        await pilot.pause()
        await pilot.pause()
        assert find_cell(app, "def greet", "def").fg == "#aa00aa"
        textual_adapter.install_theme(app, _user_theme("#00aaaa", "#ff5050"))
        await pilot.pause()
        await pilot.pause()
        assert find_cell(app, "def greet", "def").fg == "#00aaaa"
        assert find_cell(app, "Error: boom", "E").fg == "#ff5050"
