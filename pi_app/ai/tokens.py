"""Token counting: exact with tiktoken's o200k/cl100k vocabularies shipped in ``pi_app/ai/data``, else an estimate.

The vocabularies are read from the package (never downloaded), verified against tiktoken's published sha256
and parsed here rather than through ``tiktoken.load.load_tiktoken_bpe``, which would also copy each file
into ``$TMPDIR/data-gym-cache``. tiktoken is imported on first use only, so importing ``pi_app.ai`` stays
cheap. If a vocabulary is missing or corrupt, counting falls back to UTF-8 bytes / 4, which is within a few
percent for prose and code (and, unlike chars / 4, does not undercount CJK).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

IMAGE_TOKENS = 1200  # pi's flat estimate for one image (4800 chars)


@dataclass(frozen=True)
class _EncodingSpec:
    """A shipped tiktoken vocabulary: its file and sha256, split pattern and special tokens."""

    file: str
    sha256: str
    pat_str: str
    special_tokens: dict[str, int]


# Pattern strings and special tokens as tiktoken_ext.openai_public defines them.
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s"""
)

ENCODINGS: dict[str, _EncodingSpec] = {
    "o200k_base": _EncodingSpec(
        "o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PAT,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": _EncodingSpec(
        "cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        _CL100K_PAT,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}
DEFAULT_ENCODING = "o200k_base"

_lock = threading.Lock()
# name -> tiktoken.Encoding, or None once loading failed (so we do not retry on every call).
_loaded: dict[str, Any] = {}


def data_path(name: str) -> Path:
    """Where the shipped vocabulary for encoding ``name`` lives."""
    return Path(str(resources.files("pi_app.ai.data").joinpath(ENCODINGS[name].file)))


def _parse_ranks(contents: bytes, name: str) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in contents.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    if not ranks:
        raise ValueError(f"{name}: empty vocabulary")
    return ranks


def _load(name: str) -> Any:
    spec = ENCODINGS[name]
    path = data_path(name)
    contents = path.read_bytes()
    digest = hashlib.sha256(contents).hexdigest()
    if digest != spec.sha256:
        raise ValueError(f"{path}: sha256 {digest} does not match the expected {spec.sha256}")
    import tiktoken  # deferred: only token counting needs it

    return tiktoken.Encoding(
        name=name,
        pat_str=spec.pat_str,
        mergeable_ranks=_parse_ranks(contents, name),
        special_tokens=spec.special_tokens,
    )


def get_encoding(name: str = DEFAULT_ENCODING) -> Any | None:
    """The tiktoken Encoding for ``name``, loaded once; None if the shipped file is unusable."""
    if name in _loaded:
        return _loaded[name]
    with _lock:
        if name not in _loaded:
            try:
                _loaded[name] = _load(name)
            except Exception as exc:  # missing file, bad hash, parse error, tiktoken missing
                log.warning("token counting falls back to an estimate: %s", exc)
                _loaded[name] = None
    return _loaded[name]


def preload(name: str = DEFAULT_ENCODING) -> threading.Thread:
    """Load the encoding in a daemon thread (about half a second) so the first count is instant."""
    thread = threading.Thread(target=get_encoding, args=(name,), name=f"tiktoken-{name}", daemon=True)
    thread.start()
    return thread


def reset_cache() -> None:
    """Forget loaded encodings (tests)."""
    with _lock:
        _loaded.clear()


def estimate_tokens(text: str) -> int:
    """UTF-8 bytes / 4, rounded up."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact token count with the shipped vocabulary; the bytes/4 estimate if it cannot be loaded."""
    if not text:
        return 0
    enc = get_encoding(encoding)
    if enc is None:
        return estimate_tokens(text)
    # encode_ordinary: user/file text may contain "<|endoftext|>", which plain encode() rejects.
    return len(enc.encode_ordinary(text))


# ---------------------------------------------------------------- messages
def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _blocks_tokens(content: Any, count: Callable[[str], int]) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return count(content)
    total = 0
    for block in content:
        kind = _get(block, "type")
        if kind == "text":
            total += count(_get(block, "text") or "")
        elif kind == "thinking":
            total += count(_get(block, "thinking") or "")
        elif kind == "toolCall":
            args = _get(block, "arguments") or {}
            total += count(_get(block, "name") or "") + count(json.dumps(args, ensure_ascii=False))
        elif kind == "image":
            total += IMAGE_TOKENS
    return total


def estimate_message_tokens(message: Any, count: Callable[[str], int] = estimate_tokens) -> int:
    """Approximate context tokens one message occupies (pydantic message or its JSON dict).

    Covers LLM roles and the coding agent's own message kinds (bashExecution, custom, branchSummary,
    compactionSummary). Pass ``count=count_tokens`` for exact text counts.
    """
    role = _get(message, "role")
    if role == "bashExecution":
        return count(_get(message, "command") or "") + count(_get(message, "output") or "")
    if role in ("branchSummary", "compactionSummary"):
        return count(_get(message, "summary") or "")
    return _blocks_tokens(_get(message, "content"), count)
