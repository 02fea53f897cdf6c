"""Builders for the OpenAI wire formats, for scripting the loopback server.

Chat Completions: ``data: {chunk}`` frames ending with ``data: [DONE]``. Responses: named events
(``event: response.output_text.delta``) whose data carries ``type`` and ``sequence_number``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.loopback.server import Scripted, json_response, sse

# ---------------------------------------------------------------- chat completions


def chat_chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    *,
    choices: bool = True,
    model: str = "test-model",
) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}] if choices else [],
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def chat_usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def tool_delta(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict:
    fn: dict[str, Any] = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    call: dict[str, Any] = {"index": index, "function": fn}
    if id is not None:
        call["id"] = id
        call["type"] = "function"
    return {"tool_calls": [call]}


def chat_frames(*chunks: dict[str, Any], done: bool = True) -> list[bytes]:
    frames = sse(*((None, c) for c in chunks))
    if done:
        frames += sse((None, "[DONE]"))
    return frames


def chat_stream(*chunks: dict[str, Any], done: bool = True) -> Scripted:
    return Scripted(chunks=chat_frames(*chunks, done=done))


def chat_text_stream(*pieces: str, finish: str = "stop", usage: dict[str, Any] | None = None) -> Scripted:
    chunks = [chat_chunk({"role": "assistant", "content": ""})]
    chunks += [chat_chunk({"content": p}) for p in pieces]
    chunks.append(chat_chunk({}, finish))
    if usage is not None:
        chunks.append(chat_chunk(usage=usage, choices=False))
    return chat_stream(*chunks)


def api_error(status: int, message: str, **extra: Any) -> Scripted:
    return json_response(status, {"error": {"message": message, "type": "invalid_request_error", **extra}})


# ---------------------------------------------------------------- responses


class ResponsesWire:
    """Accumulates a Responses event stream; output items get consecutive output indices."""

    def __init__(self, response_id: str = "resp_1", model: str = "test-model") -> None:
        self.response_id = response_id
        self.model = model
        self.events: list[dict[str, Any]] = []
        self.output: list[dict[str, Any]] = []
        self.emit("response.created", response=self._response("in_progress"))

    def _response(self, status: str, usage: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        resp: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": 1700000000,
            "status": status,
            "model": self.model,
            "output": list(self.output),
        }
        if usage is not None:
            resp["usage"] = usage
        resp.update(extra)
        return resp

    def emit(self, type_: str, **data: Any) -> ResponsesWire:
        self.events.append({"type": type_, "sequence_number": len(self.events), **data})
        return self

    def reasoning(
        self, *summaries: list[str], item_id: str = "rs_1", encrypted: str = "ENC"
    ) -> ResponsesWire:
        """A reasoning item; each summary is a list of text deltas."""
        pos = len(self.output)
        self.emit(
            "response.output_item.added",
            output_index=pos,
            item={"id": item_id, "type": "reasoning", "summary": []},
        )
        parts = []
        for si, deltas in enumerate(summaries):
            common = {"item_id": item_id, "output_index": pos, "summary_index": si}
            self.emit(
                "response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""}
            )
            for d in deltas:
                self.emit("response.reasoning_summary_text.delta", **common, delta=d)
            text = "".join(deltas)
            self.emit("response.reasoning_summary_text.done", **common, text=text)
            self.emit(
                "response.reasoning_summary_part.done", **common, part={"type": "summary_text", "text": text}
            )
            parts.append({"type": "summary_text", "text": text})
        item = {"id": item_id, "type": "reasoning", "summary": parts, "encrypted_content": encrypted}
        self.emit("response.output_item.done", output_index=pos, item=item)
        self.output.append(item)
        return self

    def message(self, *deltas: str, item_id: str = "msg_1") -> ResponsesWire:
        pos = len(self.output)
        added = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        self.emit("response.output_item.added", output_index=pos, item=added)
        common = {"item_id": item_id, "output_index": pos, "content_index": 0}
        self.emit(
            "response.content_part.added",
            **common,
            part={"type": "output_text", "text": "", "annotations": []},
        )
        for d in deltas:
            self.emit("response.output_text.delta", **common, delta=d, logprobs=[])
        text = "".join(deltas)
        self.emit("response.output_text.done", **common, text=text, logprobs=[])
        part = {"type": "output_text", "text": text, "annotations": []}
        self.emit("response.content_part.done", **common, part=part)
        item = {**added, "status": "completed", "content": [part]}
        self.emit("response.output_item.done", output_index=pos, item=item)
        self.output.append(item)
        return self

    def function_call(self, call_id: str, item_id: str, name: str, *arg_chunks: str) -> ResponsesWire:
        pos = len(self.output)
        added = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        }
        self.emit("response.output_item.added", output_index=pos, item=added)
        for chunk in arg_chunks:
            self.emit(
                "response.function_call_arguments.delta", item_id=item_id, output_index=pos, delta=chunk
            )
        args = "".join(arg_chunks)
        self.emit("response.function_call_arguments.done", item_id=item_id, output_index=pos, arguments=args)
        item = {**added, "status": "completed", "arguments": args}
        self.emit("response.output_item.done", output_index=pos, item=item)
        self.output.append(item)
        return self

    def completed(
        self, input_tokens: int = 10, output_tokens: int = 5, cached: int = 0, status: str = "completed"
    ):
        usage = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        }
        name = "response.completed" if status == "completed" else f"response.{status}"
        return self.emit(name, response=self._response(status, usage))

    def failed(self, code: str, message: str) -> ResponsesWire:
        return self.emit(
            "response.failed", response=self._response("failed", error={"code": code, "message": message})
        )

    def frames(self) -> list[bytes]:
        return sse(*((e["type"], e) for e in self.events))

    def scripted(self) -> Scripted:
        return Scripted(chunks=self.frames())


def frame_json(frame: bytes) -> Any:
    """The JSON data of one SSE frame (helper for assertions)."""
    data = [line[6:] for line in frame.decode().splitlines() if line.startswith("data: ")]
    return json.loads(data[0])
