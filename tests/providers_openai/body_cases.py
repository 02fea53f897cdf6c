"""Request-body cases with every message kind and the compat flags that change its shape, for checking
that a new way of building the openai-completions body gives the bytes the old one did.

``completions_bodies.json`` holds the bodies the list-based builder (before the one-pass streaming
builder) produced for these cases; regenerate it only for an intended change of the wire format:

    .venv/bin/python -m tests.providers_openai.body_cases --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pi_app.ai.options import StreamOptions
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

GOLDEN = Path(__file__).with_name("completions_bodies.json")
RESPONSES_GOLDEN = Path(__file__).with_name("responses_bodies.json")
TS = 1_762_766_102_114
PNG = "iVBORw0KGgo="


def _model(provider: str = "custom", mid: str = "m", **kw: Any) -> Model:
    base = kw.pop("baseUrl", "http://x/v1")
    return Model(id=mid, api="openai-completions", provider=provider, baseUrl=base, **kw)


def _assistant(model: Model | None, content: list[Any], stop: str = "stop", **kw: Any) -> AssistantMessage:
    api, provider, mid = (model.api, model.provider, model.id) if model else ("anthropic-messages", "x", "o")
    return AssistantMessage(
        content=content, api=api, provider=provider, model=mid, stopReason=stop, timestamp=TS, **kw
    )


def _history(model: Model) -> list[Any]:
    """Every role and block kind, same-model and cross-model turns, errored turns, dangling tool calls."""
    same, other = model, None
    return [
        SystemMessage(content="leading system", timestamp=TS),
        UserMessage(content="plain string 😀 \ud800", timestamp=TS),
        UserMessage(content=[TextContent(text="with image"), ImageContent(data=PNG, mimeType="image/png")]),
        UserMessage(content=[ImageContent(data=PNG, mimeType="image/png")], timestamp=TS),
        _assistant(same, [ThinkingContent(thinking="hmm", thinkingSignature="reasoning_content")]),
        _assistant(
            same,
            [
                TextContent(text="let me look"),
                TextContent(text="   "),
                ToolCall(id="call_a", name="read", arguments={"path": "a"}),
                ToolCall(
                    id="call_b|fc_" + "x" * 60,
                    name="grep",
                    arguments={"pattern": "é", "n": 2.5},
                    thoughtSignature='{"type":"reasoning.encrypted","id":"call_b","data":"zz"}',
                ),
            ],
            stop="toolUse",
        ),
        ToolResultMessage(
            toolCallId="call_a",
            toolName="read",
            content=[TextContent(text="A"), ImageContent(data=PNG, mimeType="image/png")],
            timestamp=TS,
        ),
        ToolResultMessage(
            toolCallId="call_b|fc_" + "x" * 60, toolName="grep", content=[], isError=True, timestamp=TS
        ),
        SystemMessage(content="mid-conversation instruction", timestamp=TS),
        UserMessage(content="next", timestamp=TS),
        _assistant(
            other,
            [
                ThinkingContent(thinking="foreign thought"),
                ThinkingContent(thinking="", redacted=True),
                TextContent(text="foreign text"),
                ToolCall(id="toolu_1|item", name="ls", arguments={}, thoughtSignature="sig"),
            ],
            stop="toolUse",
        ),
        UserMessage(content="interrupting a dangling call", timestamp=TS),
        _assistant(same, [ToolCall(id="call_err", name="bash", arguments={"c": 1})], stop="error"),
        ToolResultMessage(toolCallId="call_err", toolName="bash", content=[TextContent(text="late")]),
        _assistant(same, [], stop="aborted", errorMessage="aborted"),
        _assistant(same, [TextContent(text="")]),
        _assistant(same, [TextContent(text="done"), ThinkingContent(thinking="after text")]),
        ToolResultMessage(toolCallId="orphan", toolName="read", content=[TextContent(text="no call")]),
        UserMessage(content=[TextContent(text="last")], timestamp=TS),
    ]


def cases() -> list[tuple[str, Model, Context, StreamOptions]]:
    tool = Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {}})
    out: list[tuple[str, Model, Context, StreamOptions]] = []

    def add(name: str, model: Model, context: Context | None = None, **opts: Any) -> None:
        ctx = context or Context(systemPrompt="be brief", messages=_history(model), tools=[tool])
        out.append((name, model, ctx, StreamOptions(**opts)))

    add("default", _model())
    add("images", _model(input=["text", "image"]))
    add("reasoning", _model(reasoning=True), reasoning="high")
    add("openai-provider", _model("openai", input=["text", "image"]), temperature=0.2, max_tokens=100)
    add("non-standard", _model("xai", reasoning=True), reasoning="low")
    add(
        "all-compat",
        _model(
            input=["text", "image"],
            compat={
                "requiresToolResultName": True,
                "requiresAssistantAfterToolResult": True,
                "requiresThinkingAsText": True,
                "supportsUsageInStreaming": False,
                "supportsStrictMode": False,
                "maxTokensField": "max_tokens",
            },
        ),
    )
    add("bridge-no-images", _model(compat={"requiresAssistantAfterToolResult": True}))
    add("mistral-ids", _model("mistral", compat={"requiresMistralToolIds": True}))
    add("zai", _model("zai", reasoning=True), reasoning="medium")
    m = _model()
    add("no-tools-with-history", m, Context(messages=_history(m)))
    add(
        "no-tools-no-history",
        m,
        Context(systemPrompt="s", messages=[UserMessage(content="hi", timestamp=TS)]),
    )
    add("empty", m, Context())
    add("system-only", m, Context(messages=[SystemMessage(content="only", timestamp=TS)]))
    add("errored-calls-only", m, Context(messages=[UserMessage(content="x", timestamp=TS), _history(m)[12]]))
    add("trailing-results", m, Context(messages=_history(m)[:7]))
    mi = _model(input=["text", "image"], compat={"requiresAssistantAfterToolResult": True})
    add("trailing-results-images", mi, Context(messages=_history(mi)[:8]))
    add(
        "openrouter-anthropic",
        _model("openrouter", "anthropic/claude", baseUrl="https://openrouter.ai/api/v1"),
    )
    return out


def responses_cases() -> list[tuple[str, Model, Context, StreamOptions]]:
    """The same histories for ``openai-responses`` (signed text, reasoning items, cache keys)."""
    tool = Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {}})
    out: list[tuple[str, Model, Context, StreamOptions]] = []

    def model(**kw: Any) -> Model:
        base = {"id": "gpt-x", "api": "openai-responses", "provider": "openai", "baseUrl": "http://x/v1"}
        return Model(**{**base, **kw})

    def history(m: Model) -> list[Any]:
        signed = _assistant(
            m,
            [
                ThinkingContent(
                    thinking="r", thinkingSignature='{"type":"reasoning","id":"rs_1","summary":[]}'
                ),
                ThinkingContent(thinking="bad", thinkingSignature="not json"),
                TextContent(
                    text="signed", textSignature='{"v":1,"id":"msg_' + "y" * 70 + '","phase":"final"}'
                ),
                ToolCall(id="call_r|fc_1", name="read", arguments={"path": "a"}),
            ],
            stop="toolUse",
        )
        other = m.model_copy(update={"id": "gpt-other"})
        return [
            *_history(m),
            signed,
            ToolResultMessage(
                toolCallId="call_r|fc_1",
                toolName="read",
                content=[TextContent(text="img"), ImageContent(data=PNG, mimeType="image/png")],
            ),
            _assistant(other, [ToolCall(id="call_o|fc_2", name="ls", arguments={})], stop="toolUse"),
            ToolResultMessage(toolCallId="call_o|fc_2", toolName="ls", content=[]),
        ]

    def add(name: str, m: Model, context: Context | None = None, **opts: Any) -> None:
        ctx = context or Context(systemPrompt="be brief", messages=history(m), tools=[tool])
        out.append((name, m, ctx, StreamOptions(**opts)))

    add("default", model(), session_id="sess-1")
    add("images", model(input=["text", "image"]), cache_retention="none", temperature=0.5)
    add("reasoning", model(reasoning=True), reasoning="high", cache_retention="long")
    add("gpt-5-off", model(reasoning=True, name="gpt-5-mini"))
    m = model()
    add("no-tools", m, Context(messages=history(m)))
    add("empty", m, Context())
    return out


def old_bodies() -> dict[str, Any]:
    from pi_app.ai.providers.openai_completions_request import build_completions_params

    return {name: build_completions_params(model, ctx, opts) for name, model, ctx, opts in cases()}


def old_responses_bodies() -> dict[str, Any]:
    from pi_app.ai.providers.openai_responses import build_responses_params

    return {name: build_responses_params(model, ctx, opts) for name, model, ctx, opts in responses_cases()}


if __name__ == "__main__":
    if "--write" in sys.argv:
        for path, bodies in ((GOLDEN, old_bodies()), (RESPONSES_GOLDEN, old_responses_bodies())):
            text = json.dumps(bodies, ensure_ascii=False, indent=1)
            path.write_text(text + "\n", encoding="utf-8", errors="surrogatepass")
            print(f"wrote {path}")
