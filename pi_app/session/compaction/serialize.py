"""Conversation → plain text for the summariser, so the model reads it instead of continuing it."""

from __future__ import annotations

import json
from typing import Any

from pi_app.ai.text import text_of

TOOL_RESULT_MAX_CHARS = 2000


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_conversation(messages: list[Any]) -> str:
    parts: list[str] = []
    for msg in messages:
        role = msg.role
        if role == "user":
            text = text_of(msg.content)
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            texts, thoughts, calls = [], [], []
            for block in msg.content:
                if block.type == "text":
                    texts.append(block.text)
                elif block.type == "thinking":
                    thoughts.append(block.thinking)
                elif block.type == "toolCall":
                    args = ", ".join(
                        f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in block.arguments.items()
                    )
                    calls.append(f"{block.name}({args})")
            if thoughts:
                parts.append("[Assistant thinking]: " + "\n".join(thoughts))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif role == "toolResult":
            text = text_of(msg.content)
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)
