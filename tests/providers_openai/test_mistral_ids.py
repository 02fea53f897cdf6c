from pi_app.ai.providers.openai_completions_request import _mistral_tool_id, _normalize_tool_call_id
from pi_app.ai.transform import transform_messages
from pi_app.ai.types import AssistantMessage, Model, ToolCall, ToolResultMessage


def test_mistral_ids_are_nine_alphanumerics_and_results_follow():
    model = Model(
        id="devstral", api="openai-completions", provider="mistral", compat={"requiresMistralToolIds": True}
    )
    foreign = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        content=[ToolCall(id="toolu_01ABC-def", name="read", arguments={})],
        stopReason="toolUse",
    )
    result = ToolResultMessage(toolCallId="toolu_01ABC-def", toolName="read")
    out = transform_messages([foreign, result], model, _normalize_tool_call_id(model))
    new_id = out[0].content[0].id
    assert len(new_id) == 9 and new_id.isalnum()
    assert out[1].toolCallId == new_id
    assert _mistral_tool_id("abcDEF123") == "abcDEF123"
    assert _mistral_tool_id("call_x") == _mistral_tool_id("call_x")
