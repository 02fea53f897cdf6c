"""Built-in themes, user theme discovery and the name -> theme spec registry (no Textual here)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

from .convert import background_of, is_terminal_palette, rich_color, token_hex
from .loader import ThemeSpec, ThemeWarning, load_theme_file, parse_theme
from .tokens import css_variable_name, mix, xterm_to_hex

BASE_THEME = "dark"
# pi's own two first, then ours; each is <name>.json inside this package.
BUILTIN_THEMES: tuple[str, ...] = (
    "dark",
    "light",
    "high-contrast",
    "solarized-light",
    "nord",
    "gruvbox",
    "tokyo-night",
    "catppuccin-mocha",
    "terminal-dark",
    "terminal-light",
)
# pi reserves these two; a user file with the same name cannot replace them.
RESERVED_NAMES = frozenset({"dark", "light"})

# Themes discovered on disk (by register_all/discover_themes callers via `add_user_themes`).
_user_specs: dict[str, ThemeSpec] = {}


@cache
def _builtin_spec(name: str) -> ThemeSpec:
    text = resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    base = None if name == BASE_THEME else _builtin_spec(BASE_THEME)
    spec, warnings = parse_theme(json.loads(text), f"<builtin {name}>", base, shipped=True)
    if spec is None or warnings or spec.name != name:
        # A shipped theme must be complete and correct: this is a packaging bug, not user input.
        raise RuntimeError(f"built-in theme {name} is broken: {[str(w) for w in warnings]}")
    spec.builtin = True
    return spec


def base_spec() -> ThemeSpec:
    return _builtin_spec(BASE_THEME)


def get_spec(name: str) -> ThemeSpec:
    """The resolved pi theme called `name` (built-in or discovered); KeyError if unknown."""
    if name in RESERVED_NAMES or (name in BUILTIN_THEMES and name not in _user_specs):
        return _builtin_spec(name)
    if name in _user_specs:
        return _user_specs[name]
    raise KeyError(f'Unknown theme "{name}"')


def available_themes() -> list[str]:
    return sorted(set(BUILTIN_THEMES) | set(_user_specs))


def token_colors(name: str) -> dict[str, str]:
    """pi token -> "#rrggbb" for theme `name` (for Rich renderables and the HTML export)."""
    return token_hex(get_spec(name))


def rich_token_colors(name: str) -> dict[str, str]:
    """pi token -> Rich colour string, keeping terminal defaults ("default") and palette indices."""
    return {token: rich_color(value) for token, value in get_spec(name).colors.items()}


def export_colors(name: str) -> dict[str, str]:
    """HTML export colours pageBg/cardBg/infoBg as hex, from the theme's `export` section when present."""
    spec = get_spec(name)
    hexes = token_hex(spec)
    page = "#000000" if is_terminal_palette(spec) else background_of(spec)
    derived = {
        "pageBg": page,
        "cardBg": mix(page, hexes["userMessageBg"], 0.5),
        "infoBg": hexes["selectedBg"],
    }
    out: dict[str, str] = {}
    for key, fallback in derived.items():
        value = spec.export.get(key, "")
        out[key] = fallback if value == "" else xterm_to_hex(value) if isinstance(value, int) else str(value)
    return out


def variable_defaults() -> dict[str, str]:
    """`$pi-*` values from the dark theme, for `App.get_theme_variable_defaults()` so TCSS using
    `$pi-*` variables still parses when a non-pi Textual theme is active."""
    hexes = token_hex(base_spec())
    return {css_variable_name(token): value for token, value in hexes.items()}


# --- discovery ---------------------------------------------------------------------------------------


def _json_files(path: Path) -> list[Path]:
    return sorted(p for p in path.glob("*.json") if p.is_file()) if path.is_dir() else []


def discover_themes(
    cwd: str | Path,
    extra_paths: Iterable[str | Path] = (),
    agent_dir: str | Path | None = None,
    project: bool = True,
) -> tuple[dict[str, ThemeSpec], list[ThemeWarning]]:
    """Load user themes from `<agentDir>/themes/*.json`, `<cwd>/.pi/themes/*.json` and `extra_paths`
    (files or directories: the `themes` setting and `--theme`). The first theme with a name wins;
    later ones are reported as collisions, as are attempts to replace pi's `dark`/`light`. A user theme
    may replace one of our other built-ins (e.g. its own `nord`). `agent_dir` defaults to pi's."""
    if agent_dir is None:
        # deferred: the config package's __init__ loads the settings and model registry modules
        from pi_app.session.config.paths import agent_dir as default_agent_dir

        agent_dir = default_agent_dir()
    files: list[Path] = _json_files(Path(agent_dir) / "themes")
    if project:  # False for a folder that is not trusted (pi_app/session/trust.py)
        files += _json_files(Path(cwd) / ".pi" / "themes")
    warnings: list[ThemeWarning] = []
    for extra in extra_paths:
        p = Path(extra).expanduser()
        if not p.is_absolute():
            p = Path(cwd) / p
        if p.is_dir():
            files.extend(_json_files(p))
        elif p.is_file():
            files.append(p)
        else:
            warnings.append(ThemeWarning(str(p), None, "theme path does not exist; skipped"))

    found: dict[str, ThemeSpec] = {}
    seen_files: set[Path] = set()
    for path in files:
        resolved = path.resolve()
        if resolved in seen_files:
            continue
        seen_files.add(resolved)
        spec, file_warnings = load_theme_file(path, base_spec())
        warnings.extend(file_warnings)
        if spec is None:
            continue
        winner = "<builtin>" if spec.name in RESERVED_NAMES else found.get(spec.name)
        if winner is not None:
            where = winner if isinstance(winner, str) else str(winner.source_path)
            warnings.append(ThemeWarning(str(path), None, f'name "{spec.name}" collision; {where} wins'))
            continue
        found[spec.name] = spec
    return found, warnings


def add_user_theme(spec: ThemeSpec) -> None:
    """Make a discovered (or reloaded) theme available to get_theme/token_colors."""
    if spec.name in RESERVED_NAMES:
        raise ValueError(f'"{spec.name}" is a reserved built-in theme name')
    _user_specs[spec.name] = spec


def clear_user_themes() -> None:
    _user_specs.clear()
