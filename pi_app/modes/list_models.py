"""``pi --list-models [search]``: a table of the models that have credentials, like pi prints it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

COLUMNS = (
    ("provider", "provider"),
    ("model", "model"),
    ("context", "context"),
    ("maxOut", "max-out"),
    ("thinking", "thinking"),
    ("images", "images"),
)
NO_MODELS_TEXT = "No models available. Set API keys in environment variables."


def format_token_count(count: int) -> str:
    """200000 → "200K", 1000000 → "1M", 128500 → "128.5K"."""
    for size, suffix in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            value = count / size
            return f"{int(value)}{suffix}" if value == int(value) else f"{value:.1f}{suffix}"
    return str(count)


def fuzzy_matches(query: str, text: str) -> bool:
    """Every whitespace-separated token of ``query`` occurs in ``text`` as a subsequence (case-insensitive)."""
    haystack = text.lower()
    for token in query.lower().split():
        pos = 0
        for ch in token:
            pos = haystack.find(ch, pos)
            if pos < 0:
                return False
            pos += 1
    return True


def model_rows(models: Sequence[Any], search: str | None = None) -> list[dict[str, str]]:
    chosen = [m for m in models if not search or fuzzy_matches(search, f"{m.provider} {m.id}")]
    chosen.sort(key=lambda m: (m.provider, m.id))
    return [
        {
            "provider": m.provider,
            "model": m.id,
            "context": format_token_count(m.contextWindow),
            "maxOut": format_token_count(m.maxTokens),
            "thinking": "yes" if m.reasoning else "no",
            "images": "yes" if "image" in (m.input or []) else "no",
        }
        for m in chosen
    ]


def format_model_table(models: Sequence[Any], search: str | None = None) -> str:
    """The whole output (ending in a newline): a notice when nothing is available or nothing matches."""
    if not models:
        return NO_MODELS_TEXT + "\n"
    rows = model_rows(models, search)
    if not rows:
        return f'No models matching "{search}"\n'
    widths = {key: max(len(title), *(len(r[key]) for r in rows)) for key, title in COLUMNS}
    lines = ["  ".join(title.ljust(widths[key]) for key, title in COLUMNS)]
    lines += ["  ".join(r[key].ljust(widths[key]) for key, _ in COLUMNS) for r in rows]
    return "".join(line + "\n" for line in lines)
