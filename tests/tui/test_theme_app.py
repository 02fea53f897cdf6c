"""Themes in the running app: settings preview/cancel/save, --theme, user theme files, hot reload, first run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import themes
from pi_app.tui.screens.settings import SETTING_ROWS, SettingsScreen, ThemeSelectScreen
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

DARK_JSON = Path(themes.__file__).parent / "dark.json"


@pytest.fixture(autouse=True)
def _fresh_user_themes():
    from themes.registry import clear_user_themes

    clear_user_themes()
    yield
    clear_user_themes()


def write_theme(path: Path, name: str, accent: str = "#ff0000") -> Path:
    data = json.loads(DARK_JSON.read_text(encoding="utf-8"))
    data["name"] = name
    data["colors"]["accent"] = accent
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


async def _open_theme_picker(app, pilot) -> ThemeSelectScreen:
    app.open_settings()
    await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
    await pilot.pause()
    options = app.screen.query_one("OptionList")
    options.highlighted = [r.key for r in SETTING_ROWS].index("theme")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ThemeSelectScreen), "the theme picker")
    await pilot.pause()
    return app.screen


async def test_settings_theme_previews_restores_on_cancel_and_saves(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "dark"
        picker = await _open_theme_picker(app, pilot)
        assert picker.query_one("OptionList").highlighted == picker.names.index("dark")
        await pilot.press("down")
        await pilot.pause()
        previewed = picker.names[picker.names.index("dark") + 1]
        assert app.theme == previewed  # live preview
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "dark"  # cancel restores
        assert session.settings.settings.theme in (None, "dark")
        assert isinstance(app.screen, SettingsScreen)
        picker = await _open_theme_picker(app, pilot)
        picker.query_one("OptionList").highlighted = picker.names.index("nord")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "nord"
        assert session.settings.settings.theme == "nord"
        saved = json.loads((Path(os.environ["PI_CODING_AGENT_DIR"]) / "settings.json").read_text())
        assert saved["theme"] == "nord"


async def test_theme_flag_by_name_and_by_file_then_hot_reload(project: Path, tmp_path: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session, theme=None)
    app.cli_themes = ["gruvbox"]
    async with app.run_test(size=SIZE):
        assert app.theme == "gruvbox"

    theme_file = write_theme(tmp_path / "mine.json", "mine", accent="#ff0000")
    app = make_app(session, theme=None)
    app.cli_themes = [str(theme_file)]
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "mine"
        assert app.theme_variables["pi-accent"].lower() == "#ff0000"
        assert app.theme_watch.check() is None  # unchanged
        write_theme(theme_file, "mine", accent="#00ff00")
        os.utime(theme_file, ns=(1, 1))  # a different mtime even within the clock's resolution
        assert app.theme_watch.check() == "reloaded"
        await pilot.pause()
        assert app.theme_variables["pi-accent"].lower() == "#00ff00"
        theme_file.unlink()
        await app.check_theme_file()
        await pilot.pause()
        assert app.theme == "dark"
        texts = [getattr(w, "text", "") for w in app.chat.items]
        assert 'Theme file of "mine" was deleted; using dark' in texts


async def test_settings_themes_and_project_folder_are_registered(project: Path, tmp_path: Path, faux) -> None:
    folder = project / ".pi" / "themes"
    folder.mkdir(parents=True)
    write_theme(folder / "proj.json", "project-theme")
    extra = write_theme(tmp_path / "extra.json", "extra-theme")
    session = await make_session(project)
    session.settings.set("themes", [str(extra)])
    session.settings.set_theme("extra-theme")
    app = make_app(session, theme=None)
    async with app.run_test(size=SIZE):
        assert {"project-theme", "extra-theme"} <= set(app.available_themes)
        assert app.theme == "extra-theme"
        assert app.theme_watch.watcher is not None and app.theme_watch.watcher.path == extra


async def test_unknown_theme_falls_back_with_a_warning(project: Path, faux) -> None:
    session = await make_session(project)
    session.settings.set_theme("no-such-theme")
    app = make_app(session, theme=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "dark"
        texts = [getattr(w, "text", "") for w in app.chat.items]
        assert any('Theme "no-such-theme" not found' in t for t in texts)


async def test_first_run_picks_light_from_colorfgbg(project: Path, faux, monkeypatch) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")
    session = await make_session(project)
    assert session.settings.settings.theme is None
    app = make_app(session, theme=None)
    async with app.run_test(size=SIZE):
        assert app.theme == "light"
    monkeypatch.setenv("COLORFGBG", "15;0")
    app = make_app(session, theme=None)
    async with app.run_test(size=SIZE):
        assert app.theme == "dark"


async def test_settings_rows_for_tree_behaviour_are_saved(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.open_settings()
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), "settings")
        await pilot.pause()
        options = app.screen.query_one("OptionList")
        options.highlighted = [r.key for r in SETTING_ROWS].index("branchSummary.skipPrompt")
        await pilot.press("enter")
        options.highlighted = [r.key for r in SETTING_ROWS].index("treeFilterMode")
        await pilot.press("enter")
        await pilot.pause()
        assert session.settings.settings.branchSummary.skipPrompt is True
        assert session.settings.settings.treeFilterMode == "no-tools"
