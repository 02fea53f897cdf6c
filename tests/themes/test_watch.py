"""Hot reload by mtime polling."""

from __future__ import annotations

import json
import os
from pathlib import Path

import themes
from themes import textual_adapter


def _write(path: Path, heading: str, stamp: int) -> None:
    data = json.loads((Path(themes.__file__).parent / "dark.json").read_text())
    data["name"] = "mine"
    data["colors"]["mdHeading"] = heading
    path.write_text(json.dumps(data))
    os.utime(path, ns=(stamp, stamp))  # explicit mtimes: no sleeping, no filesystem-granularity flakes


def test_watcher_reloads_on_change(tmp_path):
    path = tmp_path / "mine.json"
    _write(path, "#111111", 1_000_000_000)
    watcher = themes.ThemeWatcher(path)
    assert watcher.check() is None  # unchanged

    _write(path, "#222222", 2_000_000_000)
    spec = watcher.check()
    assert spec is not None and spec.colors["mdHeading"] == "#222222"
    assert textual_adapter.to_textual_theme(spec).variables["pi-md-heading"] == "#222222"
    assert watcher.check() is None  # reported once

    # Mid-edit garbage: nothing to apply, the warning is kept, the old theme stays.
    path.write_text('{"name": "mine", "colors": {')
    os.utime(path, ns=(3_000_000_000, 3_000_000_000))
    assert watcher.check() is None
    assert "invalid JSON" in watcher.last_warnings[0].message

    _write(path, "#333333", 4_000_000_000)
    spec = watcher.check()
    assert spec is not None and spec.colors["mdHeading"] == "#333333"

    path.unlink()
    assert watcher.check() is None and watcher.deleted


async def test_reloaded_theme_applies_to_running_app(tmp_path):
    from textual.app import App, ComposeResult
    from textual.color import Color
    from textual.widgets import Static

    class Demo(App):
        CSS = "Static { color: $pi-md-heading; }"

        def get_theme_variable_defaults(self) -> dict[str, str]:
            return themes.variable_defaults()

        def compose(self) -> ComposeResult:
            yield Static("# title")

    path = tmp_path / "mine.json"
    _write(path, "#111111", 1_000_000_000)
    watcher = themes.ThemeWatcher(path)
    spec, _ = themes.load_theme_file(path, themes.get_spec("dark"))
    app = Demo()
    textual_adapter.register_all(app)
    textual_adapter.install_theme(app, spec)
    async with app.run_test() as pilot:
        app.theme = "mine"
        await pilot.pause()
        assert app.query_one(Static).styles.color == Color.parse("#111111")
        _write(path, "#abcdef", 2_000_000_000)
        textual_adapter.install_theme(app, watcher.check())
        await pilot.pause()
        assert app.query_one(Static).styles.color == Color.parse("#abcdef")
