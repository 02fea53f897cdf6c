"""The agent's request and tool hooks with the extensions' handlers composed in, as pi composes them:
``context`` and ``before_provider_request`` chain (each handler sees the previous one's output) after the
hook already installed; ``tool_call`` is a gate (the first block wins; a failing handler blocks: fail
closed); ``tool_result`` chains patches of the result."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi_app.ai.abort import AbortSignal
from pi_app.ai.options import payload_hook_active
from pi_app.ai.types import Model
from pi_app.extensions import events as ev
from pi_app.extensions.registry import Dispatch, get_field
from pi_app.extensions.tool_adapter import to_content
from pi_app.session.messages import AgentMessage


def chain_context(
    dispatch: Dispatch, inner: Callable[..., Any] | None
) -> Callable[[list[AgentMessage], AbortSignal | None], Awaitable[list[AgentMessage]]]:
    async def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        if inner is not None:
            result = inner(messages, signal)
            messages = await result if inspect.isawaitable(result) else result
        # A new list of the session's own message objects: copying every message on every request
        # would cost O(session) per turn, so handlers replace messages rather than change them.
        for ext, handler in dispatch.handlers("context"):
            ok, result = await dispatch.call(ext, handler, ev.ContextEvent(list(messages)), "context")
            new = get_field(result, "messages") if ok and result is not None else None
            if isinstance(new, list):
                messages = new
        return messages

    return transform


def chain_payload(
    dispatch: Dispatch, inner: Callable[..., Any] | None
) -> Callable[[dict[str, Any], Model], Awaitable[dict[str, Any] | None]]:
    async def on_payload(payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
        if inner is not None:
            result = inner(payload, model)
            result = await result if inspect.isawaitable(result) else result
            payload = result if isinstance(result, dict) else payload
        for ext, handler in dispatch.handlers("before_provider_request"):
            ok, result = await dispatch.call(
                ext, handler, ev.BeforeProviderRequestEvent(payload, model), "before_provider_request"
            )
            if ok and isinstance(result, dict):
                payload = result
        return payload

    # Nothing to run (no inner hook, no handler yet): the provider may build a body no hook sees.
    def wants_payload() -> bool:
        return payload_hook_active(inner) or dispatch.has_handlers("before_provider_request")

    on_payload.wants_payload = wants_payload  # type: ignore[attr-defined]
    return on_payload


async def before_tool_call(
    dispatch: Dispatch, context: BeforeToolCallContext, signal: AbortSignal | None
) -> BeforeToolCallResult | None:
    handlers = dispatch.handlers("tool_call")
    if not handlers:
        return None
    call = context.tool_call
    args = context.args if isinstance(context.args, dict) else {}
    event = ev.ToolCallEvent(call.id, call.name, args)
    for ext, handler in handlers:
        ok, result = await dispatch.call(ext, handler, event, "tool_call")
        if not ok:  # fail closed: a gate that cannot decide blocks
            return BeforeToolCallResult(
                block=True, reason=f"Extension {ext.name} failed while checking the call"
            )
        if get_field(result, "block"):
            return BeforeToolCallResult(
                block=True, reason=get_field(result, "reason"), terminate=bool(get_field(result, "terminate"))
            )
    return None


async def after_tool_call(
    dispatch: Dispatch, context: AfterToolCallContext, signal: AbortSignal | None
) -> AfterToolCallResult | None:
    handlers = dispatch.handlers("tool_result")
    if not handlers:
        return None
    call = context.tool_call
    content, details, is_error = list(context.result.content), context.result.details, context.is_error
    changed = False
    for ext, handler in handlers:
        event = ev.ToolResultEvent(
            call.id,
            call.name,
            context.args if isinstance(context.args, dict) else {},
            content,
            details,
            is_error,
        )
        ok, result = await dispatch.call(ext, handler, event, "tool_result")
        if not ok or result is None:
            continue
        new_content = get_field(result, "content")
        if new_content is not None:
            content, changed = to_content(new_content), True
        new_details = get_field(result, "details")
        if new_details is not None:
            details, changed = new_details, True
        new_error = get_field(result, "is_error", "isError")
        if new_error is not None:
            is_error, changed = bool(new_error), True
    if not changed:
        return None
    return AfterToolCallResult(content=content, details=details, is_error=is_error)
