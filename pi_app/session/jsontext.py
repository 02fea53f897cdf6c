"""JSON text that can always be written: deep nesting and invalid Unicode never make an output fail.

Two things break ``json.dumps(...).encode("utf-8")`` on data this app really produces:

- lone surrogates: text decoded with ``surrogateescape`` (a file holding byte 0xff that ``edit`` kept
  byte-exact) cannot be encoded as UTF-8. Every output that leaves the process (json/rpc lines, HTML
  export) shows such a character as U+FFFD, the replacement character; the providers drop it from what the
  model is sent, so neither side ever sees the raw byte.
- deep nesting: the session tree of a long linear session is a chain thousands of ``children`` deep, and
  the C encoder recurses per level. :func:`dumps` falls back to an iterative encoder with the same output.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from json.encoder import encode_basestring  # C-accelerated when available
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def replace_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged, and fast, when there is none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(REPLACEMENT, text)
    return text


def encode_utf8(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates become U+FFFD instead of raising."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(REPLACEMENT, text).encode("utf-8")


class RawJson:
    """Text that is already JSON, placed as is where it occurs in a value given to :func:`dumps`.

    Lets a producer that knows its data is deep (the session tree) encode it iteratively with the C
    encoder per node, instead of the generic (slower) iterative fallback.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def dumps(value: Any) -> str:
    """Compact JSON like ``JSON.stringify`` (non-ASCII kept) at any nesting depth."""
    raws: list[str] = []
    nonce = ""

    def default(obj: Any) -> str:
        nonlocal nonce
        if not isinstance(obj, RawJson):
            raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
        nonce = nonce or secrets.token_hex(8)
        raws.append(obj.text)
        return f"\0pi-raw-{nonce}-{len(raws) - 1}\0"

    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)
    except RecursionError:
        return "".join(_iter_encode(value))
    for i, raw in enumerate(raws):
        # the placeholder string as the encoder wrote it (NUL is always escaped, so no text can forge it)
        text = text.replace(f'"\\u0000pi-raw-{nonce}-{i}\\u0000"', raw, 1)
    return text


def dumps_line(value: Any) -> bytes:
    """One JSONL record: compact JSON, valid UTF-8, one trailing LF."""
    return encode_utf8(dumps(value)) + b"\n"


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str:
    if isinstance(value, RawJson):
        return value.text
    if isinstance(value, str):
        return str(encode_basestring(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return str(encode_basestring(key))
    if isinstance(key, bool) or key is None:
        return f'"{_scalar(key)}"'
    if isinstance(key, int | float):
        return f'"{_scalar(key)}"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _iter_encode(value: Any) -> Iterator[str]:
    """The same text as ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, without recursion.

    The stack holds one open container per level: (items iterator, is a dict, closing bracket, first?).
    """
    stack: list[list[Any]] = []
    pending: list[Any] = [value]
    while pending or stack:
        if pending:
            item = pending.pop()
            if isinstance(item, dict):
                yield "{"
                stack.append([iter(item.items()), True, "}", True])
            elif isinstance(item, list | tuple):
                yield "["
                stack.append([iter(item), False, "]", True])
            else:
                yield _scalar(item)
            continue
        top = stack[-1]
        try:
            nxt = next(top[0])
        except StopIteration:
            stack.pop()
            yield top[2]
            continue
        if not top[3]:
            yield ","
        top[3] = False
        if top[1]:
            key, nxt = nxt
            yield _key(key) + ":"
        pending.append(nxt)
