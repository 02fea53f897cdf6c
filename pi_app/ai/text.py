"""The one "text of a message content" helper (no pydantic import: the tree and listings use it on dicts)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _block_text(block: Any) -> str | None:
    if isinstance(block, dict):
        if block.get("type") != "text":
            return None
        text = block.get("text", "")
        return text if isinstance(text, str) else str(text)
    if getattr(block, "type", None) == "text":
        text = getattr(block, "text", "")
        return text if isinstance(text, str) else str(text)
    return None


def text_of(content: str | Iterable[Any] | None, joiner: str = "", *, limit: int | None = None) -> str:
    """The text blocks of a message content (a string, or a list of blocks as models or dicts), joined with
    ``joiner``. With ``limit``, stops collecting once that many characters are in and cuts there."""
    if isinstance(content, str):
        return content if limit is None else content[:limit]
    if content is None or not isinstance(content, (list, tuple)):
        return ""
    if len(content) == 1 and limit is None:  # the usual tool result or user message: one block, no join
        return _block_text(content[0]) or ""
    out: list[str] = []
    size = 0
    for block in content:
        text = _block_text(block)
        if text is None:
            continue
        out.append(text)
        size += len(text)
        if limit is not None and size >= limit:
            break
    joined = joiner.join(out)
    return joined if limit is None else joined[:limit]
