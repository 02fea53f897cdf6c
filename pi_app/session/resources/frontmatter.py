"""A small YAML-frontmatter reader for skills and prompt templates (no YAML dependency).

Supports what these files use: ``key: value`` scalars (quoted or not), booleans, and ``key:`` followed by
indented ``- item`` lists or nested ``k: v`` maps. Anything else is reported, never raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Frontmatter:
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    errors: list[str] = field(default_factory=list)


def _scalar(raw: str) -> Any:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    low = value.lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    if low in ("null", "~", ""):
        return None
    return value


def parse_frontmatter(text: str) -> Frontmatter:
    if text.startswith("\ufeff"):
        text = text[1:]
    normalized = text.replace("\r\n", "\n")
    if not normalized.startswith("---\n"):
        return Frontmatter(body=text)
    end = normalized.find("\n---", 4)
    if end == -1:
        return Frontmatter(body=text, errors=["frontmatter is not closed with ---"])
    block = normalized[4:end]
    rest = normalized[end + 4 :]
    body = rest[1:] if rest.startswith("\n") else rest
    fm = Frontmatter(body=body)
    current: str | None = None
    for lineno, line in enumerate(block.split("\n"), start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            if current is None:
                fm.errors.append(f"line {lineno}: indented line without a key")
                continue
            item = line.strip()
            container = fm.data.get(current)
            if item.startswith("- "):
                if not isinstance(container, list):
                    container = []
                    fm.data[current] = container
                container.append(_scalar(item[2:]))
            elif ":" in item:
                if not isinstance(container, dict):
                    container = {}
                    fm.data[current] = container
                k, _, v = item.partition(":")
                container[k.strip()] = _scalar(v)
            elif isinstance(fm.data.get(current), str):
                fm.data[current] = f"{fm.data[current]} {item}"  # folded continuation
            continue
        if ":" not in line:
            fm.errors.append(f"line {lineno}: expected 'key: value'")
            continue
        key, _, value = line.partition(":")
        current = key.strip()
        fm.data[current] = _scalar(value) if value.strip() else None
    return fm


def read_markdown(path: Path, warnings: list[str]) -> str:
    """A skill or template file as text. Bytes that are not UTF-8 become U+FFFD (as pi reads them) and
    give one warning naming the file, so one bad byte never stops startup. Raises OSError."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        warnings.append(
            f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "undecodable bytes read as U+FFFD"
        )
        return data.decode("utf-8", errors="replace")
