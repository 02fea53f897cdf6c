"""The JSON-schema validator/coercer behind tool-argument validation (AJV wording)."""

from __future__ import annotations

import pytest

from pi_app.agent.validation import ToolArgumentsError, validate_against_schema, validate_tool_arguments


def errors(value, schema):
    return [(path, msg) for path, msg, _ in validate_against_schema(value, schema)[1]]


def coerced(value, schema):
    result, errs = validate_against_schema(value, schema)
    assert errs == []
    return result


@pytest.mark.parametrize(
    ("value", "type_", "expected"),
    [
        ("5", "integer", 5),
        (" 12345678901234567891 ", "integer", 12345678901234567891),
        ("7", "number", 7),
        ("-2.5", "number", -2.5),
        ("1e3", "number", 1000),
        (True, "integer", 1),
        (None, "number", 0),
        ("true", "boolean", True),
        ("false", "boolean", False),
        (0, "boolean", False),
        (7, "string", "7"),
        (False, "string", "false"),
        (None, "string", ""),
        ("", "null", None),
        ("x", "array", ["x"]),
        (5.0, "integer", 5),
    ],
)
def test_coercions(value, type_, expected):
    result = coerced({"v": value}, {"type": "object", "properties": {"v": {"type": type_}}})
    assert result["v"] == expected and type(result["v"]) is type(expected)


@pytest.mark.parametrize(
    ("value", "type_", "message"),
    [
        ("5.5", "integer", "must be integer"),
        ("abc", "number", "must be number"),
        ("", "number", "must be number"),
        ("yes", "boolean", "must be boolean"),
        ({"a": 1}, "string", "must be string"),
        (3.5, "integer", "must be integer"),
        ([1], ["string", "null"], "must be string,null"),
    ],
)
def test_type_errors(value, type_, message):
    assert errors({"v": value}, {"type": "object", "properties": {"v": {"type": type_}}}) == [("/v", message)]


def test_keywords_and_paths():
    schema = {
        "type": "object",
        "required": ["edits"],
        "properties": {
            "mode": {"enum": ["a", "b"]},
            "n": {"type": "number", "minimum": 0, "maximum": 10},
            "name": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"},
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": 2,
                "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}},
                    "required": ["oldText"],
                    "additionalProperties": False,
                },
            },
            "a/b": {"const": 1},
        },
    }
    assert errors({"mode": "c", "n": 11, "name": "ABCD", "edits": [], "a/b": 2}, schema) == [
        ("/mode", "must be equal to one of the allowed values"),
        ("/n", "must be <= 10"),
        ("/name", "must NOT have more than 3 characters"),
        ("/name", 'must match pattern "^[a-z]+$"'),
        ("/edits", "must NOT have fewer than 1 items"),
        ("/a~1b", "must be equal to constant"),
    ]
    assert errors({"edits": [{"x": 1}, {"oldText": "q"}, {"oldText": 1}]}, schema) == [
        ("/edits", "must NOT have more than 2 items"),
        ("/edits/0", "must have required property 'oldText'"),
        ("/edits/0", "must NOT have additional properties"),
    ]
    assert errors({"edits": [{"oldText": "x"}], "n": -1}, schema) == [("/n", "must be >= 0")]


def test_any_of_picks_first_passing_branch_with_coercion():
    schema = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert coerced("12", schema) == 12
    assert errors([1], {"anyOf": [{"type": "integer"}, {"type": "object"}]})[-1] == (
        "",
        "must match a schema in anyOf",
    )


def test_tool_error_message_format_and_no_mutation():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]}
    args = {"a": "x", "nested": {"k": [1, 2]}}
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments("t", schema, args)
    assert str(exc.value) == (
        'Validation failed for tool "t":\n'
        "  - b: must have required property 'b'\n"
        "  - a: must be integer\n\n"
        "Received arguments:\n"
        '{\n  "a": "x",\n  "nested": {\n    "k": [\n      1,\n      2\n    ]\n  }\n}'
    )
    ok = validate_tool_arguments("t", {"type": "object"}, args)
    assert ok == args and ok is not args and ok["nested"] is not args["nested"]


def test_root_additional_properties_path_is_root():
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    with pytest.raises(ToolArgumentsError, match="  - root: must NOT have additional properties"):
        validate_tool_arguments("t", schema, {"x": 1})
