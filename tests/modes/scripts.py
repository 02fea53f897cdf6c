"""One scripted exchange per wire API: a tool call, then a final text; built with tests/loopback builders."""

from __future__ import annotations

import json
from typing import Any

from tests.loopback import anthropic_wire as aw
from tests.loopback import google_wire as gw
from tests.loopback.openai_wire import ResponsesWire, chat_chunk, chat_stream, chat_text_stream, tool_delta
from tests.loopback.server import Scripted


def tool_call(api: str, call_id: str, name: str, args: dict[str, Any]) -> Scripted:
    """A response whose only content is one tool call."""
    raw = json.dumps(args)
    if api == "openai-completions":
        half = len(raw) // 2
        return chat_stream(
            chat_chunk({"role": "assistant", "content": None}),
            chat_chunk(tool_delta(0, id=call_id, name=name, args=raw[:half])),
            chat_chunk(tool_delta(0, args=raw[half:])),
            chat_chunk({}, "tool_calls"),
        )
    if api == "openai-responses":
        return ResponsesWire().function_call(call_id, f"fc_{call_id}", name, raw).completed().scripted()
    if api == "anthropic-messages":
        return aw.anthropic_ok(aw.tool_use_block(0, call_id, name, args), stop_reason="tool_use")
    if api == "google-generative-ai":
        return gw.gemini_ok(gw.chunk(gw.call_part(name, args, call_id), finish="STOP", usage_meta=gw.usage()))
    raise ValueError(api)


def text(api: str, content: str) -> Scripted:
    if api == "openai-completions":
        half = len(content) // 2
        return chat_text_stream(content[:half], content[half:])
    if api == "openai-responses":
        return ResponsesWire().message(content).completed().scripted()
    if api == "anthropic-messages":
        return aw.anthropic_ok(aw.text_block(0, content))
    if api == "google-generative-ai":
        return Scripted(chunks=gw.gemini_text_stream(content))
    raise ValueError(api)


def request_text(body: Any) -> str:
    """Everything a request sent, as text (to look for tool results and prompts)."""
    return json.dumps(body)
