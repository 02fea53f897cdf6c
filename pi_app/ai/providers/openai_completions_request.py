"""Request building for the OpenAI Chat Completions API (``openai-completions``; pure functions, no SDK).

OpenAI and every compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, xAI, z.ai,
DeepSeek, ...) differ in small ways; those differences are the compat flags of spec §2.6, auto-detected
from provider/baseUrl and overridable through ``model.compat`` (models.json). The body is built as dicts
for a payload hook (``build_completions_params``) or encoded as it is built (``build_completions_body``,
on two cores for a long transcript: ``split_build``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pi_app.ai.json_parse import js_json
from pi_app.ai.models import provider_thinking_value, supports_thinking_off
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.http_common import client_warm_up
from pi_app.ai.providers.json_body import EncodedArray
from pi_app.ai.providers.openai_common import (
    default_max_tokens,
    reasoning_effort,
    sanitize,
)
from pi_app.ai.providers.split_build import encode_split
from pi_app.ai.text import text_of
from pi_app.ai.transcript import (
    ResolvedTranscript,
    resolve_transcript,
    supports_mid_convo_system,
    system_text,
)
from pi_app.ai.transform import TransformState, iter_transformed_messages, parts_join
from pi_app.ai.types import Context, Model

# ---------------------------------------------------------------- compat


def _detect_compat(model: Model) -> dict[str, Any]:
    provider, url = model.provider, model.baseUrl or ""
    is_zai = provider == "zai" or "api.z.ai" in url
    is_grok = provider == "xai" or "api.x.ai" in url
    is_groq = provider == "groq" or "groq.com" in url
    # These servers reject `store` and the `developer` role.
    non_standard = (
        provider in ("cerebras", "xai", "opencode")
        or any(
            host in url for host in ("cerebras.ai", "api.x.ai", "chutes.ai", "deepseek.com", "opencode.ai")
        )
        or is_zai
    )
    effort_map: dict[str, str] = {}
    if is_groq and model.id == "qwen/qwen3-32b":
        effort_map = dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": not non_standard,
        "supportsReasoningEffort": not is_grok and not is_zai,
        "reasoningEffortMap": effort_map,
        "supportsUsageInStreaming": True,
        "maxTokensField": "max_tokens" if "chutes.ai" in url else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "thinkingFormat": "zai" if is_zai else "openai",
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        "supportsStrictMode": True,
    }


def resolve_completions_compat(model: Model) -> dict[str, Any]:
    """Every compat flag resolved: explicit ``model.compat`` values win over auto-detection."""
    compat = _detect_compat(model)
    for key, value in (model.compat or {}).items():
        if value is not None:
            compat[key] = value
    return compat


# ---------------------------------------------------------------- request


def _mistral_tool_id(call_id: str) -> str:
    """Mistral accepts only ids of exactly 9 letters/digits: derive a stable one from any other id."""
    if len(call_id) == 9 and call_id.isalnum():
        return call_id
    import hashlib

    digest = hashlib.sha256(call_id.encode()).digest()
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:9])


def _normalize_tool_call_id(model: Model) -> Any:
    mistral_ids = bool((model.compat or {}).get("requiresMistralToolIds"))

    def normalize(call_id: str, _model: Model, _msg: Any) -> str:
        if mistral_ids:
            return _mistral_tool_id(call_id)
        # Responses-API ids are "call_id|item_id" (item ids can be 400+ chars): keep the call id part,
        # restricted to the characters and 40-char length Chat Completions accepts.
        if "|" in call_id:
            head = call_id.split("|", 1)[0]
            return "".join(c if c.isalnum() or c in "_-" else "_" for c in head)[:40]
        if model.provider == "openai":
            return call_id[:40]
        return call_id

    return normalize


def _image_url(block: Any) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mimeType};base64,{block.data}"}}


def _user_message(msg: Any, accepts_images: bool) -> dict[str, Any] | None:
    if isinstance(msg.content, str):
        return {"role": "user", "content": sanitize(msg.content)}
    parts: list[dict[str, Any]] = []
    for block in msg.content:
        if block.type == "text":
            parts.append({"type": "text", "text": sanitize(block.text)})
        elif block.type == "image" and accepts_images:
            parts.append(_image_url(block))
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(msg: Any, compat: dict[str, Any]) -> dict[str, Any] | None:
    out: dict[str, Any] = {
        "role": "assistant",
        "content": "" if compat["requiresAssistantAfterToolResult"] else None,
    }
    # One pass over the blocks (every assistant turn of a resumed transcript comes through here).
    texts: list[str] = []
    thinking: list[Any] = []
    calls: list[dict[str, Any]] = []
    details: list[Any] = []
    for b in msg.content:
        kind = b.type
        if kind == "text":
            if b.text.strip():
                texts.append(sanitize(b.text))
        elif kind == "thinking":
            if b.thinking.strip():
                thinking.append(b)
        elif kind == "toolCall":
            fn = {"name": b.name, "arguments": js_json(b.arguments)}
            calls.append({"id": b.id, "type": "function", "function": fn})
            if b.thoughtSignature:
                try:
                    details.append(json.loads(b.thoughtSignature))
                except ValueError:
                    pass
    # Plain string content: some models mirror an array-of-parts structure back in their output.
    text = "".join(texts)
    if text:
        out["content"] = text
    if thinking:
        if compat["requiresThinkingAsText"]:
            joined = "\n\n".join(b.thinking for b in thinking)
            out["content"] = f"{joined}\n\n{text}" if text else joined
        elif thinking[0].thinkingSignature:
            # The signature names the field the server streamed reasoning in (reasoning_content, ...);
            # sending it back under that name lets e.g. llama.cpp + gpt-oss continue its reasoning.
            out[thinking[0].thinkingSignature] = "\n".join(b.thinking for b in thinking)
    if calls:
        out["tool_calls"] = calls
        if details:
            out["reasoning_details"] = details
    if not out["content"] and not calls:
        return None  # many servers reject an assistant message with neither content nor tool calls
    return out


def convert_completions_messages(
    model: Model, system_prompt: str, messages: Iterable[Any], compat: dict[str, Any]
) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` for an already-transformed transcript."""
    return list(iter_completions_messages(model, system_prompt, messages, compat))


_BRIDGE = "I have processed the tool results."


@dataclass
class _ConvertState:
    """Where a conversion pass ended, and how it opened: what a second part converted from a fresh state
    would have done differently after the first (a bridging assistant message before a user or system
    message, with ``requiresAssistantAfterToolResult``; a run of tool results whose images are sent after
    it)."""

    bridge_owed: bool = False  # a user or system message next would get the bridge first
    images_open: bool = False  # ended in a run of results with images (sent at the end, closing it)
    opens_with_question: bool = False  # a user or system message came before anything settled the state
    opens_with_results: bool = False  # a tool result came first (one pass would extend the last run)


def iter_completions_messages(
    model: Model,
    system_prompt: str,
    messages: Iterable[Any],
    compat: dict[str, Any],
    state: _ConvertState | None = None,
) -> Iterator[dict[str, Any]]:
    """Chat Completions ``messages`` for an already-transformed transcript, one at a time: a run of tool
    results is the only thing looked at as a group (for the images it attaches after it). ``state``, when
    given, is left as the pass ended."""
    system_role = "developer" if model.reasoning and compat["supportsDeveloperRole"] else "system"
    accepts_images = "image" in model.input
    bridge = bool(compat["requiresAssistantAfterToolResult"])
    name_results = bool(compat["requiresToolResultName"])
    if system_prompt:
        yield {"role": system_role, "content": sanitize(system_prompt)}
    last_role: str | None = None
    in_results = False  # inside a run of tool results
    images: list[dict[str, Any]] = []  # the run's images, sent after it
    opening = state  # noted in until a message settles what came before (see _ConvertState)
    for msg in messages:
        role = msg.role
        if opening is not None:
            if role == "toolResult":
                opening.opens_with_results, opening = True, None
            elif role in ("user", "system"):
                opening.opens_with_question, opening = True, None
            elif _assistant_message(msg, compat) is not None:  # (converted twice: the first message only)
                opening = None
        if in_results and role != "toolResult":
            yield from _end_of_results(images, bridge)
            last_role = "user" if images else "toolResult"
            in_results, images = False, []
        if bridge and last_role == "toolResult" and role in ("user", "system"):
            yield {"role": "assistant", "content": _BRIDGE}
        if role == "system":  # a mid-conversation instruction, kept in place
            yield {"role": system_role, "content": sanitize(system_text(msg))}
        elif role == "user":
            converted = _user_message(msg, accepts_images)
            if converted is None:
                continue
            yield converted
        elif role == "assistant":
            converted = _assistant_message(msg, compat)
            if converted is None:
                continue
            yield converted
        elif role == "toolResult":
            in_results = True
            text = text_of(msg.content, "\n")
            tool_msg: dict[str, Any] = {
                "role": "tool",
                "content": sanitize(text or "(see attached image)"),
                "tool_call_id": msg.toolCallId,
            }
            if name_results and msg.toolName:
                tool_msg["name"] = msg.toolName
            yield tool_msg
            if accepts_images:
                images.extend(_image_url(b) for b in msg.content if b.type == "image")
            continue
        last_role = role
    if state is not None:
        state.images_open = in_results and bool(images)
    if in_results:
        yield from _end_of_results(images, bridge)
        last_role = "user" if images else "toolResult"
    if state is not None:
        state.bridge_owed = bridge and last_role == "toolResult"


def _end_of_results(images: list[dict[str, Any]], bridge: bool) -> Iterator[dict[str, Any]]:
    """Tool messages cannot carry images: a run's images go in a user message right after it."""
    if not images:
        return
    if bridge:
        yield {"role": "assistant", "content": _BRIDGE}
    yield {
        "role": "user",
        "content": [{"type": "text", "text": "Attached image(s) from tool result:"}, *images],
    }


def _wants_cache_control(model: Model) -> bool:
    return model.provider == "openrouter" and model.id.startswith("anthropic/")


def _add_openrouter_cache_control(model: Model, messages: list[dict[str, Any]]) -> None:
    """Anthropic models behind OpenRouter cache only with an explicit breakpoint on a text part."""
    if not _wants_cache_control(model):
        return
    for msg in reversed(messages):
        if msg["role"] not in ("user", "assistant"):
            continue
        content = msg.get("content")
        if isinstance(content, str) and content:
            msg["content"] = [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}]
            return
        if isinstance(content, list):
            for part in reversed(content):
                if part.get("type") == "text":
                    part["cache_control"] = {"type": "ephemeral"}
                    return


def build_completions_params(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The request body (pure): messages, tools, token limit, reasoning and compat-specific fields."""
    return _build_params(model, context, options, encoded=False)


def build_completions_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """:func:`build_completions_params` with ``messages`` as an :class:`EncodedArray`: each message is
    transformed, converted and encoded in one pass and only its bytes are kept (the same bytes).

    For a body no payload hook sees. Raises ValueError for a message that cannot be encoded.
    """
    return _build_params(model, context, options, encoded=True)


@dataclass
class _ToolHistory:
    """Whether a transcript sent without tools holds tool calls or results (proxies to Anthropic need ``tools``)."""

    seen: bool = False

    def watch(self, messages: Iterable[Any]) -> Iterator[Any]:
        """Pass ``messages`` through, noting whether any is a tool call or a tool result."""
        for m in messages:
            if not self.seen and (
                m.role == "toolResult"
                or (m.role == "assistant" and any(b.type == "toolCall" for b in m.content))
            ):
                self.seen = True
            yield m


class _PartEnd(NamedTuple):
    """Where a part of the transcript ended (plain values: a first part's comes back from the child as a
    plain tuple): the transform's summary (:class:`TransformEnd`), what the conversion carries across the
    split (:class:`_ConvertState`) and whether the part held tool calls or results."""

    waiting: bool
    renamed: list[str]
    results: list[str]
    bridge_owed: bool
    images_open: bool
    opens_with_question: bool
    opens_with_results: bool
    tools_seen: bool


def _encode_part(
    model: Model, compat: dict[str, Any], transcript: ResolvedTranscript, part: Sequence[Any], first: bool
) -> tuple[EncodedArray, _PartEnd]:
    """One part of the transcript encoded from a fresh state (the system prompt opens the first)."""
    ended, converted = TransformState(), _ConvertState()
    messages = iter_transformed_messages(part, model, _normalize_tool_call_id(model), ended)
    history = _ToolHistory()
    if not transcript.tools:
        messages = history.watch(messages)
    prompt = transcript.system_prompt if first else ""
    array = EncodedArray(iter_completions_messages(model, prompt, messages, compat, converted))
    end = _PartEnd(
        *ended.summary(first),
        bridge_owed=converted.bridge_owed,
        images_open=converted.images_open,
        opens_with_question=converted.opens_with_question,
        opens_with_results=converted.opens_with_results,
        tools_seen=history.seen,
    )
    return array, end


def _parts_join(first: _PartEnd, second: _PartEnd) -> bool:
    """The second part, encoded from a fresh state, is what one pass would have made of it after the first:
    the transform's condition, no bridging message owed to a question the second part opens with, and no
    run of results with images that the second part would have continued."""
    a, b = _PartEnd(*first), _PartEnd(*second)
    return (
        parts_join(a.waiting, a.renamed, b.results)
        and not (a.bridge_owed and b.opens_with_question)
        and not (a.images_open and b.opens_with_results)
    )


def _build_params(model: Model, context: Context, options: StreamOptions, encoded: bool) -> dict[str, Any]:
    compat = resolve_completions_compat(model)
    transcript = resolve_transcript(context, supports_mid_convo_system(model.api, model.compat))
    wire_messages: EncodedArray | list[dict[str, Any]]
    if encoded and not _wants_cache_control(model):

        def part(messages: Sequence[Any], first: bool) -> tuple[EncodedArray, _PartEnd]:
            return _encode_part(model, compat, transcript, messages, first)

        split = encode_split(
            transcript.messages,
            part,
            _parts_join,
            client_warm_up(model.baseUrl, 0.55, "openai", "AsyncOpenAI"),
        )
        if split is not None:
            wire_messages = split.array
            tools_seen = any(_PartEnd(*state).tools_seen for state in split.states)
        else:
            wire_messages, end = part(transcript.messages, True)  # one pass
            tools_seen = end.tools_seen
    else:  # as dicts: for a payload hook, or for the cache breakpoint on the last message
        history = _ToolHistory()
        messages = iter_transformed_messages(transcript.messages, model, _normalize_tool_call_id(model))
        if not transcript.tools:
            messages = history.watch(messages)
        wire_messages = list(iter_completions_messages(model, transcript.system_prompt, messages, compat))
        _add_openrouter_cache_control(model, wire_messages)
        if encoded:
            wire_messages = EncodedArray(wire_messages)
        tools_seen = history.seen

    params: dict[str, Any] = {"model": model.id, "messages": wire_messages, "stream": True}
    if compat["supportsUsageInStreaming"] is not False:
        params["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        params["store"] = False
    params[compat["maxTokensField"]] = default_max_tokens(model, options)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if transcript.tools:
        tools = []
        for tool in transcript.tools:
            fn: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
            if compat["supportsStrictMode"] is not False:
                fn["strict"] = False
            tools.append({"type": "function", "function": fn})
        params["tools"] = tools
    elif tools_seen:
        params["tools"] = []  # proxies in front of Anthropic require `tools` once the history has tool calls

    effort = reasoning_effort(model, options.reasoning)
    fmt = compat["thinkingFormat"]
    if model.reasoning and fmt == "zai":
        # pi 1.6's Z.ai shape: a thinking object (kept thinking across turns), effort only where supported
        params["thinking"] = {"type": "enabled", "clear_thinking": False} if effort else {"type": "disabled"}
        if effort and compat["supportsReasoningEffort"]:
            params["reasoning_effort"] = effort
    elif model.reasoning and fmt == "qwen":
        params["enable_thinking"] = effort is not None
    elif model.reasoning and fmt == "qwen-chat-template":
        params["chat_template_kwargs"] = {"enable_thinking": effort is not None}
    elif model.reasoning and fmt == "openrouter":
        # one nested object; "off" is said explicitly unless the model cannot stop thinking
        if effort:
            params["reasoning"] = {"effort": effort}
        elif supports_thinking_off(model):
            params["reasoning"] = {"effort": provider_thinking_value(model, "off") or "none"}
    elif model.reasoning and fmt == "deepseek":
        if effort:
            params["thinking"] = {"type": "enabled"}
            if compat["supportsReasoningEffort"]:
                params["reasoning_effort"] = effort
        elif supports_thinking_off(model):
            params["thinking"] = {"type": "disabled"}
    elif model.reasoning and fmt == "together":
        params["reasoning"] = {"enabled": effort is not None}
        if effort and compat["supportsReasoningEffort"]:
            params["reasoning_effort"] = effort
    elif effort and model.reasoning and compat["supportsReasoningEffort"]:
        params["reasoning_effort"] = (compat["reasoningEffortMap"] or {}).get(effort, effort)
    elif model.reasoning and compat["supportsReasoningEffort"]:
        # thinking off: the model's own value for it where its thinkingLevelMap names one (e.g. "none")
        if (off := provider_thinking_value(model, "off")) is not None:
            params["reasoning_effort"] = off

    url = model.baseUrl or ""
    routing = (model.compat or {}).get("openRouterRouting")
    if "openrouter.ai" in url and routing:
        params["provider"] = routing
    gateway = compat["vercelGatewayRouting"] or {}
    if "ai-gateway.vercel.sh" in url and (gateway.get("only") or gateway.get("order")):
        params["providerOptions"] = {"gateway": {k: gateway[k] for k in ("only", "order") if gateway.get(k)}}
    return params
