"""openai-completions request bodies (as recorded by the loopback server) and compat resolution."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.openai_completions_request import (
    build_completions_params,
    resolve_completions_compat,
)
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.loopback.openai_wire import chat_text_stream
from tests.providers_openai.helpers import make_model, run


def _model(provider: str = "custom", base_url: str = "http://x/v1", **kw) -> Model:
    return Model(id=kw.pop("id", "m"), api="openai-completions", provider=provider, baseUrl=base_url, **kw)


def _tool_turn(model: Model) -> list:
    return [
        UserMessage(content="list files"),
        AssistantMessage(
            content=[ToolCall(id="call_1", name="bash", arguments={"command": "ls"})],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stopReason="toolUse",
        ),
        ToolResultMessage(toolCallId="call_1", toolName="bash", content=[TextContent(text="a.txt")]),
        UserMessage(content="thanks"),
    ]


# ---------------------------------------------------------------- compat resolution (pure)


def test_compat_defaults_for_plain_openai_compatible_server():
    c = resolve_completions_compat(_model(base_url="http://localhost:11434/v1"))
    assert c["supportsStore"] and c["supportsDeveloperRole"] and c["supportsReasoningEffort"]
    assert c["maxTokensField"] == "max_completion_tokens"
    assert c["thinkingFormat"] == "openai"
    assert c["supportsUsageInStreaming"] and c["supportsStrictMode"]
    assert not c["requiresToolResultName"] and not c["requiresAssistantAfterToolResult"]
    assert not c["requiresThinkingAsText"]
    assert c["reasoningEffortMap"] == {} and c["openRouterRouting"] == {}


@pytest.mark.parametrize(
    "provider,url",
    [
        ("cerebras", "http://x"),
        ("custom", "https://api.cerebras.ai/v1"),
        ("xai", "http://x"),
        ("custom", "https://api.x.ai/v1"),
        ("custom", "https://llm.chutes.ai/v1"),
        ("custom", "https://api.deepseek.com/v1"),
        ("zai", "http://x"),
        ("custom", "https://api.z.ai/api/paas/v4"),
        ("opencode", "http://x"),
        ("custom", "https://opencode.ai/zen/v1"),
    ],
)
def test_non_standard_servers_drop_store_and_developer_role(provider, url):
    c = resolve_completions_compat(_model(provider, url))
    assert c["supportsStore"] is False and c["supportsDeveloperRole"] is False


def test_compat_detection_specifics():
    assert (
        resolve_completions_compat(_model(base_url="https://llm.chutes.ai/v1"))["maxTokensField"]
        == "max_tokens"
    )
    assert resolve_completions_compat(_model("xai"))["supportsReasoningEffort"] is False
    zai = resolve_completions_compat(_model("zai"))
    assert zai["supportsReasoningEffort"] is False and zai["thinkingFormat"] == "zai"
    groq = resolve_completions_compat(_model("groq", id="qwen/qwen3-32b"))
    assert set(groq["reasoningEffortMap"].values()) == {"default"}
    assert resolve_completions_compat(_model("groq", id="openai/gpt-oss-120b"))["reasoningEffortMap"] == {}


def test_explicit_compat_overrides_detection():
    m = _model(
        "xai",
        compat={"supportsDeveloperRole": True, "maxTokensField": "max_tokens", "thinkingFormat": "qwen"},
    )
    c = resolve_completions_compat(m)
    assert c["supportsDeveloperRole"] is True and c["supportsStore"] is False
    assert c["maxTokensField"] == "max_tokens" and c["thinkingFormat"] == "qwen"


# ---------------------------------------------------------------- request bodies over the wire


async def test_default_body(loopback):
    loopback.add(chat_text_stream("ok"))
    tools = [Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {}})]
    model = make_model(loopback.url, reasoning=True, maxTokens=64000)
    await run(model, Context(systemPrompt="You are pi.", messages=[UserMessage(content="hi")], tools=tools))
    body = loopback.requests[0].json
    assert body["model"] == "test-model" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False
    assert body["max_completion_tokens"] == 32000 and "max_tokens" not in body
    assert body["messages"][0] == {"role": "developer", "content": "You are pi."}
    assert body["messages"][1] == {"role": "user", "content": "hi"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            },
        }
    ]
    assert "reasoning_effort" not in body


async def test_reasoning_effort_and_map(loopback):
    loopback.add(chat_text_stream("ok"), chat_text_stream("ok"), chat_text_stream("ok"))
    await run(make_model(loopback.url, reasoning=True), reasoning="xhigh")
    assert loopback.requests[0].json["reasoning_effort"] == "high"  # xhigh only where the model maps it
    xhigh_map = {"xhigh": "xhigh"}
    await run(make_model(loopback.url, reasoning=True, thinkingLevelMap=xhigh_map), reasoning="xhigh")
    assert loopback.requests[1].json["reasoning_effort"] == "xhigh"
    m = make_model(loopback.url, reasoning=True, compat={"reasoningEffortMap": {"low": "LOW!"}})
    await run(m, reasoning="low", max_tokens=100)
    body = loopback.requests[2].json
    assert body["reasoning_effort"] == "LOW!" and body["max_completion_tokens"] == 100


async def test_non_standard_server_body(loopback):
    loopback.add(chat_text_stream("ok"))
    model = make_model(loopback.url, provider="xai", reasoning=True)
    await run(model, Context(systemPrompt="sys", messages=[UserMessage(content="hi")]), reasoning="high")
    body = loopback.requests[0].json
    assert body["messages"][0]["role"] == "system"
    assert "store" not in body and "reasoning_effort" not in body


async def test_max_tokens_field_and_no_usage_in_streaming(loopback):
    loopback.add(chat_text_stream("ok"))
    compat = {"maxTokensField": "max_tokens", "supportsUsageInStreaming": False, "supportsStrictMode": False}
    tools = [Tool(name="t", description="d")]
    await run(
        make_model(loopback.url, compat=compat), Context(messages=[UserMessage(content="x")], tools=tools)
    )
    body = loopback.requests[0].json
    assert body["max_tokens"] == 16384 and "max_completion_tokens" not in body
    assert "stream_options" not in body
    assert "strict" not in body["tools"][0]["function"]


@pytest.mark.parametrize(
    "level,expected",
    [("medium", {"type": "enabled", "clear_thinking": False}), (None, {"type": "disabled"})],
)
async def test_zai_thinking_object(loopback, level, expected):
    loopback.add(chat_text_stream("ok"))
    await run(make_model(loopback.url, provider="zai", reasoning=True), reasoning=level)
    body = loopback.requests[0].json
    # pi 1.6's shape; Z.ai's compat has no reasoning_effort
    assert body["thinking"] == expected and "reasoning_effort" not in body and "enable_thinking" not in body


async def test_qwen_chat_template(loopback):
    loopback.add(chat_text_stream("ok"))
    m = make_model(loopback.url, reasoning=True, compat={"thinkingFormat": "qwen-chat-template"})
    await run(m, reasoning="low")
    assert loopback.requests[0].json["chat_template_kwargs"] == {"enable_thinking": True}


async def test_tool_result_name_and_assistant_after_tool_result(loopback):
    loopback.add(chat_text_stream("ok"))
    m = make_model(
        loopback.url, compat={"requiresToolResultName": True, "requiresAssistantAfterToolResult": True}
    )
    await run(m, Context(messages=_tool_turn(m)))
    msgs = loopback.requests[0].json["messages"]
    assert [x["role"] for x in msgs] == ["user", "assistant", "tool", "assistant", "user"]
    assert msgs[1]["tool_calls"][0] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": '{"command":"ls"}'},
    }
    assert msgs[1]["content"] == ""
    assert msgs[2] == {"role": "tool", "content": "a.txt", "tool_call_id": "call_1", "name": "bash"}
    assert msgs[3] == {"role": "assistant", "content": "I have processed the tool results."}
    # history with tool calls but no tool list: `tools: []` for proxies that require it
    assert loopback.requests[0].json["tools"] == []


async def test_default_tool_messages_have_no_name_or_bridge(loopback):
    loopback.add(chat_text_stream("ok"))
    m = make_model(loopback.url)
    await run(m, Context(messages=_tool_turn(m)))
    msgs = loopback.requests[0].json["messages"]
    assert [x["role"] for x in msgs] == ["user", "assistant", "tool", "user"]
    assert "name" not in msgs[2] and msgs[1]["content"] is None


async def test_images_mid_convo_system_and_thinking_replay(loopback):
    loopback.add(chat_text_stream("ok"), chat_text_stream("ok"))
    m = make_model(loopback.url, input=["text", "image"], reasoning=True)
    img = ImageContent(data="QUJD", mimeType="image/png")
    history = [
        UserMessage(content=[TextContent(text="look"), img]),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="hmm", thinkingSignature="reasoning_content"),
                TextContent(text="seen"),
                ToolCall(id="call_9", name="shot", arguments={}),
            ],
            api=m.api,
            provider=m.provider,
            model=m.id,
            stopReason="toolUse",
        ),
        ToolResultMessage(toolCallId="call_9", toolName="shot", content=[img]),
        SystemMessage(content="Now be brief."),
        UserMessage(content="and?"),
    ]
    await run(m, Context(systemPrompt="sys", messages=history))
    msgs = loopback.requests[0].json["messages"]
    assert msgs[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}
    assert msgs[2]["reasoning_content"] == "hmm" and msgs[2]["content"] == "seen"
    assert msgs[3] == {"role": "tool", "content": "(see attached image)", "tool_call_id": "call_9"}
    assert msgs[4]["role"] == "user" and msgs[4]["content"][1]["type"] == "image_url"
    assert msgs[5] == {"role": "developer", "content": "Now be brief."}
    assert msgs[6] == {"role": "user", "content": "and?"}

    text_only = make_model(loopback.url, compat={"requiresThinkingAsText": True})
    other = [history[0], history[1].model_copy(update={"model": text_only.id}), *history[2:]]
    await run(text_only, Context(messages=other))
    msgs = loopback.requests[1].json["messages"]
    assert msgs[0]["content"] == [{"type": "text", "text": "look"}]  # image dropped for a text-only model
    assert msgs[1]["content"] == "hmm\n\nseen"
    assert len(msgs) == 5  # no image follow-up for a text-only model
    assert msgs[3] == {"role": "system", "content": "Now be brief."}  # not a reasoning model: system role


async def test_on_payload_replaces_body_and_headers_sent(loopback):
    loopback.add(chat_text_stream("ok"))
    seen = {}

    def hook(params, model):
        seen["model"] = model.id
        return {**params, "custom_field": 7, "temperature": 0.25}

    m = make_model(loopback.url, headers={"x-model": "1", "x-both": "model"})
    await run(m, on_payload=hook, headers={"x-both": "options"})
    req = loopback.requests[0]
    assert seen["model"] == "test-model"
    assert req.json["custom_field"] == 7 and req.json["temperature"] == 0.25
    assert req.headers["x-model"] == "1" and req.headers["x-both"] == "options"


def test_openrouter_routing_and_cache_control():
    m = _model(
        "openrouter",
        "https://openrouter.ai/api/v1",
        id="anthropic/claude-sonnet-4",
        compat={"openRouterRouting": {"only": ["anthropic"]}},
    )
    params = build_completions_params(m, Context(messages=[UserMessage(content="hi")]), StreamOptions())
    assert params["provider"] == {"only": ["anthropic"]}
    assert params["messages"][-1]["content"] == [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    ]


def test_responses_style_ids_are_normalised_for_completions():
    m = _model("openai")
    other = AssistantMessage(
        content=[ToolCall(id="call_abc|fc+/=" + "x" * 300, name="t", arguments={})],
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stopReason="toolUse",
    )
    ctx = Context(
        messages=[
            UserMessage(content="q"),
            other,
            ToolResultMessage(toolCallId=other.content[0].id, toolName="t", content=[TextContent(text="r")]),
        ]
    )
    msgs = build_completions_params(m, ctx, StreamOptions())["messages"]
    assert msgs[1]["tool_calls"][0]["id"] == "call_abc"
    assert msgs[2]["tool_call_id"] == "call_abc"


def test_importing_adapters_does_not_import_openai():
    code = (
        "import sys, pi_app.ai, pi_app.ai.providers.openai_completions, pi_app.ai.providers.openai_responses;"
        "print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
