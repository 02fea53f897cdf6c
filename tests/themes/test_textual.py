"""Every built-in registers on a real Textual app and its `$pi-*` variables work in TCSS."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult
from textual.color import Color
from textual.highlight import highlight
from textual.widgets import Static

import themes
from themes import textual_adapter


class ThemedApp(App):
    CSS = """
    #msg { color: $pi-user-message-text; background: $pi-user-message-bg; border: round $pi-border; }
    #tool { color: $pi-tool-output; background: $pi-tool-pending-bg; }
    #code { background: $pi-tool-success-bg; }
    """

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults()

    def compose(self) -> ComposeResult:
        yield Static("hello", id="msg")
        yield Static("output", id="tool")
        yield Static(
            highlight("def f():\n    return 1", language="python", theme=textual_adapter.PiHighlightTheme),
            id="code",
        )


async def test_every_builtin_registers_and_applies_without_css_errors():
    app = ThemedApp()
    assert textual_adapter.register_all(app) == []
    async with app.run_test() as pilot:
        for name in themes.BUILTIN_THEMES:
            app.theme = name
            await pilot.pause()
            assert app.theme == name
            theme = textual_adapter.get_theme(name)
            base = ("primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost")
            assert all(getattr(theme, attr) for attr in (*base, "success", "warning", "error"))
            assert theme.dark == (not name.endswith("light"))
            variables = app.theme_variables
            for token in themes.TOKENS:
                assert themes.css_variable_name(token) in variables
            tool = app.query_one("#tool")
            if theme.ansi:
                assert tool.styles.color.ansi is not None
            else:
                hexes = themes.token_colors(name)
                assert tool.styles.color == Color.parse(hexes["toolOutput"])
                assert tool.styles.background == Color.parse(hexes["toolPendingBg"])
                # Highlighted code follows the active theme's syntax tokens.
                first = next(iter(app.query_one("#code").render_line(0)))
                assert first.text == "def"
                assert first.style.color.triplet.hex == hexes["syntaxKeyword"]
        # A Textual theme without pi variables still works through the defaults.
        app.theme = "textual-dark"
        await pilot.pause()
        assert app.query_one("#tool").styles.background == Color.parse("#282832")


async def test_user_themes_are_registered(tmp_path, monkeypatch):
    agent = tmp_path / "agent"
    (agent / "themes").mkdir(parents=True)
    data = json.loads((Path(themes.__file__).parent / "dark.json").read_text())
    data["name"] = "ocean"
    data["colors"]["toolPendingBg"] = "#001122"
    (agent / "themes" / "ocean.json").write_text(json.dumps(data))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    app = ThemedApp()
    warnings = textual_adapter.register_all(app, cwd=tmp_path)
    assert warnings == []
    assert "ocean" in themes.available_themes()
    async with app.run_test() as pilot:
        app.theme = "ocean"
        await pilot.pause()
        assert app.query_one("#tool").styles.background == Color.parse("#001122")
