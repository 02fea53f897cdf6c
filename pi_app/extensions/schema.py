"""Validating extension tool arguments against arbitrary JSON Schema, with AJV's wording.

Extension schemas come from pydantic (``$defs``/``$ref``, ``anyOf`` with null, ``format``) or are written
by hand. Local ``$ref``s are inlined first, then the built-in validator coerces as AJV's ``coerceTypes``
does (``"5"`` → 5) and reports AJV-style errors. Keywords it does not know (``format``, ``dependentRequired``
…) are checked by the ``jsonschema`` library (imported only for such schemas), its errors reworded as AJV
would say them, because the model is used to pi's text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi_app.agent.validation import ToolArgumentsError, validate_against_schema

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# keywords the built-in validator implements (plus annotations that never fail)
_KNOWN = frozenset(
    {
        "type", "required", "properties", "additionalProperties", "items", "enum", "const", "minItems",
        "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "anyOf", "oneOf", "allOf", "title", "description", "default", "examples",
        "$schema", "$id", "$comment", "deprecated", "readOnly", "writeOnly",
    }
)  # fmt: skip


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every local ``#/$defs/…`` (or ``#/definitions/…``) reference replaced by its target.
    A recursive reference is left as ``{}`` (accept anything) below its first expansion."""
    defs: dict[str, Any] = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def walk(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            name = ref.rsplit("/", 1)[-1]
            if name in seen or name not in defs:
                return {}
            target = walk(defs[name], seen | {name})
            rest = {k: walk(v, seen) for k, v in node.items() if k != "$ref"}
            return {**target, **rest}
        return {k: walk(v, seen) for k, v in node.items() if k not in ("$defs", "definitions")}

    return walk(schema, frozenset()) if defs or "$ref" in json.dumps(schema) else schema


def needs_full_validator(schema: Any) -> bool:
    """Does the schema use a keyword the built-in validator does not check?"""
    if isinstance(schema, list):
        return any(needs_full_validator(s) for s in schema)
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            if any(needs_full_validator(v) for v in value.values()):
                return True
        elif key not in _KNOWN:
            return True
        elif isinstance(value, dict | list) and needs_full_validator(value):
            return True
    return False


def _ajv_message(error: ValidationError) -> tuple[str, str]:
    """(where, message) of one jsonschema error in AJV's words."""
    path = "/".join(str(p) for p in error.absolute_path)
    kind = error.validator
    expected: Any = error.validator_value
    if kind == "required" and isinstance(error.instance, dict):
        missing = next((p for p in expected if p not in error.instance), "")
        return path or missing or "root", f"must have required property '{missing}'"
    messages = {
        "type": f"must be {expected if isinstance(expected, str) else ','.join(expected)}",
        "format": f'must match format "{expected}"',
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "minimum": f"must be >= {expected}",
        "maximum": f"must be <= {expected}",
        "exclusiveMinimum": f"must be > {expected}",
        "exclusiveMaximum": f"must be < {expected}",
        "minLength": f"must NOT have fewer than {expected} characters",
        "maxLength": f"must NOT have more than {expected} characters",
        "minItems": f"must NOT have fewer than {expected} items",
        "maxItems": f"must NOT have more than {expected} items",
        "pattern": f'must match pattern "{expected}"',
        "additionalProperties": "must NOT have additional properties",
        "anyOf": "must match a schema in anyOf",
        "oneOf": "must match exactly one schema in oneOf",
        "uniqueItems": "must NOT have duplicate items",
        "multipleOf": f"must be multiple of {expected}",
    }
    return path or "root", messages.get(str(kind), error.message)


def validate_extension_arguments(tool_name: str, schema: dict[str, Any], arguments: Any) -> Any:
    """Coerced arguments, or ToolArgumentsError in pi's format (``Validation failed for tool "x": …``)."""
    coerced, errors = validate_against_schema(arguments, schema)
    lines = [f"  - {p[1:] if p else (missing or 'root')}: {m}" for p, m, missing in errors]
    if not lines and needs_full_validator(schema):
        from jsonschema import Draft202012Validator, FormatChecker

        validator = Draft202012Validator(schema, format_checker=FormatChecker())
        for error in sorted(validator.iter_errors(coerced), key=lambda e: list(map(str, e.absolute_path))):
            where, message = _ajv_message(error)
            lines.append(f"  - {where}: {message}")
    if lines:
        received = json.dumps(arguments, indent=2, ensure_ascii=False)
        raise ToolArgumentsError(
            f'Validation failed for tool "{tool_name}":\n'
            + "\n".join(lines)
            + f"\n\nReceived arguments:\n{received}"
        )
    return coerced
