"""Loading pi theme JSON: pi's own files, broken files, discovery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import themes
from themes import textual_adapter
from themes.loader import parse_theme
from themes.registry import base_spec, discover_themes

PI_DARK = Path(themes.__file__).parent / "dark.json"


def test_naming_rule():
    assert themes.css_variable_name("accent") == "pi-accent"
    assert themes.css_variable_name("toolPendingBg") == "pi-tool-pending-bg"
    assert themes.css_variable_name("thinkingXhigh") == "pi-thinking-xhigh"
    assert themes.css_variable_name("mdLinkUrl") == "pi-md-link-url"
    names = {themes.css_variable_name(t) for t in themes.TOKENS}
    assert len(names) == 51


def test_xterm_palette():
    assert themes.xterm_to_hex(0) == "#000000"
    assert themes.xterm_to_hex(9) == "#ff0000"
    assert themes.xterm_to_hex(16) == "#000000"
    assert themes.xterm_to_hex(39) == "#00afff"
    assert themes.xterm_to_hex(231) == "#ffffff"
    assert themes.xterm_to_hex(232) == "#080808"
    assert themes.xterm_to_hex(242) == "#6c6c6c"
    assert themes.xterm_to_hex(255) == "#eeeeee"


def test_pi_dark_loads_to_expected_variables():
    theme = textual_adapter.get_theme("dark")
    v = theme.variables
    assert theme.name == "dark" and theme.dark
    assert v["pi-accent"] == "#8abeb7"
    assert v["pi-border"] == "#5f87ff"
    assert v["pi-border-accent"] == "#00d7ff"
    assert v["pi-tool-pending-bg"] == "#282832"
    assert v["pi-tool-success-bg"] == "#283228"
    assert v["pi-tool-error-bg"] == "#3c2828"
    assert v["pi-user-message-bg"] == "#343541"
    assert v["pi-custom-message-bg"] == "#2d2838"
    assert v["pi-md-heading"] == "#f0c674"
    assert v["pi-md-link"] == "#81a2be"
    assert v["pi-tool-diff-added"] == "#b5bd68"
    assert v["pi-syntax-keyword"] == "#569cd6"
    assert v["pi-thinking-off"] == "#505050"
    assert v["pi-thinking-high"] == "#b294bb"
    assert v["pi-thinking-xhigh"] == "#d183e8"
    assert v["pi-bash-mode"] == "#b5bd68"
    # "" (terminal default) becomes the theme's foreground, a colour Textual CSS accepts.
    assert v["pi-text"] == theme.foreground == v["pi-user-message-text"]
    assert all(v[themes.css_variable_name(t)].startswith("#") for t in themes.TOKENS)
    assert theme.primary == "#8abeb7" and theme.background == "#18181e"
    assert themes.export_colors("dark") == {"pageBg": "#18181e", "cardBg": "#1e1e24", "infoBg": "#3c3728"}


def test_pi_light_loads_to_expected_variables():
    theme = textual_adapter.get_theme("light")
    v = theme.variables
    assert not theme.dark
    assert v["pi-accent"] == "#5a8080"
    assert v["pi-md-heading"] == "#9a7326"
    assert v["pi-tool-pending-bg"] == "#e8e8f0"
    assert v["pi-tool-success-bg"] == "#e8f0e8"
    assert v["pi-tool-error-bg"] == "#f0e8e8"
    assert v["pi-user-message-bg"] == "#e8e8e8"
    assert v["pi-syntax-keyword"] == "#0000ff"
    assert v["pi-thinking-xhigh"] == "#8b008b"
    assert v["pi-md-list-bullet"] == "#588458"
    assert themes.export_colors("light")["infoBg"] == "#fffae6"


def test_token_colors_and_rich_colors():
    hexes = themes.token_colors("dark")
    assert set(hexes) == set(themes.TOKENS)
    assert hexes["mdLinkUrl"] == "#666666"
    rich = themes.rich_token_colors("dark")
    assert rich["text"] == "default" and rich["mdHeading"] == "#f0c674"


def _write(tmp_path: Path, name: str, data: object) -> Path:
    p = tmp_path / f"{name}.json"
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def _pi_dark_data() -> dict:
    return json.loads(PI_DARK.read_text())


def test_missing_token_warns_and_falls_back(tmp_path):
    data = _pi_dark_data()
    data["name"] = "mine"
    data["colors"]["mdHeading"] = "#123456"
    del data["colors"]["toolPendingBg"]
    path = _write(tmp_path, "mine", data)
    spec, warnings = themes.load_theme_file(path, base_spec())
    assert spec is not None and spec.name == "mine"
    assert [(w.source, w.token) for w in warnings] == [(str(path), "toolPendingBg")]
    assert "missing colour token" in str(warnings[0]) and str(path) in str(warnings[0])
    assert spec.colors["toolPendingBg"] == "#282832"
    assert spec.colors["mdHeading"] == "#123456"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("#12345", 'invalid hex colour "#12345"'),
        ("#gggggg", "invalid hex colour"),
        (300, "out of range"),
        (True, "invalid colour true"),
        ("orange", 'unknown variable "orange"'),
        ("loopA", "circular variable reference: loopA -> loopB -> loopA"),
    ],
)
def test_bad_colour_values_warn_and_fall_back(tmp_path, value, fragment):
    pi = _pi_dark_data()
    data = {
        "name": "bad",
        "vars": {**pi["vars"], "loopA": "loopB", "loopB": "loopA", "teal": 30},
        "colors": {**pi["colors"], "accent": value, "border": "teal"},
    }
    spec, warnings = themes.load_theme_file(_write(tmp_path, "bad", data), base_spec())
    assert spec is not None
    assert len(warnings) == 1 and warnings[0].token == "accent"
    assert fragment in warnings[0].message and "using the dark theme's value" in warnings[0].message
    assert spec.colors["accent"] == "#8abeb7"
    assert spec.colors["border"] == 30  # var -> 256-colour index
    assert textual_adapter.to_textual_theme(spec).variables["pi-border"] == "#008787"


def test_invalid_json_is_skipped_with_warning(tmp_path):
    path = _write(tmp_path, "broken", '{"name": "broken", "colors": {')
    spec, warnings = themes.load_theme_file(path, base_spec())
    assert spec is None
    assert len(warnings) == 1 and "invalid JSON" in warnings[0].message and warnings[0].source == str(path)


def test_structural_problems_are_repaired(tmp_path):
    spec, warnings = parse_theme({"colors": "nope", "vars": []}, "x.json", base_spec(), fallback_name="x")
    assert spec is not None and spec.name == "x"
    text = " | ".join(str(w) for w in warnings)
    assert '"name" is missing' in text and '"colors"' in text and '"vars"' in text
    assert spec.colors == base_spec().colors  # every token fell back
    spec, warnings = parse_theme([1, 2], "y.json", base_spec())
    assert spec is None and "not a JSON object" in warnings[0].message


def test_unknown_token_and_export_key_warn(tmp_path):
    data = _pi_dark_data()
    data["colors"]["mdHeadnig"] = "#ffffff"
    data["export"]["pageBG"] = "#000000"
    spec, warnings = parse_theme(data, "t.json", base_spec())
    assert spec is not None
    assert {w.token for w in warnings} == {"mdHeadnig", "export.pageBG"}


def test_discovery_order_collisions_and_extra_paths(tmp_path, monkeypatch):
    agent = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    (agent / "themes").mkdir(parents=True)
    project = tmp_path / "proj"
    (project / ".pi" / "themes").mkdir(parents=True)
    extra_dir = tmp_path / "extra"
    extra_dir.mkdir()
    base = _pi_dark_data()
    _write(agent / "themes", "a", {**base, "name": "ocean"})
    _write(project / ".pi" / "themes", "b", {**base, "name": "ocean"})  # collision: global wins
    _write(project / ".pi" / "themes", "c", {**base, "name": "dark"})  # reserved
    _write(project / ".pi" / "themes", "d", "not json")
    single = _write(tmp_path, "single", {**base, "name": "forest"})
    _write(extra_dir, "e", {**base, "name": "desert"})
    found, warnings = discover_themes(project, [single, extra_dir, tmp_path / "missing.json"])
    assert sorted(found) == ["desert", "forest", "ocean"]
    assert found["ocean"].source_path == agent / "themes" / "a.json"
    text = "\n".join(str(w) for w in warnings)
    assert 'name "ocean" collision' in text and 'name "dark" collision; <builtin> wins' in text
    assert "invalid JSON" in text and "does not exist" in text


def test_detect_default_theme():
    assert themes.detect_default_theme({}) == "dark"
    assert themes.detect_default_theme({"COLORFGBG": "15;0"}) == "dark"
    assert themes.detect_default_theme({"COLORFGBG": "0;15"}) == "light"
    assert themes.detect_default_theme({"COLORFGBG": "0;default;15"}) == "light"
    assert themes.detect_default_theme({"COLORFGBG": "0;7"}) == "light"
    assert themes.detect_default_theme({"COLORFGBG": "7;234"}) == "dark"
    assert themes.detect_default_theme({"COLORFGBG": "garbage"}) == "dark"


@pytest.mark.parametrize("name", themes.BUILTIN_THEMES)
def test_shipped_themes_parse_the_same_through_the_schema(name):
    """Built-ins skip the pydantic schema at startup (``shipped=True``); each must pass it all the same."""
    data = json.loads((Path(themes.__file__).parent / f"{name}.json").read_text(encoding="utf-8"))
    base = None if name == "dark" else base_spec()
    fast, fast_warnings = parse_theme(data, name, base, shipped=True)
    checked, warnings = parse_theme(data, name, base)
    assert warnings == fast_warnings == []
    assert checked == fast
