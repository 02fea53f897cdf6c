"""Cross-provider message transform (spec §2.9), applied by every adapter before building a request."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pi_app.ai.deferred import materialize
from pi_app.ai.types import AssistantMessage, Model, TextContent, ToolCall, ToolResultMessage

NormalizeId = Callable[[str, Model, AssistantMessage], str]


def _is_same_model(msg: AssistantMessage, model: Model) -> bool:
    return msg.provider == model.provider and msg.api == model.api and msg.model == model.id


def _transform_assistant(
    msg: AssistantMessage, model: Model, normalize: NormalizeId | None, id_map: dict[str, str]
) -> AssistantMessage:
    same = _is_same_model(msg, model)
    if same:
        # The usual case when resuming with the same model: only thinking blocks can change.
        for block in msg.content:
            if block.type == "thinking":
                break
        else:
            return msg
    content: list[Any] = []
    for block in msg.content:
        if block.type == "thinking":
            if block.redacted:
                if same:
                    content.append(block)
                continue
            # Same model: a signed block is replayed even when empty (encrypted reasoning).
            if same and block.thinkingSignature:
                content.append(block)
                continue
            if not block.thinking or not block.thinking.strip():
                continue
            content.append(block if same else TextContent(text=block.thinking))
        elif block.type == "text":
            content.append(block if same else TextContent(text=block.text))
        elif block.type == "toolCall":
            call = block
            if not same and call.thoughtSignature:
                call = call.model_copy(update={"thoughtSignature": None})
            if not same and normalize is not None:
                new_id = normalize(call.id, model, msg)
                if new_id != call.id:
                    id_map[call.id] = new_id
                    call = call.model_copy(update={"id": new_id})
            content.append(call)
        else:
            content.append(block)
    # Unchanged (the usual case when resuming with the same model): no copy, which on a 50k-message
    # transcript would allocate a model per assistant turn for nothing.
    if len(content) == len(msg.content) and all(a is b for a, b in zip(content, msg.content, strict=True)):
        return msg
    return msg.model_copy(update={"content": content})


def _synthetic_results(pending: list[ToolCall], seen: set[str]) -> list[ToolResultMessage]:
    return [
        ToolResultMessage(
            toolCallId=tc.id,
            toolName=tc.name,
            content=[TextContent(text="No result provided")],
            isError=True,
        )
        for tc in pending
        if tc.id not in seen
    ]


@dataclass
class TransformState:
    """What the transform carries from one message to the next, left as it ended after a pass.

    A transcript transformed in two parts (see ``pi_app.ai.providers.split_build``) is the same as one
    transformed whole only where the first part ended with no tool call waiting and none of its id
    renames applies to a result in the second: :attr:`results` (every result's tool-call id, as stored)
    is what the second part gives for that check."""

    id_map: dict[str, str] = field(default_factory=dict)  # tool-call id -> normalised id
    pending: list[ToolCall] = field(default_factory=list)  # calls of the last assistant turn...
    seen: set[str] = field(default_factory=set)  # ...and which of them have a result so far
    results: set[str] = field(default_factory=set)

    def summary(self, first: bool) -> TransformEnd:
        """Where the pass ended, as :func:`parts_join` compares it: of a first part, whether a tool call is
        still without its result and the tool-call ids it renamed; of a second, the stored ids of the
        results it read."""
        if first:
            return TransformEnd(any(call.id not in self.seen for call in self.pending), list(self.id_map), [])
        return TransformEnd(False, [], list(self.results))


class TransformEnd(NamedTuple):
    """:meth:`TransformState.summary`: plain values, so that it can cross a pipe."""

    waiting: bool  # a tool call still without its result
    renamed: list[str]  # tool-call ids renamed
    results: list[str]  # tool-call ids of the results read


def parts_join(first_waiting: bool, first_renamed: list[str], second_results: list[str]) -> bool:
    """A second part transformed from a fresh state is what one pass would have made of it after the first:
    no call of the first is left waiting (one pass adds a result for it at the next turn), and no id the
    first renamed has a result in the second."""
    return not first_waiting and not set(first_renamed) & set(second_results)


def transform_messages(
    messages: Iterable[Any], model: Model, normalize_tool_call_id: NormalizeId | None = None
) -> list[Any]:
    """Make a transcript safe to send to ``model`` (:func:`iter_transformed_messages`, as a list)."""
    return list(iter_transformed_messages(messages, model, normalize_tool_call_id))


def iter_transformed_messages(
    messages: Iterable[Any],
    model: Model,
    normalize_tool_call_id: NormalizeId | None = None,
    state: TransformState | None = None,
) -> Iterator[Any]:
    """Make a transcript safe to send to ``model``, one message at a time (nothing is held but the tool
    calls still waiting for their results, so a request can stream from a 50k-message history).

    Thinking from other models becomes plain text (or is dropped when redacted/empty), Google thought
    signatures are stripped across models, tool-call ids are optionally normalised (and results remapped),
    errored/aborted assistant turns are skipped, and tool calls left without a result get a synthetic
    error result (before the next assistant or user message) so every API accepts the history.
    ``state`` (fresh by default) is left as the pass ended.
    """
    if state is None:
        state = TransformState()
    id_map, pending, seen, results = state.id_map, state.pending, state.seen, state.results
    for msg in materialize(messages):  # a resumed message is typed here, for this request only
        role = msg.role
        if role == "assistant":
            # Transformed even when skipped below: its normalised ids still apply to its results.
            msg = _transform_assistant(msg, model, normalize_tool_call_id, id_map)
            if pending:
                yield from _synthetic_results(pending, seen)
                pending, seen = [], set()
            if msg.stopReason in ("error", "aborted"):
                continue
            calls = [b for b in msg.content if b.type == "toolCall"]
            if calls:
                pending, seen = calls, set()
            yield msg
        elif role == "toolResult":
            results.add(msg.toolCallId)
            if msg.toolCallId in id_map:
                msg = msg.model_copy(update={"toolCallId": id_map[msg.toolCallId]})
            seen.add(msg.toolCallId)
            yield msg
        elif role == "user":
            if pending:
                yield from _synthetic_results(pending, seen)
                pending, seen = [], set()
            yield msg
        else:
            yield msg
    state.pending, state.seen = pending, seen
