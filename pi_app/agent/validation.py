"""Tool-argument validation with AJV-style coercion (pi validates with AJV ``coerceTypes``/``allErrors``).

A small JSON-schema subset: type (incl. lists), required, properties, additionalProperties, items,
enum, const, min/maxItems, min/maxLength, pattern, minimum/maximum (+exclusive), anyOf/oneOf/allOf.
Error messages and paths follow AJV's wording so the model sees the same text pi would produce.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_INT_RE = re.compile(r"^\s*[-+]?\d+\s*$")
_NUMBER_RE = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


class ToolArgumentsError(ValueError):
    """Arguments did not match the tool's schema; the message is what the model sees."""


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def _matches(value: Any, t: str) -> bool:
    actual = _json_type(value)
    if t == "number":
        return actual in ("number", "integer")
    return actual == t


_MISSING = object()


def _coerce(value: Any, t: str) -> Any:
    """AJV's coerceTypes conversion of ``value`` to type ``t``; _MISSING when impossible."""
    actual = _json_type(value)
    if t in ("number", "integer"):
        if actual == "string" and value and _NUMBER_RE.match(value):
            if _INT_RE.match(value):
                return int(value)  # exact, even beyond float precision
            num = float(value)
            if t == "integer" and not num.is_integer():
                return _MISSING
            return int(num) if num.is_integer() else num
        if actual == "boolean":
            return 1 if value else 0
        if actual == "null":
            return 0
    elif t == "string":
        if actual == "boolean":
            return "true" if value else "false"
        if actual in ("number", "integer"):
            return json.dumps(value) if not isinstance(value, float) else _js_number(value)
        if actual == "null":
            return ""
    elif t == "boolean":
        if value in ("true", 1) and actual != "boolean":
            return True
        if (value in ("false", 0) and actual != "boolean") or actual == "null":
            return False
    elif t == "null":
        if value == "" or (actual in ("integer", "number") and value == 0) or value is False:
            return None
    elif t == "array":
        # pi's brief asks for AJV's "array" coercion too: a lone value becomes a one-element list.
        return [value]
    return _MISSING


def _js_number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _pointer(path: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


class _Validator:
    def __init__(self) -> None:
        self.errors: list[tuple[str, str, str | None]] = []  # (instancePath, message, missingProperty)

    def fail(self, path: list[str | int], message: str, missing: str | None = None) -> None:
        self.errors.append((_pointer(path), message, missing))

    def validate(self, value: Any, schema: Any, path: list[str | int]) -> Any:
        """Return the (possibly coerced) value; record errors."""
        if schema is True or not isinstance(schema, dict):
            return value
        if schema is False:
            self.fail(path, "boolean schema is false")
            return value
        types = schema.get("type")
        if types is not None:
            type_list = [types] if isinstance(types, str) else list(types)
            if not any(_matches(value, t) for t in type_list):
                for t in type_list:
                    coerced = _coerce(value, t)
                    if coerced is not _MISSING:
                        value = coerced
                        break
                else:
                    self.fail(path, f"must be {','.join(type_list)}")
                    self._untyped(value, schema, path)
                    return value
            if isinstance(value, float) and value.is_integer() and "integer" in type_list:
                value = int(value)
        value = self._untyped(value, schema, path)
        kind = _json_type(value)
        if kind in ("integer", "number"):
            self._number(value, schema, path)
        elif kind == "string":
            self._string(value, schema, path)
        elif kind == "array":
            value = self._array(value, schema, path)
        elif kind == "object":
            value = self._object(value, schema, path)
        return value

    def _untyped(self, value: Any, schema: dict[str, Any], path: list[str | int]) -> Any:
        if "const" in schema and not _equal(value, schema["const"]):
            self.fail(path, "must be equal to constant")
        if "enum" in schema and not any(_equal(value, e) for e in schema["enum"]):
            self.fail(path, "must be equal to one of the allowed values")
        if "anyOf" in schema:
            value = self._alternatives(value, schema["anyOf"], path, exactly_one=False)
        if "oneOf" in schema:
            value = self._alternatives(value, schema["oneOf"], path, exactly_one=True)
        for sub in schema.get("allOf", ()):
            value = self.validate(value, sub, path)
        return value

    def _alternatives(self, value: Any, options: list[Any], path: list[str | int], exactly_one: bool) -> Any:
        passing: list[Any] = []
        branch_errors: list[tuple[str, str, str | None]] = []
        for sub in options:
            trial = _Validator()
            result = trial.validate(clone_json(value), sub, path)
            if trial.errors:
                branch_errors.extend(trial.errors)
            else:
                passing.append(result)
                if not exactly_one:
                    break
        if exactly_one and len(passing) != 1:
            if not passing:
                self.errors.extend(branch_errors)
            self.fail(path, "must match exactly one schema in oneOf")
            return value
        if not passing:
            self.errors.extend(branch_errors)
            self.fail(path, "must match a schema in anyOf")
            return value
        return passing[0]

    def _number(self, value: float, schema: dict[str, Any], path: list[str | int]) -> None:
        checks: tuple[tuple[str, Callable[[float], bool], str], ...] = (
            ("maximum", lambda lim: value <= lim, "<="),
            ("minimum", lambda lim: value >= lim, ">="),
            ("exclusiveMaximum", lambda lim: value < lim, "<"),
            ("exclusiveMinimum", lambda lim: value > lim, ">"),
        )
        for key, ok, op in checks:
            lim = schema.get(key)
            if isinstance(lim, (int, float)) and not isinstance(lim, bool) and not ok(lim):
                self.fail(path, f"must be {op} {_fmt(lim)}")
        mult = schema.get("multipleOf")
        if isinstance(mult, (int, float)) and mult and (value / mult) % 1:
            self.fail(path, f"must be multiple of {_fmt(mult)}")

    def _string(self, value: str, schema: dict[str, Any], path: list[str | int]) -> None:
        # AJV counts unicode code points, as len() does.
        if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
            self.fail(path, f"must NOT have more than {schema['maxLength']} characters")
        if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
            self.fail(path, f"must NOT have fewer than {schema['minLength']} characters")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            try:
                if not re.search(pattern, value):
                    self.fail(path, f'must match pattern "{pattern}"')
            except re.error:
                pass

    def _array(self, value: list[Any], schema: dict[str, Any], path: list[str | int]) -> list[Any]:
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            self.fail(path, f"must NOT have more than {schema['maxItems']} items")
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            self.fail(path, f"must NOT have fewer than {schema['minItems']} items")
        items = schema.get("items")
        if isinstance(items, dict):
            value = [self.validate(v, items, [*path, i]) for i, v in enumerate(value)]
        elif isinstance(items, list):  # tuple form
            value = [
                self.validate(v, items[i], [*path, i]) if i < len(items) else v for i, v in enumerate(value)
            ]
        return value

    def _object(self, value: dict[str, Any], schema: dict[str, Any], path: list[str | int]) -> dict[str, Any]:
        for name in schema.get("required", ()):
            if name not in value:
                self.fail(path, f"must have required property '{name}'", missing=name)
        props: dict[str, Any] = schema.get("properties") or {}
        additional = schema.get("additionalProperties", True)
        patterns: dict[str, Any] = schema.get("patternProperties") or {}
        out = dict(value)
        for key in value:
            if key in props or any(re.search(p, key) for p in patterns):
                continue
            if additional is False:
                self.fail(path, "must NOT have additional properties")
            elif isinstance(additional, dict):
                out[key] = self.validate(value[key], additional, [*path, key])
        for key, sub in props.items():
            if key in out:
                out[key] = self.validate(out[key], sub, [*path, key])
        return out


def _fmt(n: float) -> str:
    return _js_number(float(n)) if isinstance(n, float) else str(n)


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: booleans are not numbers.
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def clone_json(value: Any) -> Any:
    """Deep copy of JSON-shaped data (much cheaper than copy.deepcopy)."""
    if isinstance(value, dict):
        return {k: clone_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone_json(v) for v in value]
    return value


def validate_against_schema(
    value: Any, schema: dict[str, Any]
) -> tuple[Any, list[tuple[str, str, str | None]]]:
    """(coerced copy of value, errors). Errors are (instancePath, message, missingProperty)."""
    v = _Validator()
    result = v.validate(clone_json(value), schema, [])
    return result, v.errors


def validate_tool_arguments(tool_name: str, schema: dict[str, Any] | None, arguments: Any) -> Any:
    """Coerced arguments, or raise ToolArgumentsError with pi's message format."""
    if not schema:
        return clone_json(arguments)
    result, errors = validate_against_schema(arguments, schema)
    if not errors:
        return result
    lines = []
    for pointer, message, missing in errors:
        where = pointer[1:] if pointer else (missing or "root")
        lines.append(f"  - {where}: {message}")
    received = json.dumps(arguments, indent=2, ensure_ascii=False)
    raise ToolArgumentsError(
        f'Validation failed for tool "{tool_name}":\n'
        + "\n".join(lines)
        + f"\n\nReceived arguments:\n{received}"
    )
