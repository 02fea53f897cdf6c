"""A request body as JSON bytes, encoded as it is built and sent in pieces (shared by the providers that
send their own bodies through an SDK's ``post``: Anthropic Messages, OpenAI Chat Completions and Responses).

The transcript part of a body is an :class:`EncodedArray` (each message encoded once, in runs, as it is
converted), and :class:`StreamedBody` sends the whole body from the pieces it was measured with, so no
wire dict of the transcript and no second copy of the body are ever held.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from pydantic_core import to_json as _to_json  # (loaded with pydantic, which the types need)

_CHUNK = 1 << 20  # bytes per write of a streamed request body


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, non-ASCII kept, as the SDK sends it; NaN and Infinity become null as in
    JSON.stringify. Raises ValueError (pydantic-core's error) for what cannot be encoded."""
    return _to_json(value, inf_nan_mode="null")


_RUN = 64  # items of an EncodedArray encoded together (one pydantic-core call per run, not per item)


class EncodedArray:
    """A JSON array encoded as it is built: its items, as they come, in runs of up to ``_RUN`` items, each run
    one ``bytes`` of the items' JSON with commas between them.

    The transcript is turned into it a message at a time (typed message -> wire dict -> bytes in its run), so
    the wire dicts are never all alive at once and each is encoded exactly once; encoding a run at a time
    saves a call per message (a resumed 50k-message transcript is 50k of them). It stands for ``messages``
    only in a body no payload hook will see (a hook gets plain dicts and lists). Raises ValueError (from
    :func:`encode_json`) for an item that cannot be encoded.
    """

    __slots__ = ("runs", "count")

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.runs: list[bytes] = []
        self.count = 0
        self.extend(values)

    def extend(self, values: Iterable[Any]) -> None:
        run: list[Any] = []
        for value in values:
            run.append(value)
            if len(run) == _RUN:
                self._encode(run)
                run = []
        if run:
            self._encode(run)

    def append(self, value: Any) -> None:
        self._encode([value])

    def _encode(self, run: list[Any]) -> None:
        self.runs.append(encode_json(run)[1:-1])  # the run's items without the brackets
        self.count += len(run)

    def __len__(self) -> int:
        return self.count


def _body_pieces(params: dict[str, Any]) -> Iterator[bytes]:
    """UTF-8 JSON of ``params``, one piece per top-level value, per item of a list value and per run of an
    :class:`EncodedArray` (the transcript), in :func:`encode_json`'s encoding (the SDK's bytes). Raises
    ValueError for what cannot be encoded."""
    enc = encode_json
    yield b"{"
    for i, (key, value) in enumerate(params.items()):
        yield (b',"' if i else b'"') + enc(key)[1:] + b":"
        if type(value) is EncodedArray:
            yield b"["
            for j, raw in enumerate(value.runs):
                if j:
                    yield b","
                yield raw  # the same object: the body does not hold the transcript twice
            yield b"]"
        elif isinstance(value, list) and value:
            yield b"["
            for j, item in enumerate(value):
                yield b"," + enc(item) if j else enc(item)
            yield b"]"
        else:
            yield enc(value)
    yield b"}"


def encode_body(params: dict[str, Any]) -> list[bytes] | None:
    """The whole body as pieces (None when something cannot be encoded)."""
    try:
        return list(_body_pieces(params))
    except ValueError:  # pydantic-core's serialization error is a ValueError
        return None


class StreamedBody:
    """A request body sent ~1 MB at a time with its length known up front: encoded once, kept as the
    pieces it was encoded in (one per message), never joined into one big bytes or str.

    The SDK would ``json.dumps`` the whole body to a str and encode that, holding it twice at once (and
    a str of a transcript with one emoji in it costs four bytes per character); for a resumed 50k-entry
    session that is the largest allocation of the run. The pieces are compact UTF-8, smaller than the wire
    dicts they come from; a body whose ``messages`` is an :class:`EncodedArray` costs nothing more here.
    """

    def __init__(self, params: dict[str, Any]) -> None:
        self.pieces = list(_body_pieces(params))  # raises ValueError here, not mid-request
        self.length = sum(map(len, self.pieces))

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in joined_in_chunks(self.pieces, _CHUNK):
            yield chunk


def joined_in_chunks(pieces: Iterable[bytes], size: int, sep: bytes = b"") -> Iterator[bytes]:
    """``pieces`` joined (with ``sep`` between them) into chunks of about ``size`` bytes, whole pieces each."""
    group: list[bytes] = []
    total = 0
    for piece in pieces:
        group.append(piece)
        total += len(piece)
        if total >= size:
            yield sep.join(group)
            group, total = [], 0
    if group:
        yield sep.join(group)
