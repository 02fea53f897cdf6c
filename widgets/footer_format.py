"""pi's footer lines as pure functions (number formats follow pi's footer.ts exactly)."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from rich.cells import cell_len
from textual.content import Content


def to_fixed(value: float, digits: int) -> str:
    """JavaScript ``Number.prototype.toFixed``: rounds the exact binary value half away from zero.

    Python's ``format`` rounds ties to even (``f"{2.5:.0f}" == "2"``, JS gives ``"3"``).
    """
    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def js_round(value: float) -> int:
    """JavaScript ``Math.round`` (ties toward +infinity)."""
    return math.floor(value + 0.5)


def format_tokens(count: float) -> str:
    """``<1000`` raw, ``1.2k``, ``12k``, ``1.2M``, ``12M``."""
    if count < 1000:
        return str(int(count))
    if count < 10_000:
        return f"{to_fixed(count / 1000, 1)}k"
    if count < 1_000_000:
        return f"{js_round(count / 1000)}k"
    if count < 10_000_000:
        return f"{to_fixed(count / 1_000_000, 1)}M"
    return f"{js_round(count / 1_000_000)}M"


def format_size(num_bytes: int) -> str:
    """pi's ``formatSize``: ``512B``, ``50.0KB``, ``1.5MB``."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{to_fixed(num_bytes / 1024, 1)}KB"
    return f"{to_fixed(num_bytes / (1024 * 1024), 1)}MB"


def shorten_home(path: str, home: str | None = None) -> str:
    """Replace a leading home directory with ``~`` (plain prefix test, as pi does)."""
    home = os.path.expanduser("~") if home is None else home
    if home and path.startswith(home):
        return "~" + path[len(home) :]
    return path


_SEPARATED = re.compile(r"[^/\\]*[/\\]+|[^/\\]+")


def _path_pieces(word: str, width: int) -> list[str]:
    """A word split after each path separator; a piece still wider than ``width`` is cut by cells."""
    from rich.cells import chop_cells

    pieces: list[str] = []
    for piece in _SEPARATED.findall(word):
        pieces.extend(chop_cells(piece, width) if cell_len(piece) > width else [piece])
    return pieces


def wrap_at_separators(text: str, width: int) -> str | None:
    """``text`` wrapped to ``width`` cells, long paths broken after a ``/`` (or ``\\``) rather than mid-name;
    None when no word is too long for a line (ordinary word wrapping does then)."""
    if width <= 0 or not any(cell_len(w) > width for w in text.split()):
        return None
    out: list[str] = []
    for line in text.split("\n"):
        current = ""
        for token in re.findall(r"\S+\s*", line) or [""]:
            word = token.rstrip()
            if cell_len(current + word) <= width:
                current += token
                continue
            if current.strip() and cell_len(word) <= width:
                out.append(current.rstrip())
                current = token
                continue
            for piece in _path_pieces(word, width):  # a long path: fill the line, then break at separators
                if current and cell_len(current + piece) > width:
                    out.append(current.rstrip())
                    current = ""
                current += piece
            current += token[len(word) :]
        out.append(current.rstrip())
    return "\n".join(out)


def truncate_to_width(text: str, width: int, ellipsis: str = "...") -> str:
    """Cut ``text`` to ``width`` cells, ending in ``ellipsis`` when something was cut."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    if room <= 0:
        return set_cell_size(ellipsis, max(width, 0))
    return set_cell_size(text, room) + ellipsis


@dataclass
class FooterData:
    """Everything the footer shows; an App fills it from the session."""

    cwd: str
    home: str | None = None
    git_branch: str | None = None
    session_name: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    using_subscription: bool = False
    # None means "unknown" (right after a compaction): shown as ``?``.
    context_percent: float | None = 0.0
    context_window: int = 0
    auto_compact: bool = True
    model_id: str | None = None
    provider: str | None = None
    reasoning: bool = False
    thinking_level: str = "off"
    provider_count: int = 1
    extension_statuses: dict[str, str] = field(default_factory=dict)
    # The session is still being built (the app's first frame): no numbers yet, the model as asked for.
    pending: bool = False


def _sanitize_status(text: str) -> str:
    return " ".join(text.replace("\r", " ").replace("\n", " ").replace("\t", " ").split())


def context_level(percent: float | None) -> str:
    """``error`` past 90 %, ``warning`` past 70 %, else ``normal``."""
    value = percent or 0.0
    if value > 90:
        return "error"
    if value > 70:
        return "warning"
    return "normal"


def format_footer(data: FooterData, width: int) -> list[Content]:
    """pi's footer: pwd line, stats line (context % coloured), optional extension-status line."""
    from rich.cells import cell_len

    pwd = shorten_home(data.cwd, data.home)
    if data.git_branch:
        pwd = f"{pwd} ({data.git_branch})"
    if data.session_name:
        pwd = f"{pwd} • {data.session_name}"

    if data.pending:
        pwd_line = Content(truncate_to_width(pwd, width))
        right = truncate_to_width(data.model_id or "loading…", width, "")
        stats = " " * max(0, width - cell_len(right)) + right
        return [pwd_line.stylize("$pi-dim", 0, len(pwd_line.plain)), Content(stats).stylize("$pi-dim")]

    parts: list[str] = []
    if data.input_tokens:
        parts.append(f"↑{format_tokens(data.input_tokens)}")
    if data.output_tokens:
        parts.append(f"↓{format_tokens(data.output_tokens)}")
    if data.cache_read:
        parts.append(f"R{format_tokens(data.cache_read)}")
    if data.cache_write:
        parts.append(f"W{format_tokens(data.cache_write)}")
    if data.cost or data.using_subscription:
        parts.append(f"${to_fixed(data.cost, 3)}{' (sub)' if data.using_subscription else ''}")
    auto = " (auto)" if data.auto_compact else ""
    window = format_tokens(data.context_window)
    if data.context_percent is None:
        context = f"?/{window}{auto}"
    else:
        context = f"{to_fixed(data.context_percent, 1)}%/{window}{auto}"
    prefix = " ".join(parts)
    left = f"{prefix} {context}" if prefix else context
    context_start = len(left) - len(context)

    if cell_len(left) > width:
        left = truncate_to_width(left, width)
    left_width = cell_len(left)

    model = data.model_id or "no-model"
    right = model
    if data.reasoning:
        right = (
            f"{model} • thinking off" if data.thinking_level == "off" else f"{model} • {data.thinking_level}"
        )
    if data.provider_count > 1 and data.model_id and data.provider:
        with_provider = f"({data.provider}) {right}"
        if left_width + 2 + cell_len(with_provider) <= width:
            right = with_provider
    if left_width + 2 + cell_len(right) <= width:
        stats = left + " " * (width - left_width - cell_len(right)) + right
    else:
        room = width - left_width - 2
        if room > 0:
            cut = truncate_to_width(right, room, "")
            stats = left + " " * max(0, width - left_width - cell_len(cut)) + cut
        else:
            stats = left

    stats_line = Content(stats).stylize("$pi-dim", 0, len(stats))
    level = context_level(data.context_percent)
    if level != "normal" and context_start < len(left):
        end = min(len(left), context_start + len(context))
        stats_line = stats_line.stylize(f"$pi-{level}", context_start, end)

    pwd_line = Content(truncate_to_width(pwd, width))
    lines = [pwd_line.stylize("$pi-dim", 0, len(pwd_line.plain)), stats_line]
    if data.extension_statuses:
        status = " ".join(
            _sanitize_status(data.extension_statuses[k]) for k in sorted(data.extension_statuses)
        )
        lines.append(Content(truncate_to_width(status, width)))
    return lines
