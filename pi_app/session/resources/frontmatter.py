"""YAML frontmatter of skills and prompt templates, read with PyYAML's safe loader (as pi reads it with a
real YAML parser: block scalars, flow lists, quoting and escapes all mean what YAML says).

Invalid YAML is reported as one error with its line and column in the file; the caller warns, naming the
file, and does not load it. Nothing here raises for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Frontmatter:
    """A markdown file split into its YAML frontmatter (``data``) and ``body``, with any YAML errors."""

    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    errors: list[str] = field(default_factory=list)


def _yaml_error(exc: Exception, first_line: int) -> str:
    """``problem at line L, column C`` with the line counted in the whole file (1-based)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML: {problem} at line {mark.line + first_line}, column {mark.column + 1}"


def parse_frontmatter(text: str) -> Frontmatter:
    """Split ``---``-fenced YAML from the body. The body is trimmed (pi trims it: the blank line after the
    closing fence is not part of a template). Text without frontmatter is returned as the body unchanged."""
    import yaml  # deferred: only resource loading needs it, not `pi --version`

    if text.startswith("\ufeff"):
        text = text[1:]
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    if not normalized.startswith("---\n"):
        return Frontmatter(body=text)
    end = normalized.find("\n---", 3)
    if end == -1:
        return Frontmatter(body=text, errors=["frontmatter is not closed with ---"])
    block = normalized[4:end]
    body = normalized[end + 4 :].strip()
    try:
        loaded = yaml.safe_load(block) if block.strip() else None
    except yaml.YAMLError as exc:
        return Frontmatter(body=body, errors=[_yaml_error(exc, first_line=2)])
    if loaded is None:
        return Frontmatter(body=body)
    if not isinstance(loaded, dict):
        return Frontmatter(body=body, errors=["frontmatter must be a mapping of keys to values"])
    return Frontmatter(data={str(k): v for k, v in loaded.items()}, body=body)


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
