"""Keep requests small: tool results older than the last N turns go to the model as a one-line note.

A ``context`` handler rewrites the messages of each request just before it is sent. Tool results that
answer an assistant message older than the last N (``--trim-keep-turns``, default 2) have their text
replaced by a placeholder naming the tool and the size it had. Only the request changes: the session file
keeps every result in full, so ``/tree``, export and a later run without this extension see everything.

    pi -e examples/extensions/trim_tool_results.py --trim-keep-turns 3
"""

from __future__ import annotations

from typing import Any

from pi_app.ai.types import TextContent
from pi_app.extensions import ContextEvent, ContextResult, ExtensionAPI, ExtensionContext

DEFAULT_KEEP_TURNS = 2


def placeholder(tool_name: str, chars: int) -> str:
    return f"[{tool_name} result trimmed: {chars} characters; run the tool again if you need it]"


def trim(messages: list[Any], keep_turns: int) -> list[Any]:
    """``messages`` with old tool results replaced (new message objects; the originals are not touched).

    A turn is one assistant message and the tool results that answer it."""
    turns = sum(1 for m in messages if getattr(m, "role", None) == "assistant")
    cutoff = turns - keep_turns  # tool results of assistant messages 1..cutoff are trimmed
    out: list[Any] = []
    turn = 0
    for message in messages:
        role = getattr(message, "role", None)
        if role == "assistant":
            turn += 1
        elif role == "toolResult" and turn <= cutoff:
            text = "".join(c.text for c in message.content if isinstance(c, TextContent))
            short = placeholder(message.toolName, len(text))
            has_image = any(not isinstance(c, TextContent) for c in message.content)
            if has_image or len(text) > len(short):  # images go too; short text stays
                message = message.model_copy(update={"content": [TextContent(text=short)]})
        out.append(message)
    return out


def register(pi: ExtensionAPI) -> None:
    pi.register_flag(
        "trim-keep-turns",
        description="Turns whose tool results reach the model in full (trim_tool_results)",
        type="string",
        default=str(DEFAULT_KEEP_TURNS),
    )

    def keep_turns() -> int:
        try:
            return max(0, int(str(pi.get_flag("trim-keep-turns"))))
        except ValueError:
            return DEFAULT_KEEP_TURNS

    def on_context(event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        trimmed = trim(event.messages, keep_turns())
        if all(a is b for a, b in zip(trimmed, event.messages, strict=True)):
            return None  # nothing old enough: leave the request as it was
        return ContextResult(messages=trimmed)

    pi.on("context", on_context)
