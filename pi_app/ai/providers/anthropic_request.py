"""Request building for the Anthropic Messages API (pure functions, no SDK import).

Covers the conversion of pi messages to Anthropic ``messages``, tools, the system prompt with prompt-cache
marks, thinking parameters per level (spec §2.8), OAuth (Claude Code) specifics and the headers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pi_app.ai.models import provider_thinking_value, supports_thinking_off
from pi_app.ai.options import DEFAULT_THINKING_BUDGETS, StreamOptions
from pi_app.ai.providers.http_common import default_max_tokens, merge_headers, sanitize_surrogates
from pi_app.ai.providers.json_body import EncodedArray
from pi_app.ai.providers.split_build import Meanwhile, encode_split
from pi_app.ai.transcript import ResolvedTranscript, system_text
from pi_app.ai.transform import TransformState, iter_transformed_messages, parts_join
from pi_app.ai.types import Model, Tool

# OAuth (Claude subscription) requests must look like Claude Code: its identity as the first system
# block, its beta flags and user agent, and its canonical tool-name casing.
CLAUDE_CODE_VERSION = "2.1.75"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
CLAUDE_CODE_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
_CC_BY_LOWER = {name.lower(): name for name in CLAUDE_CODE_TOOLS}

BETA_FINE_GRAINED_TOOL_STREAMING = "fine-grained-tool-streaming-2025-05-14"
BETA_INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"
BETA_OAUTH = ("claude-code-20250219", "oauth-2025-04-20")

MIN_OUTPUT_TOKENS = 1024
_BAD_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def is_oauth_token(key: str | None) -> bool:
    return bool(key) and "sk-ant-oat" in key  # type: ignore[operator]


def to_claude_code_name(name: str) -> str:
    return _CC_BY_LOWER.get(name.lower(), name)


def from_claude_code_name(name: str, tools: list[Tool]) -> str:
    """Map a tool name the model used back to our tool's own casing."""
    lower = name.lower()
    for tool in tools:
        if tool.name.lower() == lower:
            return tool.name
    return name


def normalize_tool_call_id(call_id: str, *_: Any) -> str:
    """Anthropic requires tool_use ids matching ``[a-zA-Z0-9_-]{1,64}``."""
    return _BAD_ID_CHARS.sub("_", call_id)[:64]


def supports_adaptive_thinking(model_id: str) -> bool:
    return any(tag in model_id for tag in ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6"))


def _adaptive(model: Model) -> bool:
    """Adaptive thinking: the catalogue says so (pi 1.6's ``forceAdaptiveThinking``), else by model id."""
    return bool((model.compat or {}).get("forceAdaptiveThinking")) or supports_adaptive_thinking(model.id)


def effort_for_level(level: str, model_id: str) -> str:
    """Adaptive-thinking effort: minimal/low→low, medium, high; xhigh/max→max on Opus 4.6, else high."""
    if level in ("minimal", "low"):
        return "low"
    if level == "medium":
        return "medium"
    if level in ("xhigh", "max"):
        return "max" if ("opus-4-6" in model_id or "opus-4.6" in model_id) else "high"
    return "high"


def budget_for_level(
    level: str, base_max_tokens: int, model_max_tokens: int, overrides: dict[str, int] | None = None
) -> tuple[int, int]:
    """(max_tokens, budget_tokens) for budget-based thinking; xhigh/max clamp to high."""
    budgets = {**DEFAULT_THINKING_BUDGETS, **(overrides or {})}
    clamped = "high" if level in ("xhigh", "max") else level
    budget = budgets.get(clamped, budgets["high"])
    max_tokens = min(base_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - MIN_OUTPUT_TOKENS)
    return max_tokens, budget


def resolve_cache_retention(value: str | None) -> str:
    if value:
        return value
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def cache_control_for(base_url: str, retention: str | None) -> dict[str, str] | None:
    """``{"type":"ephemeral"}`` (+ ``ttl:"1h"`` for long retention on api.anthropic.com), or None."""
    resolved = resolve_cache_retention(retention)
    if resolved == "none":
        return None
    control = {"type": "ephemeral"}
    if resolved == "long" and "api.anthropic.com" in base_url:
        control["ttl"] = "1h"
    return control


# ---------------------------------------------------------------- messages
def _image_block(block: Any) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.mimeType, "data": block.data}}


def _tool_result_content(content: list[Any]) -> str | list[dict[str, Any]]:
    """Text-only results become one string; with images, a block list (text placeholder if none)."""
    if not any(b.type == "image" for b in content):
        return sanitize_surrogates("\n".join(b.text for b in content if b.type == "text"))
    blocks = [
        {"type": "text", "text": sanitize_surrogates(b.text)} if b.type == "text" else _image_block(b)
        for b in content
    ]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def _user_param(msg: Any, model: Model) -> dict[str, Any] | None:
    if isinstance(msg.content, str):
        text = sanitize_surrogates(msg.content)
        return {"role": "user", "content": text} if text.strip() else None
    blocks: list[dict[str, Any]] = []
    for item in msg.content:
        if item.type == "text":
            if item.text.strip():
                blocks.append({"type": "text", "text": sanitize_surrogates(item.text)})
        elif item.type == "image" and "image" in model.input:
            blocks.append(_image_block(item))
    return {"role": "user", "content": blocks} if blocks else None


def _assistant_param(msg: Any, oauth: bool) -> dict[str, Any] | None:
    blocks: list[dict[str, Any]] = []
    for block in msg.content:
        if block.type == "text":
            if block.text.strip():
                blocks.append({"type": "text", "text": sanitize_surrogates(block.text)})
        elif block.type == "thinking":
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": block.thinkingSignature or ""})
            elif block.thinkingSignature and block.thinkingSignature.strip():
                # The signature is replayed byte-exact; the API verifies it against the thinking text.
                blocks.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.thinkingSignature}
                )
            elif block.thinking.strip():
                # Unsigned (e.g. an aborted stream): plain text, without tags the model would imitate.
                blocks.append({"type": "text", "text": sanitize_surrogates(block.thinking)})
        elif block.type == "toolCall":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": to_claude_code_name(block.name) if oauth else block.name,
                    "input": block.arguments or {},
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def iter_anthropic_messages(
    messages: Iterable[Any], model: Model, oauth: bool, state: _ConvertState | None = None
) -> Iterator[dict[str, Any]]:
    """pi messages (already transformed) → Anthropic ``messages``, one at a time: a run of consecutive
    tool results is one user turn, sent when the run ends. ``state``, when given, notes how the pass opened
    and ended (:class:`_ConvertState`)."""
    results: list[dict[str, Any]] = []  # the open run of tool results
    opening = state
    for msg in messages:
        role = msg.role
        if opening is not None:
            opening.opens_with_results, opening = role == "toolResult", None
        if role == "toolResult":
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": msg.toolCallId,
                    "content": _tool_result_content(msg.content),
                    "is_error": bool(msg.isError),
                }
            )
            continue
        if results:  # any other message ends the run, even one that converts to nothing
            yield {"role": "user", "content": results}
            results = []
        param: dict[str, Any] | None = None
        if role == "user":
            param = _user_param(msg, model)
        elif role == "assistant":
            param = _assistant_param(msg, oauth)
        elif role == "system":
            # Only reachable when compat claims mid-conversation system support: keep it as user text.
            text = system_text(msg)
            if text.strip():
                param = {"role": "user", "content": [{"type": "text", "text": sanitize_surrogates(text)}]}
        if param is not None:
            yield param
    if state is not None:
        state.results_open = bool(results)
    if results:
        yield {"role": "user", "content": results}


def _mark_cache(param: dict[str, Any], cache_control: dict[str, str] | None) -> None:
    """The prompt-cache mark on the last block of the request's last message, when that is a user turn."""
    if not cache_control or param["role"] != "user":
        return
    if isinstance(param["content"], str):
        param["content"] = [{"type": "text", "text": param["content"], "cache_control": dict(cache_control)}]
    elif param["content"] and param["content"][-1]["type"] in ("text", "image", "tool_result"):
        param["content"][-1]["cache_control"] = dict(cache_control)


def _marked_at_end(
    params: Iterable[dict[str, Any]], cache_control: dict[str, str] | None
) -> Iterator[dict[str, Any]]:
    """``params`` as they come, the last one given the cache mark (each is held until the next arrives)."""
    held: dict[str, Any] | None = None
    for param in params:
        if held is not None:
            yield held
        held = param
    if held is not None:
        _mark_cache(held, cache_control)
        yield held


def convert_messages(
    messages: list[Any], model: Model, oauth: bool, cache_control: dict[str, str] | None
) -> list[dict[str, Any]]:
    """pi messages (already transformed) → Anthropic ``messages``; consecutive tool results share one
    user turn, and the last user turn's last block carries the cache mark."""
    return list(_marked_at_end(iter_anthropic_messages(messages, model, oauth), cache_control))


@dataclass
class _ConvertState:
    """How a conversion pass opened and ended: what a part converted apart would do differently (a run
    of tool results the next part continues is one user turn in one pass)."""

    opens_with_results: bool = False  # the part's first message is a tool result
    results_open: bool = False  # the part ended in a run of tool results


class _PartEnd(NamedTuple):
    """Where a part of the transcript ended (plain values: a first part's comes back from the child as a
    plain tuple): the transform's summary (``TransformEnd``), the conversion's (:class:`_ConvertState`), and
    whether the part sent nothing (the cache mark would then belong to the part before it)."""

    waiting: bool
    renamed: list[str]
    results: list[str]
    opens_with_results: bool
    results_open: bool
    empty: bool


def _encode_part(
    model: Model,
    oauth: bool,
    cache_control: dict[str, str] | None,
    part: Sequence[Any],
    first: bool,
    last: bool,
) -> tuple[EncodedArray, _PartEnd]:
    """One part of the transcript transformed, converted and encoded from a fresh state (the last part
    carries the cache mark)."""
    ended, converted = TransformState(), _ConvertState()
    messages = iter_transformed_messages(part, model, normalize_tool_call_id, ended)
    params = iter_anthropic_messages(messages, model, oauth, converted)
    array = EncodedArray(_marked_at_end(params, cache_control) if last else params)
    end = _PartEnd(
        *ended.summary(first),
        opens_with_results=converted.opens_with_results,
        results_open=converted.results_open,
        empty=not array.count,
    )
    return array, end


def _parts_join(first: _PartEnd, second: _PartEnd) -> bool:
    """The second part, encoded from a fresh state, is what one pass would have made of it after the first:
    the transform's condition, no run of tool results going on across the split, and a second part that
    sends something (it holds the cache mark)."""
    a, b = _PartEnd(*first), _PartEnd(*second)
    return (
        parts_join(a.waiting, a.renamed, b.results)
        and not (a.results_open and b.opens_with_results)
        and not b.empty
    )


def convert_tools(tools: list[Tool], oauth: bool) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        schema = tool.parameters or {}
        out.append(
            {
                "name": to_claude_code_name(tool.name) if oauth else tool.name,
                "description": tool.description,
                "input_schema": {
                    "type": "object",
                    "properties": schema.get("properties") or {},
                    "required": schema.get("required") or [],
                },
            }
        )
    return out


# ---------------------------------------------------------------- payload & headers
def thinking_enabled(model: Model, options: StreamOptions) -> bool:
    return bool(options.reasoning and options.reasoning != "off" and model.reasoning)


def build_payload(
    model: Model, transcript: ResolvedTranscript, messages: list[Any], options: StreamOptions, oauth: bool
) -> dict[str, Any]:
    """The ``/v1/messages`` body (``stream: true``) for already-transformed ``messages``, as plain dicts and
    lists (what a payload hook sees)."""
    cache_control = cache_control_for(model.baseUrl, options.cache_retention)
    wire = convert_messages(messages, model, oauth, cache_control)
    return _payload(model, transcript, wire, options, oauth, cache_control)


def build_encoded_payload(
    model: Model,
    transcript: ResolvedTranscript,
    options: StreamOptions,
    oauth: bool,
    meanwhile: Meanwhile | None = None,
) -> dict[str, Any]:
    """:func:`build_payload` for the transcript with ``messages`` as an :class:`EncodedArray`: each message
    transformed, converted and encoded in one pass, only its bytes kept (a long transcript on two cores:
    ``split_build``, with ``meanwhile`` done here while the child encodes). For a body no payload hook sees.
    Raises ValueError for what cannot be encoded."""
    cache_control = cache_control_for(model.baseUrl, options.cache_retention)

    def part(messages: Sequence[Any], first: bool) -> tuple[EncodedArray, _PartEnd]:
        return _encode_part(model, oauth, cache_control, messages, first, last=not first)

    split = encode_split(transcript.messages, part, _parts_join, meanwhile)
    if split is not None:
        wire = split.array
    else:
        wire, _ = _encode_part(model, oauth, cache_control, transcript.messages, True, last=True)
    return _payload(model, transcript, wire, options, oauth, cache_control)


def _payload(
    model: Model,
    transcript: ResolvedTranscript,
    wire: list[dict[str, Any]] | EncodedArray,
    options: StreamOptions,
    oauth: bool,
    cache_control: dict[str, str] | None,
) -> dict[str, Any]:
    max_tokens = default_max_tokens(model, options)
    payload: dict[str, Any] = {"model": model.id, "messages": wire, "max_tokens": max_tokens, "stream": True}

    system: list[dict[str, Any]] = []
    if oauth:
        system.append({"type": "text", "text": CLAUDE_CODE_IDENTITY})
    if transcript.system_prompt:
        system.append({"type": "text", "text": sanitize_surrogates(transcript.system_prompt)})
    if system:
        if cache_control:
            for block in system:
                block["cache_control"] = dict(cache_control)
        payload["system"] = system

    if transcript.tools:
        payload["tools"] = convert_tools(transcript.tools, oauth)

    thinking = thinking_enabled(model, options)
    if thinking:
        level = options.reasoning or "high"
        if _adaptive(model):
            payload["thinking"] = {"type": "adaptive"}
            effort = provider_thinking_value(model, level) or effort_for_level(level, model.id)
            payload["output_config"] = {"effort": effort}
        else:
            max_tokens, budget = budget_for_level(
                level, max_tokens, model.maxTokens, options.thinking_budgets
            )
            payload["max_tokens"] = max_tokens
            payload["thinking"] = {"type": "enabled", "budget_tokens": budget}
    else:
        if model.reasoning and supports_thinking_off(model):
            # pi 1.6 says "off" explicitly (the model's default may be to think); not for models whose
            # thinking cannot be turned off
            payload["thinking"] = {"type": "disabled"}
        if options.temperature is not None:
            # Anthropic rejects a temperature together with extended thinking.
            payload["temperature"] = options.temperature

    user_id = (options.metadata or {}).get("user_id")
    if isinstance(user_id, str):
        payload["metadata"] = {"user_id": user_id}
    return payload


def build_headers(model: Model, options: StreamOptions, oauth: bool) -> dict[str, str]:
    """Beta flags and identity headers; ``model.headers`` then ``options.headers`` override them."""
    betas = [BETA_FINE_GRAINED_TOOL_STREAMING]
    # Adaptive models interleave thinking natively; the beta flag is deprecated there.
    if not _adaptive(model):
        betas.append(BETA_INTERLEAVED_THINKING)
    base: dict[str, str] = {"accept": "application/json"}
    if oauth:
        base["anthropic-beta"] = ",".join([*BETA_OAUTH, *betas])
        base["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        base["x-app"] = "cli"
    else:
        base["anthropic-beta"] = ",".join(betas)
    return merge_headers(base, model.headers, options.headers)


def api_key_header(api_key: str | None, oauth: bool) -> dict[str, str]:
    """Anthropic-compatible servers (MiniMax, Kimi, proxies) authenticate with ``x-api-key``; the SDK
    itself only sends ``Authorization: Bearer``, so API keys get both. OAuth tokens stay Bearer-only."""
    return {} if oauth or not api_key else {"x-api-key": api_key}
