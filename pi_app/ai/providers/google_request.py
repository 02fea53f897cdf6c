"""Request building for Gemini's ``streamGenerateContent`` REST API (pure functions, no HTTP).

pi messages become ``contents`` (roles ``user``/``model``) with text, ``inlineData`` images, ``thought``
parts, ``functionCall``/``functionResponse`` parts and thought signatures; tools become
``functionDeclarations``; thinking levels map to ``thinkingConfig`` (spec §2.8).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pi_app.ai.models import provider_thinking_value
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.http_common import default_max_tokens, merge_headers, sanitize_surrogates
from pi_app.ai.providers.json_body import EncodedArray
from pi_app.ai.providers.split_build import Meanwhile, encode_split
from pi_app.ai.text import text_of
from pi_app.ai.transcript import ResolvedTranscript, system_text
from pi_app.ai.transform import TransformState, iter_transformed_messages, parts_join
from pi_app.ai.types import AssistantMessage, Model, Tool

# Gemini accepts this in place of a thought signature on function calls it did not sign itself
# (e.g. calls replayed from another provider); Gemini 3 otherwise rejects unsigned calls.
SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_BAD_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

_PRO_BUDGETS = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_FLASH_BUDGETS = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


def requires_tool_call_id(model_id: str) -> bool:
    """Non-Gemini models served through Google APIs need explicit ids on calls and responses."""
    return model_id.startswith("claude-") or model_id.startswith("gpt-oss-")


def normalize_tool_call_id(call_id: str, model: Model, *_: Any) -> str:
    if not requires_tool_call_id(model.id):
        return call_id
    return _BAD_ID_CHARS.sub("_", call_id)[:64]


def is_valid_thought_signature(signature: str | None) -> bool:
    if not signature:
        return False
    return len(signature) % 4 == 0 and _BASE64.match(signature) is not None


def _same_model(msg: AssistantMessage, model: Model) -> bool:
    return msg.provider == model.provider and msg.model == model.id


def _signature(same: bool, signature: str | None) -> str | None:
    return signature if same and is_valid_thought_signature(signature) else None


# ---------------------------------------------------------------- thinking
def _is_gemini3_pro(model_id: str) -> bool:
    return re.search(r"gemini-3(?:\.\d+)?-pro", model_id.lower()) is not None


def _is_gemini3_flash(model_id: str) -> bool:
    return re.search(r"gemini-3(?:\.\d+)?-flash", model_id.lower()) is not None


def thinking_config(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    """``thinkingConfig`` for the requested level, or None when reasoning is off/unsupported."""
    level = options.reasoning
    if not level or level == "off" or not model.reasoning:
        return None
    clamped = "high" if level in ("xhigh", "max") else level
    config: dict[str, Any] = {"includeThoughts": True}
    if (mapped := provider_thinking_value(model, level)) is not None:
        # The catalogue names the model's discrete level (Gemini 3+, Gemma 4).
        config["thinkingLevel"] = mapped.upper()
    elif _is_gemini3_pro(model.id):
        config["thinkingLevel"] = "LOW" if clamped in ("minimal", "low") else "HIGH"
    elif _is_gemini3_flash(model.id):
        config["thinkingLevel"] = clamped.upper()
    elif clamped in (options.thinking_budgets or {}):
        config["thinkingBudget"] = options.thinking_budgets[clamped]
    elif "2.5-pro" in model.id:
        config["thinkingBudget"] = _PRO_BUDGETS[clamped]
    elif "2.5-flash" in model.id:
        config["thinkingBudget"] = _FLASH_BUDGETS[clamped]
    else:
        config["thinkingBudget"] = -1  # dynamic: the model decides
    return config


# ---------------------------------------------------------------- contents
def _inline(block: Any) -> dict[str, Any]:
    return {"inlineData": {"mimeType": block.mimeType, "data": block.data}}


def _user_content(msg: Any, model: Model) -> dict[str, Any] | None:
    if isinstance(msg.content, str):
        return {"role": "user", "parts": [{"text": sanitize_surrogates(msg.content)}]}
    parts: list[dict[str, Any]] = []
    for item in msg.content:
        if item.type == "text":
            parts.append({"text": sanitize_surrogates(item.text)})
        elif item.type == "image" and "image" in model.input:
            parts.append(_inline(item))
    return {"role": "user", "parts": parts} if parts else None


def _model_content(msg: Any, model: Model) -> dict[str, Any] | None:
    same = _same_model(msg, model)
    gemini3 = "gemini-3" in model.id.lower()
    parts: list[dict[str, Any]] = []
    for block in msg.content:
        if block.type == "text":
            if not block.text.strip():
                continue
            part: dict[str, Any] = {"text": sanitize_surrogates(block.text)}
            if sig := _signature(same, block.textSignature):
                part["thoughtSignature"] = sig
            parts.append(part)
        elif block.type == "thinking":
            if not block.thinking.strip():
                continue
            if same:
                part = {"thought": True, "text": sanitize_surrogates(block.thinking)}
                if sig := _signature(same, block.thinkingSignature):
                    part["thoughtSignature"] = sig
            else:
                part = {"text": sanitize_surrogates(block.thinking)}
            parts.append(part)
        elif block.type == "toolCall":
            call: dict[str, Any] = {"name": block.name, "args": block.arguments or {}}
            if requires_tool_call_id(model.id):
                call["id"] = block.id
            part = {"functionCall": call}
            sig = _signature(same, block.thoughtSignature) or (SKIP_THOUGHT_SIGNATURE if gemini3 else None)
            if sig:
                part["thoughtSignature"] = sig
            parts.append(part)
    return {"role": "model", "parts": parts} if parts else None


def _tool_result_part(msg: Any, model: Model) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A tool result's ``functionResponse`` part, and the user turn its images go in after it (older
    models; Gemini 3 takes them inside the response)."""
    text = text_of(msg.content, "\n")
    images = [b for b in msg.content if b.type == "image"] if "image" in model.input else []
    nested_images = "gemini-3" in model.id
    value = sanitize_surrogates(text) if text else ("(see attached image)" if images else "")
    response: dict[str, Any] = {
        "name": msg.toolName,
        "response": {"error": value} if msg.isError else {"output": value},
    }
    if images and nested_images:
        response["parts"] = [_inline(b) for b in images]
    if requires_tool_call_id(model.id):
        response["id"] = msg.toolCallId
    images_turn = None
    if images and not nested_images:
        images_turn = {"role": "user", "parts": [{"text": "Tool result image:"}, *map(_inline, images)]}
    return {"functionResponse": response}, images_turn


@dataclass
class _ConvertState:
    """How a conversion pass opened and ended: what a part converted apart would do differently (the
    responses of consecutive tool results share one user turn, joined across the split in one pass)."""

    opens_with_result: bool = False  # a tool result came before anything else was sent
    ends_open: bool = False  # the last turn holds function responses that more could join


def iter_gemini_contents(
    messages: Iterable[Any], model: Model, state: _ConvertState | None = None
) -> Iterator[dict[str, Any]]:
    """Already-transformed pi messages → Gemini ``contents``, one at a time. All responses to one model turn
    go into a single user turn, which is held while more may join it (a message that sends nothing does not
    end it). ``state``, when given, notes how the pass opened and ended."""
    open_turn: dict[str, Any] | None = None  # the last turn, while it holds function responses
    opening = state
    for msg in messages:
        role = msg.role
        if role == "toolResult":
            if opening is not None:
                opening.opens_with_result, opening = True, None
            part, images_turn = _tool_result_part(msg, model)
            if open_turn is None:
                open_turn = {"role": "user", "parts": [part]}
            else:
                open_turn["parts"].append(part)
            if images_turn is not None:
                yield open_turn
                yield images_turn
                open_turn = None
            continue
        entry: dict[str, Any] | None = None
        if role == "user":
            entry = _user_content(msg, model)
        elif role == "assistant":
            entry = _model_content(msg, model)
        elif role == "system":
            # Only reachable when compat claims mid-conversation system support: keep it as user text.
            text = system_text(msg)
            if text.strip():
                entry = {"role": "user", "parts": [{"text": sanitize_surrogates(text)}]}
        if entry is None:
            continue
        opening = None
        if open_turn is not None:
            yield open_turn
            open_turn = None
        yield entry
    if state is not None:
        state.ends_open = open_turn is not None
    if open_turn is not None:
        yield open_turn


def convert_messages(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    """Already-transformed pi messages → Gemini ``contents``."""
    return list(iter_gemini_contents(messages, model))


class _PartEnd(NamedTuple):
    """Where a part of the transcript ended (plain values: a first part's comes back from the child as a
    plain tuple): the transform's summary (``TransformEnd``), then the conversion's (:class:`_ConvertState`)."""

    waiting: bool
    renamed: list[str]
    results: list[str]
    opens_with_result: bool
    ends_open: bool


def _encode_part(model: Model, part: Sequence[Any], first: bool) -> tuple[EncodedArray, _PartEnd]:
    """One part of the transcript transformed, converted and encoded from a fresh state."""
    ended, converted = TransformState(), _ConvertState()
    messages = iter_transformed_messages(part, model, normalize_tool_call_id, ended)
    array = EncodedArray(iter_gemini_contents(messages, model, converted))
    end = _PartEnd(
        *ended.summary(first), opens_with_result=converted.opens_with_result, ends_open=converted.ends_open
    )
    return array, end


def _parts_join(first: _PartEnd, second: _PartEnd) -> bool:
    """The second part, encoded from a fresh state, is what one pass would have made of it after the first:
    the transform's condition, and no turn of function responses that the second part's would join."""
    a, b = _PartEnd(*first), _PartEnd(*second)
    return parts_join(a.waiting, a.renamed, b.results) and not (a.ends_open and b.opens_with_result)


def convert_tools(tools: list[Tool]) -> list[dict[str, Any]] | None:
    if not tools:
        return None
    declarations = [
        {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters} for t in tools
    ]
    return [{"functionDeclarations": declarations}]


def build_payload(
    model: Model, transcript: ResolvedTranscript, messages: list[Any], options: StreamOptions
) -> dict[str, Any]:
    """The request body for already-transformed ``messages``, as plain dicts and lists (what a payload hook
    sees)."""
    return _payload(model, transcript, convert_messages(messages, model), options)


def build_encoded_payload(
    model: Model, transcript: ResolvedTranscript, options: StreamOptions, meanwhile: Meanwhile | None = None
) -> dict[str, Any]:
    """:func:`build_payload` for the transcript with ``contents`` as an :class:`EncodedArray`: each message
    transformed, converted and encoded in one pass, only its bytes kept (a long transcript on two cores:
    ``split_build``, with ``meanwhile`` done here while the child encodes). For a body no payload hook sees.
    Raises ValueError for what cannot be encoded."""

    def part(messages: Sequence[Any], first: bool) -> tuple[EncodedArray, _PartEnd]:
        return _encode_part(model, messages, first)

    split = encode_split(transcript.messages, part, _parts_join, meanwhile)
    contents = split.array if split is not None else part(transcript.messages, True)[0]
    return _payload(model, transcript, contents, options)


def _payload(
    model: Model,
    transcript: ResolvedTranscript,
    contents: list[dict[str, Any]] | EncodedArray,
    options: StreamOptions,
) -> dict[str, Any]:
    generation: dict[str, Any] = {"maxOutputTokens": default_max_tokens(model, options)}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    if (thinking := thinking_config(model, options)) is not None:
        generation["thinkingConfig"] = thinking
    payload: dict[str, Any] = {"contents": contents, "generationConfig": generation}
    if transcript.system_prompt:
        payload["systemInstruction"] = {"parts": [{"text": sanitize_surrogates(transcript.system_prompt)}]}
    if (tools := convert_tools(transcript.tools)) is not None:
        payload["tools"] = tools
    return payload


def build_url(model: Model) -> str:
    base = (model.baseUrl or "https://generativelanguage.googleapis.com/v1beta").rstrip("/")
    return f"{base}/models/{model.id}:streamGenerateContent?alt=sse"


def build_headers(model: Model, options: StreamOptions, api_key: str) -> dict[str, str]:
    base = {"content-type": "application/json", "accept": "text/event-stream", "x-goog-api-key": api_key}
    return merge_headers(base, model.headers, options.headers)
