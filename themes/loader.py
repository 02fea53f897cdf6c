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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .tokens import EXPORT_KEYS, TOKENS, is_hex

ColorValue = str | int
"""A resolved colour: "#rrggbb" (lower case), an xterm index 0-255, or "" (terminal default)."""


@dataclass(frozen=True)
class ThemeWarning:
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


class ThemeFile(BaseModel):
    """The JSON shape of a pi theme file. Colour values are checked one by one afterwards, so a single
    bad value costs only that token, not the file."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: str | None = Field(default=None, alias="$schema")
    name: str
    vars: dict[str, Any] = Field(default_factory=dict)
    colors: dict[str, Any] = Field(default_factory=dict)
    export: dict[str, Any] | None = None


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
    data: Any, source: str, base: ThemeSpec | None, fallback_name: str | None = None
) -> tuple[ThemeSpec | None, list[ThemeWarning]]:
    """Build a ThemeSpec from decoded JSON. `base` supplies values for missing or broken tokens; with
    base=None (loading pi's dark itself) nothing may be missing."""
    warnings: list[ThemeWarning] = []
    if not isinstance(data, dict):
        return None, [ThemeWarning(source, None, "not a JSON object; skipped")]
    data = dict(data)
    try:
        model = ThemeFile.model_validate(data)
    except ValidationError as exc:
        # Repair field by field (drop what is broken) rather than losing the theme.
        for err in exc.errors():
            key = str(err["loc"][0]) if err["loc"] else "?"
            if key == "name" and fallback_name:
                warnings.append(
                    ThemeWarning(source, None, f'"name" is missing or invalid; using "{fallback_name}"')
                )
                data["name"] = fallback_name
            elif key == "name":
                return None, [ThemeWarning(source, None, '"name" is missing or invalid; skipped')]
            else:
                warnings.append(ThemeWarning(source, None, f'"{key}" {err["msg"].lower()}; ignored'))
                data.pop(key, None)
        model = ThemeFile.model_validate(data)

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
