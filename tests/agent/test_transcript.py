"""Replay helpers in pi_app/ai/transcript.py that the tool-set log relies on."""

from __future__ import annotations

from pi_app.ai.transcript import (
    declarations_equal,
    get_current_system_message,
    get_current_tools,
    get_tool_state_changes,
    resolve_transcript,
    supports_mid_convo_system,
    to_tool_declaration,
)
from pi_app.ai.types import Context, SystemMessage, Tool, ToolReference, UserMessage

from .helpers import echo_tool


def test_current_tools_applies_removals_before_additions():
    a, b = Tool(name="a", description="1"), Tool(name="b")
    a2 = Tool(name="a", description="2")
    msgs = [
        SystemMessage(content="base", toolsAdded=[a, b]),
        UserMessage(content="x"),
        SystemMessage(toolsRemoved=[ToolReference(name="a")], toolsAdded=[a2]),  # redefinition in one message
        SystemMessage(toolsRemoved=[ToolReference(name="b")]),
    ]
    tools = get_current_tools(msgs)
    assert list(tools) == ["a"] and tools["a"].description == "2"


def test_state_changes_treat_redefinition_as_remove_plus_add():
    old = {"a": Tool(name="a"), "b": Tool(name="b")}
    changes = get_tool_state_changes(old, [Tool(name="a", description="new"), Tool(name="c")])
    assert sorted(r.name for r in changes.removed) == ["a", "b"]
    assert sorted(t.name for t in changes.added) == ["a", "c"]
    assert get_tool_state_changes(old, list(old.values())).empty


def test_declaration_keeps_only_model_visible_fields():
    tool = echo_tool("read", {"type": "object", "properties": {"p": {"type": "string"}}})
    decl = to_tool_declaration(tool)
    assert decl.name == "read" and decl.parameters["properties"] == {"p": {"type": "string"}}
    assert decl.parameters is not tool.parameters  # a copy: later edits to the tool do not leak in
    assert declarations_equal(decl, to_tool_declaration(tool))


def test_current_system_message_folds_content_and_sections():
    msgs = [
        SystemMessage(content="base", sections={"env": "<env>1</env>", "x": "<x/>"}, timestamp=5),
        SystemMessage(content="more", sections={"env": "<env>2</env>", "x": None}, timestamp=9),
    ]
    folded = get_current_system_message(msgs)
    assert folded.content == "base\n\nmore"
    assert folded.sections == {"env": "<env>2</env>"} and folded.timestamp == 5


def test_resolve_transcript_mid_conversation_handling():
    ctx = Context(
        systemPrompt="legacy",
        messages=[
            SystemMessage(content="lead", toolsAdded=[Tool(name="a")]),
            UserMessage(content="q"),
            SystemMessage(content="update"),
            SystemMessage(content="", toolsAdded=[Tool(name="b")]),
        ],
    )
    folded = resolve_transcript(ctx, supports_mid_convo=False)
    assert folded.system_prompt == "legacy\n\nlead\n\nupdate"
    assert [m.role for m in folded.messages] == ["user"]
    assert [t.name for t in folded.tools] == ["a", "b"]
    inline = resolve_transcript(ctx, supports_mid_convo=True)
    assert inline.system_prompt == "legacy\n\nlead"
    assert [m.role for m in inline.messages] == ["user", "system"]  # the tools-only delta is not sent as text
    assert supports_mid_convo_system("openai-completions") and not supports_mid_convo_system(
        "anthropic-messages"
    )
    assert supports_mid_convo_system("anthropic-messages", {"supportsMidConvoSystemMessages": True})
