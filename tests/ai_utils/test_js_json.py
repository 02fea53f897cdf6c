"""js_json writes what JavaScript's JSON.stringify writes (tool-call arguments in requests, signatures).

The expected strings are JSON.stringify's output (checked with node) for the same values.
"""

from __future__ import annotations

import json

from pi_app.ai.json_parse import js_json


def test_matches_json_stringify() -> None:
    value = {"a": 'é\u2028\x1f\x7f/"\\', "z": 1e-7, "f": float("nan"), "i": float("inf"), "k": [True, None]}
    value["n"] = -0.5
    assert (
        js_json(value)
        == '{"a":"é\u2028\\u001f\x7f/\\"\\\\","z":1e-7,"f":null,"i":null,"k":[true,null],"n":-0.5}'
    )
    assert js_json({"path": "src/m.py", "offset": 10, "nested": {"b": 1, "a": [1, "x"]}}) == (
        '{"path":"src/m.py","offset":10,"nested":{"b":1,"a":[1,"x"]}}'
    )
    assert js_json({}) == "{}"


def test_a_lone_surrogate_is_still_written() -> None:
    # pydantic-core refuses it; the stdlib writes it escaped-free, as it was (sanitized later if sent)
    text = js_json({"s": "a\ud800b"})
    assert json.loads(text) == {"s": "a\ud800b"}
