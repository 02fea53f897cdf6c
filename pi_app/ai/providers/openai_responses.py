"""OpenAI Responses adapter (``openai-responses``).

Reasoning is requested with encrypted content and ``store: false``, so nothing lives server-side: each
reasoning item is kept whole (as JSON) in the thinking block's ``thinkingSignature`` and sent back
verbatim on the next request. Assistant text carries its message id in ``textSignature``
(``{"v":1,"id":...}``) and tool-call ids are ``call_id|item_id``, so a transcript replays exactly.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pi_app.ai.builder import MessageBuilder
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.json_parse import js_json
from pi_app.ai.models import provider_thinking_value
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.http_common import client_warm_up
from pi_app.ai.providers.json_body import EncodedArray
from pi_app.ai.providers.openai_common import (
    cache_retention,
    close_client,
    default_max_tokens,
    error_text,
    iterate_stream,
    make_client,
    open_stream,
    opt_field,
    reasoning_effort,
    req_field,
    request_params,
    resolve_api_key,
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
from pi_app.ai.types import AssistantMessage, Context, Model, Usage

# Providers whose tool-call ids are Responses ids we may rewrite to what the API accepts.
OPENAI_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
JUICE_OFF = "# Juice: 0 !important"  # tells gpt-5 models not to reason when no effort was asked for


# ---------------------------------------------------------------- signatures and ids


def encode_text_signature(msg_id: str, phase: str | None = None) -> str:
    payload: dict[str, Any] = {"v": 1, "id": msg_id}
    if phase:
        payload["phase"] = phase
    return json.dumps(payload, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str, str | None] | None:
    """(message id, phase) from a v1 JSON signature or a legacy bare-id string."""
    if not signature:
        return None
    if signature.startswith("{"):
        try:
            data = json.loads(signature)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("v") == 1 and isinstance(data.get("id"), str):
            phase = data.get("phase")
            return data["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _clean_id(part: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in part)


def _normalizer(model: Model) -> Any:
    def normalize(call_id: str, _model: Model, _msg: Any) -> str:
        if model.provider not in OPENAI_TOOL_CALL_PROVIDERS or "|" not in call_id:
            return call_id
        head, item = call_id.split("|", 1)
        head, item = _clean_id(head), _clean_id(item)
        if not item.startswith("fc"):
            item = f"fc_{item}"  # the API requires function-call item ids to start with "fc"
        # At most 64 characters, no trailing underscores (Codex rejects them).
        return f"{head[:64].rstrip('_')}|{item[:64].rstrip('_')}"

    return normalize


# ---------------------------------------------------------------- request


def _input_image(block: Any) -> dict[str, Any]:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mimeType};base64,{block.data}",
    }


@dataclass
class _InputState:
    """Whether a pass named an assistant text by its position in the transcript (``msg_<index>``, for text
    with no stored id): a part that did could not have been encoded apart from what came before it."""

    numbered: bool = False


def _assistant_items(
    msg: AssistantMessage, model: Model, msg_index: int, state: _InputState | None = None
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    # Same provider/API but another model: omit fc_ item ids, or the API checks them against reasoning
    # items it paired them with.
    other_model = msg.model != model.id and msg.provider == model.provider and msg.api == model.api
    for block in msg.content:
        if block.type == "thinking":
            if block.thinkingSignature:
                try:
                    items.append(json.loads(block.thinkingSignature))
                except ValueError:
                    pass  # not a Responses reasoning item: nothing we can replay
        elif block.type == "text":
            parsed = parse_text_signature(block.textSignature)
            if parsed:
                msg_id = parsed[0]
            else:
                msg_id = f"msg_{msg_index}"
                if state is not None:
                    state.numbered = True
            if len(msg_id) > 64:
                msg_id = f"msg_{_short_hash(msg_id)}"
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": sanitize(block.text), "annotations": []}],
                "status": "completed",
                "id": msg_id,
            }
            if parsed and parsed[1]:
                item["phase"] = parsed[1]
            items.append(item)
        elif block.type == "toolCall":
            call_id, _, item_id = block.id.partition("|")
            call: dict[str, Any] = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                "arguments": js_json(block.arguments),
            }
            if item_id and not (other_model and item_id.startswith("fc_")):
                call["id"] = item_id
            items.append(call)
    return items


def _tool_output(msg: Any, accepts_images: bool) -> str | list[dict[str, Any]]:
    text = text_of(msg.content, "\n")
    images = [b for b in msg.content if b.type == "image"]
    if images and accepts_images:
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": sanitize(text)}] if text else []
        parts.extend(_input_image(b) for b in images)
        return parts
    return sanitize(text or "(see attached image)")


def convert_responses_input(
    model: Model, system_prompt: str, messages: Iterable[Any]
) -> list[dict[str, Any]]:
    """Responses ``input`` items for an already-transformed transcript."""
    return list(iter_responses_input(model, system_prompt, messages))


def iter_responses_input(
    model: Model, system_prompt: str, messages: Iterable[Any], state: _InputState | None = None
) -> Iterator[dict[str, Any]]:
    """Responses ``input`` items for an already-transformed transcript, one message at a time (``state``,
    when given, notes what :class:`_InputState` says)."""
    role = "developer" if model.reasoning else "system"
    accepts_images = "image" in model.input
    if system_prompt:
        yield {"role": role, "content": sanitize(system_prompt)}
    msg_index = 0
    for msg in messages:
        if msg.role == "system":  # mid-conversation instruction, kept in place
            yield {"role": role, "content": sanitize(system_text(msg))}
        elif msg.role == "user":
            if isinstance(msg.content, str):
                parts = [{"type": "input_text", "text": sanitize(msg.content)}]
            else:
                parts = [
                    {"type": "input_text", "text": sanitize(b.text)} if b.type == "text" else _input_image(b)
                    for b in msg.content
                    if b.type == "text" or accepts_images
                ]
            if not parts:
                continue
            yield {"role": "user", "content": parts}
        elif msg.role == "assistant":
            items = _assistant_items(msg, model, msg_index, state)
            if not items:
                continue
            yield from items
        elif msg.role == "toolResult":
            yield {
                "type": "function_call_output",
                "call_id": msg.toolCallId.split("|", 1)[0],
                "output": _tool_output(msg, accepts_images),
            }
        msg_index += 1


def build_responses_params(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The request body (pure)."""
    return _build_params(model, context, options, encoded=False)


def build_responses_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """:func:`build_responses_params` with ``input`` as an :class:`EncodedArray` built in one pass
    (transform, convert, encode per message; only the bytes are kept). For a body no payload hook sees.
    Raises ValueError for an item that cannot be encoded."""
    return _build_params(model, context, options, encoded=True)


class _PartEnd(NamedTuple):
    """Where a part of the transcript ended (plain values: a first part's comes back from the child as a
    plain tuple): the transform's summary (:class:`TransformEnd`), then whether it named a text by its
    position (:class:`_InputState`)."""

    waiting: bool
    renamed: list[str]
    results: list[str]
    numbered: bool


def _encode_part(
    model: Model, transcript: ResolvedTranscript, part: Sequence[Any], first: bool
) -> tuple[EncodedArray, _PartEnd]:
    """One part of the transcript encoded from a fresh state (the system prompt opens the first)."""
    ended, converted = TransformState(), _InputState()
    messages = iter_transformed_messages(part, model, _normalizer(model), ended)
    prompt = transcript.system_prompt if first else ""
    array = EncodedArray(iter_responses_input(model, prompt, messages, converted))
    return array, _PartEnd(*ended.summary(first), numbered=converted.numbered)


def _parts_join(first: _PartEnd, second: _PartEnd) -> bool:
    """The second part, encoded from a fresh state, is what one pass would have made of it after the first:
    the transform's condition, and no text of the second named by its position (which counts the first's)."""
    a, b = _PartEnd(*first), _PartEnd(*second)
    return parts_join(a.waiting, a.renamed, b.results) and not b.numbered


def _build_params(model: Model, context: Context, options: StreamOptions, encoded: bool) -> dict[str, Any]:
    transcript = resolve_transcript(context, supports_mid_convo_system(model.api, model.compat))
    items: EncodedArray | list[dict[str, Any]]
    if encoded:

        def part(messages: Sequence[Any], first: bool) -> tuple[EncodedArray, _PartEnd]:
            return _encode_part(model, transcript, messages, first)

        split = encode_split(
            transcript.messages,
            part,
            _parts_join,
            client_warm_up(model.baseUrl, 0.55, "openai", "AsyncOpenAI"),
        )
        items = split.array if split is not None else part(transcript.messages, True)[0]
    else:
        messages = iter_transformed_messages(transcript.messages, model, _normalizer(model))
        items = list(iter_responses_input(model, transcript.system_prompt, messages))
    retention = cache_retention(options)
    params: dict[str, Any] = {"model": model.id, "input": items, "stream": True}
    if options.session_id and retention != "none":
        params["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in (model.baseUrl or ""):
        params["prompt_cache_retention"] = "24h"
    params["store"] = False
    params["max_output_tokens"] = default_max_tokens(model, options)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if transcript.tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in transcript.tools
        ]
    if model.reasoning:
        effort = reasoning_effort(model, options.reasoning)
        if effort:
            params["reasoning"] = {"effort": effort, "summary": "auto"}
            params["include"] = ["reasoning.encrypted_content"]
        elif (off := provider_thinking_value(model, "off")) is not None:
            params["reasoning"] = {"effort": off}  # thinking off, in the model's own value (e.g. "none")
        elif model.name.startswith("gpt-5"):
            juice = {"role": "developer", "content": [{"type": "input_text", "text": JUICE_OFF}]}
            items.append(juice)  # (an EncodedArray encodes it)
    return params


# ---------------------------------------------------------------- response


_STATUS = {"completed": "stop", "incomplete": "length", "failed": "error", "cancelled": "error"}


def parse_responses_usage(raw: Any) -> Usage:
    """input_tokens includes cached tokens: input is the uncached part."""
    details = opt_field(raw, "input_tokens_details")
    cached = (opt_field(details, "cached_tokens") if details is not None else 0) or 0
    return Usage(
        input=(opt_field(raw, "input_tokens") or 0) - cached,
        output=opt_field(raw, "output_tokens") or 0,
        cacheRead=cached,
    )


def _dump_item(item: Any) -> dict[str, Any]:
    # Exactly the fields the server sent, so the item replays unchanged.
    return item.model_dump(mode="json", exclude_unset=True) if hasattr(item, "model_dump") else dict(item)


class _EventReader:
    """Turns Responses stream events into builder events; output items are tracked by output_index.

    An event is its JSON as parsed (dicts and lists): the SDK would type each one through its union of
    ~50 event models, whose discriminator it builds by extracting every variant's schema (~1 s of CPU on
    a run's first event). Fields are read as its models read them (:func:`opt_field`, :func:`req_field`).
    """

    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.items: dict[int, int] = {}  # output_index -> content index
        self.summary_parts: dict[int, int] = {}
        self.final_args: dict[int, str] = {}
        self.stop_reason = "stop"

    def handle(self, ev: Any) -> list[AssistantMessageEvent]:
        t = req_field(ev, "type")
        b = self.b
        out: list[AssistantMessageEvent] = []
        pos = opt_field(ev, "output_index")
        idx = self.items.get(pos) if pos is not None else None
        if t == "response.output_item.added":
            item = req_field(ev, "item")
            start: AssistantMessageEvent
            kind = req_field(item, "type")
            if kind == "reasoning":
                idx, start = b.begin_thinking()
            elif kind == "message":
                idx, start = b.begin_text()
            elif kind == "function_call":
                call = f"{req_field(item, 'call_id')}|{req_field(item, 'id')}"
                idx, start = b.begin_tool_call(
                    call, req_field(item, "name"), req_field(item, "arguments") or ""
                )
            else:
                return out  # web search and other hosted tools: not ours to show
            if pos is not None:  # an item without a position cannot receive deltas
                self.items[pos] = idx
            out.append(start)
        elif idx is None:
            pass
        elif t == "response.reasoning_summary_part.added":
            count = self.summary_parts.get(idx, 0)
            self.summary_parts[idx] = count + 1
            if count:  # separate summary parts the way the final text joins them
                out.append(b.thinking_delta(idx, "\n\n"))
        elif t == "response.reasoning_summary_text.delta":
            out.append(b.thinking_delta(idx, req_field(ev, "delta")))
        elif t in ("response.output_text.delta", "response.refusal.delta"):
            out.append(b.text_delta(idx, req_field(ev, "delta")))
        elif t == "response.function_call_arguments.delta":
            out.append(b.tool_delta(idx, req_field(ev, "delta")))
        elif t == "response.function_call_arguments.done":
            self.final_args[idx] = req_field(ev, "arguments")
        elif t == "response.output_item.done":
            out.append(self._item_done(idx, req_field(ev, "item")))
        return out

    def _item_done(self, idx: int, item: Any) -> AssistantMessageEvent:
        block = self.b.msg.content[idx]
        if block.type == "thinking":
            block.thinking = "\n\n".join(req_field(s, "text") for s in (opt_field(item, "summary") or []))
            return self.b.end_thinking(idx, signature=js_json(_dump_item(item)))
        if block.type == "text":
            parts = opt_field(item, "content") or []
            block.text = "".join(
                (req_field(p, "text") if req_field(p, "type") == "output_text" else opt_field(p, "refusal"))
                or ""
                for p in parts
            )
            return self.b.end_text(
                idx, signature=encode_text_signature(req_field(item, "id"), opt_field(item, "phase"))
            )
        raw = self.final_args.get(idx) or self.b.tool_json(idx) or opt_field(item, "arguments") or ""
        try:
            args = json.loads(raw) if raw.strip() else {}
        except ValueError:
            args = None  # let the builder fall back to best-effort parsing of what streamed
        return self.b.end_tool_call(idx, args if isinstance(args, dict) else None)

    def finish(self, response: Any) -> None:
        usage = opt_field(response, "usage")
        if usage is not None:
            self.b.msg.usage = parse_responses_usage(usage)
        if opt_field(response, "id"):
            self.b.msg.responseId = req_field(response, "id")
        status = opt_field(response, "status")
        self.stop_reason = _STATUS.get(status or "", "stop")
        has_calls = any(block.type == "toolCall" for block in self.b.msg.content)
        if has_calls and self.stop_reason == "stop":
            self.stop_reason = "toolUse"


def _failure_text(ev: Any) -> str:
    if req_field(ev, "type") == "error":
        # (the SDK's error event declares ``message``: one the server left out read as None)
        return f"Error Code {opt_field(ev, 'code')}: {opt_field(ev, 'message')}"
    response = opt_field(ev, "response")
    err = opt_field(response, "error")
    if err is not None:
        return f"{opt_field(err, 'code') or 'unknown'}: {opt_field(err, 'message') or 'no message'}"
    details = opt_field(response, "incomplete_details")
    if details is not None and opt_field(details, "reason"):
        return f"incomplete: {req_field(details, 'reason')}"
    return "Unknown error (no error details in response)"


async def stream_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    b = MessageBuilder(model)
    yield b.start()
    client = None
    try:
        params = await request_params(model, context, options, build_responses_body, build_responses_params)
        client = make_client(model, options, resolve_api_key(model, options))
        # events as parsed JSON (see _EventReader): no SDK model is built for them
        sdk_stream = await open_stream(client, "/responses", params, object, object, options)
        reader = _EventReader(b)
        async with contextlib.aclosing(iterate_stream(sdk_stream, options)) as events:
            async for ev in events:
                etype = opt_field(ev, "type")
                if etype in ("error", "response.failed"):
                    raise RuntimeError(_failure_text(ev))
                if etype in ("response.completed", "response.incomplete"):
                    reader.finish(req_field(ev, "response"))
                    continue
                for out in reader.handle(ev):
                    yield out
        for out in b.close_open_blocks():
            yield out
        if options.signal is not None and options.signal.aborted:
            yield b.error("Request was aborted", aborted=True)
        elif reader.stop_reason == "error":
            yield b.error("An unknown error occurred")
        else:
            yield b.done(reader.stop_reason)
    except Exception as exc:  # noqa: BLE001 - contract: failures become an error event
        yield b.fail(exc, options.signal, lambda e: error_text(e, options))
    finally:
        await close_client(client)
