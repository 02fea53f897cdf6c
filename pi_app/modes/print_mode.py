"""Print mode (``pi -p``, ``--mode text``) and the json event stream (``--mode json``).

Both send the initial message (with ``@file`` text and images) and then every further message in turn,
each after the previous run has finished. Text mode prints the text of the final assistant message; an
error or abort there goes to stderr with exit code 1. Json mode prints the session header and then every
session event as one JSON line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TextIO

from pi_app.modes.jsonl import JsonlWriter, silence_stdout
from pi_app.session.jsontext import replace_surrogates

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.session_events import SessionEvent


def _role(message: Any) -> str | None:
    if isinstance(message, dict):
        return message.get("role")
    return getattr(message, "role", None)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def final_assistant_outcome(messages: Sequence[Any]) -> tuple[list[str], str | None]:
    """(text blocks of the last message if it is an assistant's, error line or None).

    The error line is the message's ``errorMessage`` or ``Request <stopReason>`` when the last assistant
    message stopped with ``error`` or ``aborted``.
    """
    if not messages or _role(messages[-1]) != "assistant":
        return [], None
    last = messages[-1]
    stop = _get(last, "stopReason") or _get(last, "stop_reason")
    if stop in ("error", "aborted"):
        error = _get(last, "errorMessage") or _get(last, "error_message")
        return [], error or f"Request {stop}"
    texts = [
        _get(block, "text") or "" for block in _get(last, "content") or () if _get(block, "type") == "text"
    ]
    return texts, None


def session_header_json(session: AgentSession) -> dict[str, Any] | None:
    return dict(session.session_manager.raw_header())


async def run_print_mode(
    session: AgentSession,
    *,
    mode: Literal["text", "json"] = "text",
    messages: Sequence[str] = (),
    initial_message: str | None = None,
    initial_images: Sequence[Any] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    writer: JsonlWriter | None = None,
) -> int:
    """Run the prompts; return the exit code."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    stopped = False

    def on_pipe_closed() -> None:
        # Nobody reads any more (``| head -1``): stop the agent and skip the remaining prompts.
        nonlocal stopped
        stopped = True
        _abort_soon(session)

    unsubscribe = None
    if mode == "json":
        writer = writer or JsonlWriter(on_closed=on_pipe_closed)
        if writer.on_closed is None:
            writer.on_closed = on_pipe_closed
        header = session_header_json(session)
        if header:
            writer.write(header)

        from pi_app.modes.wire import event_json

        async def on_event(event: SessionEvent) -> None:
            data = event_json(event)
            if data is not None:
                writer.write(data)

        unsubscribe = session.subscribe(on_event)

    from pi_app.modes import startup_gc

    unsubscribe_gc = session.subscribe(_resume_gc_on_reply) if startup_gc.is_paused() else None
    prompts: list[tuple[str, Sequence[Any] | None]] = []
    if initial_message is not None:
        prompts.append((initial_message, initial_images or None))
    prompts += [(m, None) for m in messages]
    try:
        for text, images in prompts:
            if stopped:
                break
            await session.prompt(text, images=list(images) if images else None)
    except Exception as exc:  # no key, unknown template, provider setup: one line, exit 1
        print(f"Error: {exc}", file=err)
        return 1
    finally:
        if unsubscribe is not None:
            unsubscribe()
        if unsubscribe_gc is not None:
            unsubscribe_gc()
        startup_gc.resume()

    if mode == "json":
        return 0
    texts, error = final_assistant_outcome(session.transcript)  # its last message (the rest stays untyped)
    if error is not None:
        print(error, file=err)
        return 1
    try:
        for text in texts:
            print(replace_surrogates(text), file=out)  # stdout is strict UTF-8: a lone surrogate → U+FFFD
        out.flush()
    except BrokenPipeError:
        silence_stdout()
    return 0


async def _resume_gc_on_reply(event: SessionEvent) -> None:
    # The first reply is arriving, so the provider SDK is loaded: startup is over (see startup_gc).
    if getattr(event, "type", None) in ("message_update", "message_end") and (
        _role(getattr(event, "message", None)) == "assistant"
    ):
        from pi_app.modes import startup_gc

        startup_gc.resume()


def _abort_soon(session: AgentSession) -> None:
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    loop.create_task(session.abort())
