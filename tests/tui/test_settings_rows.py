"""/settings rows beyond the theme: applied live to the session and the editor, and saved."""

from __future__ import annotations

from pathlib import Path

from pi_app.tui.screens.settings import SETTING_ROWS, SettingsScreen
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for


async def _choose(app, pilot, key: str) -> None:
    options = app.screen.query_one("OptionList")
    options.highlighted = [r.key for r in SETTING_ROWS].index(key)
    await pilot.press("enter")
    await pilot.pause()


async def test_thinking_padding_autocomplete_and_toggles_apply_live(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        before = session.thinking_level
        app.open_settings()
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
        await pilot.pause()
        await _choose(app, pilot, "thinking")
        levels = list(session.available_thinking_levels())
        assert session.thinking_level == levels[(levels.index(before) + 1) % len(levels)]
        assert app.editor.thinking_level == session.thinking_level
        await _choose(app, pilot, "editorPaddingX")
        assert session.settings.settings.editorPaddingX == 1
        assert app.editor.styles.padding.left == 2
        await _choose(app, pilot, "autocompleteMaxVisible")
        assert session.settings.settings.autocompleteMaxVisible == 7
        assert app.menu.styles.max_height.value == 7
        await _choose(app, pilot, "compaction.enabled")
        assert session.auto_compaction_enabled is False
        await _choose(app, pilot, "enableSkillCommands")
        assert session.settings.settings.enableSkillCommands is False
