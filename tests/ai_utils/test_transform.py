"""transform_messages (spec §2.9): what a transcript looks like when replayed to a given model."""

from __future__ import annotations

from pi_app.ai.transform import transform_messages
from pi_app.ai.types import (
    AssistantMessage,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TARGET = Model(id="claude", api="anthropic-messages", provider="anthropic")


def _asst(*content, model: Model = TARGET, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(content), api=model.api, provider=model.provider, model=model.id, stopReason=stop
    )


OTHER = Model(id="gpt-5", api="openai-responses", provider="openai")


def test_cross_model_thinking_becomes_text_and_redacted_or_empty_is_dropped():
    msg = _asst(
        ThinkingContent(thinking="reasoned", thinkingSignature="sig"),
        ThinkingContent(thinking="", thinkingSignature="opaque", redacted=True),
        ThinkingContent(thinking="   "),
        TextContent(text="answer", textSignature='{"v":1,"id":"msg_1"}'),
        model=OTHER,
    )
    (out,) = transform_messages([msg], TARGET)
    assert [(b.type, getattr(b, "text", None)) for b in out.content] == [
        ("text", "reasoned"),
        ("text", "answer"),
    ]
    assert out.content[1].textSignature is None  # another API's signature means nothing here


def test_same_model_keeps_signed_empty_thinking_and_redacted():
    msg = _asst(
        ThinkingContent(thinking="", thinkingSignature="encrypted"),
        ThinkingContent(thinking="", thinkingSignature="opaque", redacted=True),
        ThinkingContent(thinking=""),  # unsigned and empty: nothing to replay
        TextContent(text="hi"),
    )
    (out,) = transform_messages([msg], TARGET)
    assert [b.type for b in out.content] == ["thinking", "thinking", "text"]
    assert out.content[0].thinkingSignature == "encrypted" and out.content[1].redacted


def test_thought_signature_stripped_only_across_models():
    call = ToolCall(id="c1", name="t", arguments={}, thoughtSignature="gsig")
    result = ToolResultMessage(toolCallId="c1", toolName="t")
    (cross, _) = transform_messages([_asst(call, model=OTHER, stop="toolUse"), result], TARGET)
    assert cross.content[0].thoughtSignature is None
    (same, _) = transform_messages([_asst(call, stop="toolUse"), result], TARGET)
    assert same.content[0].thoughtSignature == "gsig"


def test_id_normalisation_remaps_results():
    calls = _asst(ToolCall(id="call|Weird+Id", name="t"), model=OTHER, stop="toolUse")
    result = ToolResultMessage(toolCallId="call|Weird+Id", toolName="t", content=[TextContent(text="r")])
    out = transform_messages([calls, result], TARGET, lambda i, m, msg: i.replace("|", "_").replace("+", "_"))
    assert out[0].content[0].id == "call_Weird_Id"
    assert out[1].toolCallId == "call_Weird_Id" and out[1].content[0].text == "r"
    # same-model ids are left alone even with a normaliser
    same = transform_messages(
        [_asst(ToolCall(id="a|b", name="t"), stop="toolUse")], TARGET, lambda i, m, msg: "X"
    )
    assert same[0].content[0].id == "a|b"


def test_error_and_aborted_turns_are_skipped():
    msgs = [
        UserMessage(content="q"),
        _asst(TextContent(text="half"), stop="error"),
        _asst(TextContent(text="cut"), stop="aborted"),
        _asst(TextContent(text="fine")),
    ]
    out = transform_messages(msgs, TARGET)
    assert [m.role for m in out] == ["user", "assistant"]
    assert out[1].content[0].text == "fine"


def test_orphaned_tool_calls_get_no_result_provided():
    msgs = [
        _asst(ToolCall(id="a", name="read"), ToolCall(id="b", name="bash"), stop="toolUse"),
        ToolResultMessage(toolCallId="a", toolName="read", content=[TextContent(text="ok")]),
        UserMessage(content="interrupt"),
        _asst(ToolCall(id="c", name="ls"), stop="toolUse"),
        _asst(TextContent(text="next")),
    ]
    out = transform_messages(msgs, TARGET)
    assert [m.role for m in out] == [
        "assistant",
        "toolResult",
        "toolResult",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    synthetic = [out[2], out[5]]
    for res, (cid, name) in zip(synthetic, [("b", "bash"), ("c", "ls")], strict=True):
        assert (res.toolCallId, res.toolName, res.isError) == (cid, name, True)
        assert res.content[0].text == "No result provided"
    assert out[1].isError is False


def test_tool_calls_of_a_skipped_error_turn_need_no_result_and_system_messages_pass():
    msgs = [
        UserMessage(content="q"),
        _asst(ToolCall(id="x", name="t"), stop="error"),
        SystemMessage(content="note"),
        UserMessage(content="again"),
    ]
    out = transform_messages(msgs, TARGET)
    assert [m.role for m in out] == ["user", "system", "user"]
