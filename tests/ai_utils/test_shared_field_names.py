"""Typed messages share their pydantic field-name sets and empty extras (issue 15: about half of a resumed
message's memory), and sharing is invisible: setting, copying, dumping and comparing behave as with
private ones."""

from __future__ import annotations

import copy
import gc
import pickle

from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, Usage, UserMessage
from pi_app.session.store.context import _line_adapter

LINE = (
    b'{"type":"message","id":"a1","parentId":null,"timestamp":"2025-11-10T09:15:02.114Z","message":'
    b'{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read",'
    b'"arguments":{"path":"a"}}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1,'
    b'"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.1,"output":0.2,'
    b'"cacheRead":0,"cacheWrite":0,"total":0.3}},"stopReason":"toolUse","timestamp":1762766102114}}'
)


def _resumed() -> AssistantMessage:
    msg = _line_adapter().validate_json(LINE).message
    assert isinstance(msg, AssistantMessage)
    return msg


def test_equal_name_sets_are_one_object_across_resumed_messages() -> None:
    a, b = _resumed(), _resumed()
    assert a is not b and a == b
    pairs = [(a, b), (a.usage, b.usage), (a.usage.cost, b.usage.cost), (a.content[1], b.content[1])]
    for x, y in pairs:
        assert x.model_fields_set is y.model_fields_set
        assert x.model_extra is y.model_extra and x.model_extra == {}
    assert a.usage.model_fields_set == {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}


def test_setting_an_attribute_changes_only_that_model() -> None:
    a, b = _resumed(), _resumed()
    a.errorMessage = "boom"  # a field not given: recorded in a's set only
    a.usage.cost.total = 9.0
    a.custom = 1  # an unknown field (extra="allow")
    assert "errorMessage" in a.model_fields_set and "errorMessage" not in b.model_fields_set
    assert "custom" in a.model_fields_set and "custom" not in b.model_fields_set
    assert b.usage.cost.total == 0.3 and b.errorMessage is None and b.model_extra == {}
    assert a.model_extra == {"custom": 1} and _resumed().model_extra == {}
    assert a.model_dump(exclude_unset=True)["errorMessage"] == "boom"
    assert "errorMessage" not in b.model_dump(exclude_unset=True)
    assert _resumed() == b  # a fresh one still equals the untouched one


def test_copies_dumps_and_pickles_are_unchanged() -> None:
    a = _resumed()
    c = a.model_copy(update={"stopReason": "stop"})
    assert c.stopReason == "stop" and a.stopReason == "toolUse" and "stopReason" in a.model_fields_set
    c2 = a.model_copy(update={"zz": 1})
    assert "zz" in c2.model_fields_set and "zz" not in a.model_fields_set
    d = copy.deepcopy(a)
    d.content[0].text = "changed"
    assert a.content[0].text == "hi"
    assert pickle.loads(pickle.dumps(a)) == a
    assert a.model_dump(exclude_none=True)["usage"]["cost"]["total"] == 0.3


def test_models_built_in_code_behave_as_before() -> None:
    u = UserMessage(content="x")
    u2 = UserMessage(content="y")
    u.content = [TextContent(text="z")]
    assert u2.content == "y" and u.model_fields_set == {"content"}
    call = ToolCall(id="1", name="n")
    call.arguments = {"a": 1}
    assert ToolCall(id="2", name="n").model_fields_set == {"id", "name"}
    usage = Usage()
    usage.input = 5
    assert Usage().model_fields_set == set() and usage.model_fields_set == {"input"}


def test_short_lived_models_keep_their_own_sets_and_sharing_resumes_after() -> None:
    from pi_app.ai.types import short_lived_models

    kept = _resumed()
    with short_lived_models():
        with short_lived_models():  # nested: sharing resumes only when the outer one ends
            pass
        a, b = _resumed(), _resumed()
        assert a == b == kept
        assert a.model_fields_set == b.model_fields_set and a.model_fields_set is not b.model_fields_set
        a.errorMessage = "boom"
        assert "errorMessage" in a.model_fields_set and "errorMessage" not in b.model_fields_set
    after = _resumed()
    assert after.model_fields_set is kept.model_fields_set
    assert after.usage.model_extra is kept.usage.model_extra


def test_short_lived_models_pause_the_cyclic_gc_and_restore_it() -> None:
    """Typed-and-dropped messages hold no cycles: GC passes over them are wasted while a body is built."""
    from pi_app.ai.types import short_lived_models

    was = gc.isenabled()
    gc.enable()
    try:
        with short_lived_models():
            assert not gc.isenabled()
            with short_lived_models():
                pass
            assert not gc.isenabled()  # the outer block still runs
        assert gc.isenabled()
        gc.disable()  # off already (a bulk load): left off
        with short_lived_models():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_short_lived_models_from_threads_at_once_leave_sharing_on() -> None:
    import threading

    from pi_app.ai.types import WireModel, short_lived_models

    start = threading.Barrier(4)
    gc_was = gc.isenabled()

    def encode_many() -> None:
        start.wait()
        for _ in range(300):
            with short_lived_models():
                _resumed()

    threads = [threading.Thread(target=encode_many) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "__pydantic_fields_set__" in WireModel.__dict__
    assert gc.isenabled() == gc_was  # the collector is as it was
    assert _resumed().model_fields_set is _resumed().model_fields_set
