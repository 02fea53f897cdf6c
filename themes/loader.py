"""Reading pi theme JSON (`{"$schema"?, "name", "vars"?, "colors", "export"?}`) into a `ThemeSpec`.

Nothing here raises on bad user input: every problem becomes a `ThemeWarning` naming the file and the
token, and the token falls back to the base theme's value (pi's `dark`). Only unreadable files (not
JSON, not an object) are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .tokens import EXPORT_KEYS, TOKENS, is_hex

ColorValue = str | int
"""A resolved colour: "#rrggbb" (lower case), an xterm index 0-255, or "" (terminal default)."""


@dataclass(frozen=True)
class ThemeWarning:
    """A problem in a theme file: the file, the colour token concerned (if any), and what was done about it."""

    source: str
    token: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source}: {self.token}" if self.token else self.source
        return f"Theme {where}: {self.message}"


@dataclass
class ThemeSpec:
    """A fully resolved pi theme: every one of the 51 tokens has a value, no var references remain."""

    name: str
    colors: dict[str, ColorValue]
    export: dict[str, ColorValue] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    source_path: Path | None = None
    builtin: bool = False


@dataclass
class _Shape:
    """The fields of a theme file once its shape is known to be right (see ``themes.schema``)."""

    name: str
    vars: dict[str, Any]
    colors: dict[str, Any]
    export: dict[str, Any] | None


class _ColorError(ValueError):
    pass


def _check_literal(value: Any) -> ColorValue | None:
    """A literal colour, None for a var reference; raises _ColorError when the value is unusable."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _ColorError(f'invalid colour {json.dumps(value)} (expected "#rrggbb", 0-255, a var name or "")')
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise _ColorError(f"256-colour index {value} out of range 0-255")
        return value
    if value == "":
        return ""
    if value.startswith("#"):
        if not is_hex(value):
            raise _ColorError(f'invalid hex colour "{value}" (expected "#rrggbb")')
        return value.lower()
    return None


def resolve_color(value: Any, variables: dict[str, Any]) -> ColorValue:
    """Follow var references (chains allowed) to a literal colour; raises _ColorError."""
    seen: list[str] = []
    while True:
        literal = _check_literal(value)
        if literal is not None:
            return literal
        if value in seen:
            raise _ColorError(f"circular variable reference: {' -> '.join([*seen, value])}")
        if value not in variables:
            raise _ColorError(f'unknown variable "{value}"')
        seen.append(value)
        value = variables[value]


def parse_theme(
    data: Any,
    source: str,
    base: ThemeSpec | None,
    fallback_name: str | None = None,
    *,
    shipped: bool = False,
) -> tuple[ThemeSpec | None, list[ThemeWarning]]:
    """Build a ThemeSpec from decoded JSON. `base` supplies values for missing or broken tokens; with
    base=None (loading pi's dark itself) nothing may be missing. ``shipped``: one of this package's own
    files, whose shape the tests check, so pydantic (~0.1 s to import) is not needed for the first frame;
    its colours are still checked one by one below."""
    warnings: list[ThemeWarning] = []
    if not isinstance(data, dict):
        return None, [ThemeWarning(source, None, "not a JSON object; skipped")]
    data = dict(data)
    if shipped:
        model = _Shape(data["name"], data.get("vars", {}), data.get("colors", {}), data.get("export"))
    else:
        validated = _validated(data, source, fallback_name, warnings)
        if validated is None:
            return None, warnings
        model = validated

    def fallback(token: str, why: str) -> ColorValue:
        if base is None:
            raise ValueError(f"{source}: {token}: {why}")
        warnings.append(ThemeWarning(source, token, f"{why}; using the {base.name} theme's value"))
        return base.colors[token]

    colors: dict[str, ColorValue] = {}
    for token in TOKENS:
        if token not in model.colors:
            colors[token] = fallback(token, "missing colour token")
            continue
        try:
            colors[token] = resolve_color(model.colors[token], model.vars)
        except _ColorError as exc:
            colors[token] = fallback(token, str(exc))
    for unknown in sorted(set(model.colors) - set(TOKENS)):
        warnings.append(ThemeWarning(source, unknown, "unknown colour token; ignored"))

    export: dict[str, ColorValue] = {}
    for key, value in (model.export or {}).items():
        if key not in EXPORT_KEYS:
            warnings.append(ThemeWarning(source, f"export.{key}", "unknown export key; ignored"))
            continue
        try:
            export[key] = resolve_color(value, model.vars)
        except _ColorError as exc:
            warnings.append(ThemeWarning(source, f"export.{key}", f"{exc}; derived instead"))
    spec = ThemeSpec(name=model.name, colors=colors, export=export, vars=dict(model.vars))
    return spec, warnings


def _validated(
    data: dict[str, Any], source: str, fallback_name: str | None, warnings: list[ThemeWarning]
) -> _Shape | None:
    """The file's fields through its schema; broken fields are dropped (with a warning) rather than losing
    the theme. None when it has no usable name."""
    from pydantic import ValidationError

    from .schema import ThemeFile

    try:
        model = ThemeFile.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            key = str(err["loc"][0]) if err["loc"] else "?"
            if key == "name" and fallback_name:
                warnings.append(
                    ThemeWarning(source, None, f'"name" is missing or invalid; using "{fallback_name}"')
                )
                data["name"] = fallback_name
            elif key == "name":
                warnings[:] = [ThemeWarning(source, None, '"name" is missing or invalid; skipped')]
                return None
            else:
                warnings.append(ThemeWarning(source, None, f'"{key}" {err["msg"].lower()}; ignored'))
                data.pop(key, None)
        model = ThemeFile.model_validate(data)
    return _Shape(model.name, model.vars, model.colors, model.export)


def load_theme_file(path: Path, base: ThemeSpec | None) -> tuple[ThemeSpec | None, list[ThemeWarning]]:
    """Read and parse one theme file; unreadable or invalid JSON gives a warning and None."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [ThemeWarning(source, None, f"cannot read file ({exc}); skipped")]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [ThemeWarning(source, None, f"invalid JSON ({exc}); skipped")]
    except RecursionError:
        return None, [ThemeWarning(source, None, "invalid JSON (nested too deeply); skipped")]
    spec, warnings = parse_theme(data, source, base, fallback_name=path.stem)
    if spec is not None:
        spec.source_path = path
    return spec, warnings
