"""Pure pieces behind the session commands and the theme setup."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import themes
from pi_app.tui.commands import export_target
from pi_app.tui.session_commands import delete_session_file, rename_session_file
from pi_app.tui.theme_support import setup_themes, theme_file
from tests.tui.session_helpers import FIXTURE

DARK_JSON = Path(themes.__file__).parent / "dark.json"


@pytest.fixture(autouse=True)
def _fresh_user_themes():
    from themes.registry import clear_user_themes

    clear_user_themes()
    yield
    clear_user_themes()


class Host:
    """Just enough of an App for register_theme."""

    def __init__(self) -> None:
        self.registered: list[str] = []

    def register_theme(self, theme) -> None:
        self.registered.append(theme.name)


def _settings(theme: str | None = None, theme_paths: list[str] | None = None) -> SimpleNamespace:
    return SimpleNamespace(settings=SimpleNamespace(theme=theme, themes=theme_paths))


def _theme(path: Path, name: str) -> Path:
    data = json.loads(DARK_JSON.read_text(encoding="utf-8"))
    data["name"] = name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_export_target_resolves_against_the_session_cwd() -> None:
    assert export_target("", "/p") is None
    assert export_target("out.html", "/p") == "/p/out.html"
    assert export_target('"my file.html"', "/p") == "/p/my file.html"
    assert export_target("/abs/x.jsonl", "/p") == "/abs/x.jsonl"
    assert export_target("~/x.html", "/p").endswith("/x.html") and not export_target(
        "~/x.html", "/p"
    ).startswith("/p")


def test_no_themes_skips_discovery_but_loads_cli_paths(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    (cwd / ".pi" / "themes").mkdir(parents=True)
    _theme(cwd / ".pi" / "themes" / "p.json", "from-project")
    cli = _theme(tmp_path / "cli.json", "from-cli")
    host = Host()
    chosen = setup_themes(host, str(cwd), _settings(), [str(cli)], no_themes=True, env={})
    assert "from-cli" in host.registered and "from-project" not in host.registered
    assert chosen.active == "from-cli" and chosen.warnings == []
    assert theme_file("from-cli") == cli and theme_file("dark") is None


def test_discovery_settings_paths_and_missing_path_warning(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    (cwd / ".pi" / "themes").mkdir(parents=True)
    _theme(cwd / ".pi" / "themes" / "p.json", "from-project")
    host = Host()
    chosen = setup_themes(
        host,
        str(cwd),
        _settings("from-project", [str(tmp_path / "gone.json")]),
        [],
        env={"COLORFGBG": "0;15"},
    )
    assert chosen.active == "from-project"
    assert any("gone.json" in w and "does not exist" in w for w in chosen.warnings)
    first_run = setup_themes(Host(), str(cwd), _settings(), [], env={"COLORFGBG": "0;15"})
    assert first_run.active == "light"


def test_rename_and_delete_another_session_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(FIXTURE.read_bytes())
    rename_session_file(str(path), "renamed")
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    assert last["type"] == "session_info" and last["name"] == "renamed"
    assert last["parentId"] == "1abe1001"  # appended at the file's leaf
    delete_session_file(str(path))
    assert not path.exists()
    with pytest.raises(FileNotFoundError):
        delete_session_file(str(path))
