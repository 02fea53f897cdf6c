"""OpenAI Chat Completions adapter (``openai-completions``): OpenAI and every compatible server.

The request is built by :mod:`pi_app.ai.providers.openai_completions_request` (compat flags, conversion,
the body); this module streams the answer, assembling tool calls by their ``index`` so parallel calls with
interleaved deltas stay apart.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from pi_app.ai.builder import MessageBuilder
from pi_app.ai.events import AssistantMessageEvent
from pi_app.ai.json_parse import js_json
from pi_app.ai.options import StreamOptions
from pi_app.ai.providers.openai_common import (
    close_client,
    error_text,
    iterate_stream,
    make_client,
    open_stream,
    opt_field,
    req_field,
    request_params,
    resolve_api_key,
)
from pi_app.ai.providers.openai_completions_request import build_completions_body, build_completions_params
from pi_app.ai.types import Context, Model, ToolCall, Usage

# ---------------------------------------------------------------- response


_FINISH_REASONS = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}
_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")


def map_finish_reason(reason: str | None) -> tuple[str, str | None]:
    """(stopReason, errorMessage). Unknown reasons (content_filter, z.ai's
    model_context_window_exceeded, ...) are errors that name the reason, so overflow detection sees it."""
    if reason is None:
        return "stop", None
    mapped = _FINISH_REASONS.get(reason)
    if mapped:
        return mapped, None
    return "error", f"Provider finish_reason: {reason}"


def parse_completions_usage(raw: Any) -> Usage:
    """prompt_tokens includes cached tokens: input is the uncached part."""

    def get(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    details = get(raw, "prompt_tokens_details")
    cached = (get(details, "cached_tokens") if details is not None else 0) or 0
    return Usage(
        input=(get(raw, "prompt_tokens") or 0) - cached,
        output=get(raw, "completion_tokens") or 0,
        cacheRead=cached,
    )


class _ChunkReader:
    """Turns Chat Completions chunks into builder events.

    A chunk is the event's JSON as parsed (dicts and lists): the SDK's typed chunk models would cost
    ~80 ms of imports and schema building on a run's first chunk, and its models read absent fields as
    None and keep unknown ones raw, which :func:`opt_field`/:func:`req_field` do on the JSON itself."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.b = builder
        self.text_idx: int | None = None
        self.thinking_idx: int | None = None
        self.tools: dict[int, int] = {}  # wire tool-call index -> content index
        self.synthetic_ids: set[int] = set()
        self.stop_reason = "stop"
        self.error: str | None = None

    def _close_text_and_thinking(self, keep: str) -> list[AssistantMessageEvent]:
        out: list[AssistantMessageEvent] = []
        if keep != "text" and self.text_idx is not None:
            out.append(self.b.end_text(self.text_idx))
            self.text_idx = None
        if keep != "thinking" and self.thinking_idx is not None:
            out.append(self.b.end_thinking(self.thinking_idx))
            self.thinking_idx = None
        return out

    def handle(self, chunk: Any) -> list[AssistantMessageEvent]:
        out: list[AssistantMessageEvent] = []
        msg = self.b.msg
        chunk_id = opt_field(chunk, "id")
        if msg.responseId is None and chunk_id:
            msg.responseId = chunk_id
        served_by = opt_field(chunk, "model")
        if msg.responseModel is None and served_by and served_by != msg.model:
            msg.responseModel = served_by
        usage = opt_field(chunk, "usage")
        if usage:
            self.b.msg.usage = parse_completions_usage(usage)
        choices = opt_field(chunk, "choices") or []
        if not choices:
            return out
        choice = choices[0]
        choice_usage = opt_field(choice, "usage")  # Moonshot reports usage on the choice
        if choice_usage and not usage:
            self.b.msg.usage = parse_completions_usage(choice_usage)
        finish_reason = req_field(choice, "finish_reason")
        if finish_reason:
            self.stop_reason, self.error = map_finish_reason(finish_reason)
        delta = req_field(choice, "delta")
        if delta is None:
            return out
        content = req_field(delta, "content")
        if content:
            out += self._close_text_and_thinking("text")
            if self.text_idx is None:
                self.text_idx, text_start = self.b.begin_text()
                out.append(text_start)
            out.append(self.b.text_delta(self.text_idx, content))
        # Servers name the reasoning field differently; use the first one present (some send two copies).
        field = next((f for f in _REASONING_FIELDS if opt_field(delta, f)), None)
        if field is not None:
            out += self._close_text_and_thinking("thinking")
            if self.thinking_idx is None:
                self.thinking_idx, thinking_start = self.b.begin_thinking(signature=field)
                out.append(thinking_start)
            out.append(self.b.thinking_delta(self.thinking_idx, opt_field(delta, field)))
        for call in req_field(delta, "tool_calls") or ():
            out += self._tool_delta(call)
        details = opt_field(delta, "reasoning_details")
        if isinstance(details, list):
            self._attach_reasoning_details(details)
        return out

    def _tool_delta(self, call: Any) -> list[AssistantMessageEvent]:
        out = self._close_text_and_thinking("none")
        index = req_field(call, "index")
        call_id: str | None = req_field(call, "id")
        key = index if index is not None else self._key_without_index(call_id)
        fn = req_field(call, "function")
        # (an empty function object reads as no name and no arguments, as the SDK's model of it did)
        name = (req_field(fn, "name") if fn else None) or ""
        args = (req_field(fn, "arguments") if fn else None) or ""
        idx = self.tools.get(key)
        # Some servers reuse index 0 for every call; a different id means a new call.
        if idx is not None and call_id and idx not in self.synthetic_ids and self._call_at(idx).id != call_id:
            out.append(self.b.end_tool_call(idx))
            idx = None
        if idx is None:
            idx, ev = self.b.begin_tool_call(call_id or f"call_{uuid.uuid4().hex[:24]}", name)
            if not call_id:
                self.synthetic_ids.add(idx)
            self.tools[key] = idx
            out.append(ev)
        else:
            block = self._call_at(idx)
            if call_id and idx in self.synthetic_ids:
                block.id = call_id
                self.synthetic_ids.discard(idx)
            if name and not block.name:
                block.name = name
        out.append(self.b.tool_delta(idx, args))
        return out

    def _call_at(self, idx: int) -> ToolCall:
        block = self.b.msg.content[idx]
        assert isinstance(block, ToolCall), "self.tools indexes tool-call blocks only"
        return block

    def _key_without_index(self, call_id: str | None) -> int:
        """Servers that omit ``index``: a known id continues its call, a new id starts one, no id
        continues the latest call."""
        if call_id:
            for key, idx in self.tools.items():
                if self._call_at(idx).id == call_id:
                    return key
            return len(self.tools)
        return max(self.tools) if self.tools else 0

    def _attach_reasoning_details(self, details: list[Any]) -> None:
        for detail in details:
            d = detail if isinstance(detail, dict) else getattr(detail, "__dict__", {})
            if d.get("type") == "reasoning.encrypted" and d.get("id") and d.get("data"):
                for block in self.b.msg.content:
                    if block.type == "toolCall" and block.id == d["id"]:
                        block.thoughtSignature = js_json(d)


async def stream_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    b = MessageBuilder(model)
    yield b.start()
    client = None
    try:
        params = await request_params(
            model, context, options, build_completions_body, build_completions_params
        )
        client = make_client(model, options, resolve_api_key(model, options))
        # chunks as parsed JSON (see _ChunkReader): no SDK model is built for them
        sdk_stream = await open_stream(client, "/chat/completions", params, object, object, options)
        reader = _ChunkReader(b)
        async with contextlib.aclosing(iterate_stream(sdk_stream, options)) as events:
            async for chunk in events:
                for ev in reader.handle(chunk):
                    yield ev
        for ev in b.close_open_blocks():
            yield ev
        if options.signal is not None and options.signal.aborted:
            yield b.error("Request was aborted", aborted=True)
        elif reader.stop_reason == "error":
            yield b.error(reader.error or "An unknown error occurred")
        else:
            yield b.done(reader.stop_reason)
    except Exception as exc:  # noqa: BLE001 - contract: failures become an error event
        yield b.fail(exc, options.signal, lambda e: error_text(e, options))
    finally:
        await close_client(client)
