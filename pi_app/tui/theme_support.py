"""Themes in the running app: which themes exist, which one is active, and hot reload of its file.

Registered at startup: the built-ins, user themes from ``<agentDir>/themes``, ``.pi/themes``, the ``themes``
setting and ``--theme`` paths (``--no-themes`` keeps only the ``--theme`` paths). The active theme is, in
order: the test override, the last ``--theme`` naming a known theme (a theme name, or a file whose theme
loaded), the ``theme`` setting, and on first run (no setting) the terminal's background (``COLORFGBG``).
The active theme's file, when it is a user theme, is polled once a second and re-installed on change; if
it disappears the app falls back to ``dark``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import themes
from themes.registry import base_spec
from themes.textual_adapter import ThemedApp, ThemeHost, color_depth, get_theme, install_theme, register_all

if TYPE_CHECKING:
    from pi_app.session.config import SettingsManager

WATCH_INTERVAL_S = 1.0
FALLBACK = "dark"


@dataclass
class ThemeSetup:
    """What startup found: the theme to activate and the problems to show as warnings."""

    active: str
    warnings: list[str] = field(default_factory=list)


def _resolve(path: str, cwd: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else Path(cwd) / p


def _load_paths_only(app: ThemeHost, cwd: str, paths: Iterable[str]) -> list[str]:
    """``--no-themes``: only the explicitly given theme files/directories."""
    warnings: list[str] = []
    for raw in paths:
        p = _resolve(raw, cwd)
        files = sorted(p.glob("*.json")) if p.is_dir() else [p] if p.is_file() else []
        if not files and not p.exists():
            warnings.append(f"Theme {p}: theme path does not exist; skipped")
        for f in files:
            spec, problems = themes.load_theme_file(f, base_spec())
            warnings += [str(w) for w in problems]
            if spec is not None and spec.name not in ("dark", "light"):
                themes.add_user_theme(spec)
                app.register_theme(get_theme(spec.name, color_depth(app)))
    return warnings


def _cli_choice(cli_themes: Iterable[str], cwd: str, known: set[str]) -> str | None:
    """The theme a ``--theme`` value selects: a known name, or the theme defined in a given file."""
    choice: str | None = None
    for raw in cli_themes:
        p = _resolve(raw, cwd)
        if p.is_file():
            spec, _ = themes.load_theme_file(p, base_spec())
            if spec is not None and spec.name in known:
                choice = spec.name
        elif not p.exists() and raw in known:
            choice = raw
    return choice


def setup_themes(
    app: ThemeHost,
    cwd: str,
    settings: SettingsManager,
    cli_themes: Iterable[str] = (),
    *,
    no_themes: bool = False,
    override: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ThemeSetup:
    """Register every theme on ``app`` and pick the one to start with (not applied here)."""
    env = os.environ if env is None else env
    cli = [t for t in cli_themes if t]
    known_names = set(themes.available_themes())
    # A bare name (not a path) is a selection, not something to load.
    cli_paths = [t for t in cli if _resolve(t, cwd).exists() or t not in known_names]
    warnings: list[str] = []
    if no_themes:
        register_all(app)
        warnings += _load_paths_only(app, cwd, cli_paths)
    else:
        extra = [*(settings.settings.themes or []), *cli_paths]
        project = getattr(settings, "project_trusted", True)  # untrusted: .pi/themes stay unloaded
        warnings += [str(w) for w in register_all(app, cwd, extra, project=project)]
    known = set(themes.available_themes())

    name = override or _cli_choice(cli, cwd, known)
    if name is None:
        configured = settings.settings.theme
        name = configured if configured else themes.detect_default_theme(env)
    if name not in known:
        warnings.append(f'Theme "{name}" not found; using {FALLBACK}')
        name = FALLBACK
    return ThemeSetup(name, warnings)


def first_theme(
    app: ThemedApp,
    cli_themes: Iterable[str],
    *,
    override: str | None,
    configured: str | None,
    env: Mapping[str, str] | None = None,
) -> None:
    """The first frame's theme, before settings and theme files are read (see :func:`setup_themes`, which
    runs once the session exists and may switch to a user theme): the override, a ``--theme`` naming a
    built-in, the global ``theme`` setting when it is a built-in, else the terminal's background. Only that
    one built-in theme is built and registered here."""
    env = os.environ if env is None else env
    builtin = set(themes.BUILTIN_THEMES)
    cli = [t for t in cli_themes if t in builtin]
    name = override or (cli[-1] if cli else None) or configured or themes.detect_default_theme(env)
    if name not in builtin:
        name = FALLBACK
    app.register_theme(get_theme(name, color_depth(app)))
    app.theme = name


def theme_file(name: str) -> Path | None:
    """The file a user theme came from (None for built-ins and unknown names)."""
    try:
        spec = themes.get_spec(name)
    except KeyError:
        return None
    return None if spec.builtin else spec.source_path


class ThemeFileWatch:
    """Follows the active theme: watches its file while it is a user theme, reloads it on change."""

    def __init__(self, app: ThemedApp) -> None:
        self.app = app
        self.watcher: themes.ThemeWatcher | None = None
        self.watched_theme: str | None = None

    def follow(self, name: str) -> None:
        if name == self.watched_theme:
            return
        path = theme_file(name)
        self.watched_theme = name
        self.watcher = themes.ThemeWatcher(path) if path is not None else None

    def check(self) -> str | None:
        """Poll once; returns what happened ("reloaded", "deleted") or None."""
        app = self.app
        if self.watched_theme != app.theme:
            self.follow(app.theme)
        watcher = self.watcher
        if watcher is None:
            return None
        spec = watcher.check()
        if watcher.deleted:
            self.watcher = None
            self.watched_theme = FALLBACK
            app.theme = FALLBACK
            return "deleted"
        if spec is None:
            return None
        if spec.name != self.watched_theme:
            # The file now defines another name: register it and switch to it.
            install_theme(app, spec)
            app.theme = spec.name
            self.watched_theme = spec.name
        else:
            install_theme(app, spec)
        return "reloaded"
