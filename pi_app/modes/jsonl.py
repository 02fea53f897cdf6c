"""Strict JSONL framing for json and rpc modes: LF is the only record separator.

Records are serialised without escaping non-ASCII text (like ``JSON.stringify``), so U+2028/U+2029 may
appear raw inside a record; readers must split on ``b"\\n"`` only. Output goes to a binary stream and a
reader that has gone away (``pi --mode json | head -1``) ends the output quietly instead of crashing.
Every record is valid UTF-8 (a lone surrogate from undecodable file bytes is written as U+FFFD) and any
nesting depth can be written (see :mod:`pi_app.session.jsontext`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from pi_app.session.jsontext import dumps_line


def serialize_json_line(value: Any) -> bytes:
    """One record: compact JSON, valid UTF-8, terminated by a single LF."""
    return dumps_line(value)


class LineSplitter:
    """Feed bytes, get complete lines: split on LF only, strip one trailing CR, decode UTF-8 per record.

    Decoding happens per complete record, so a multi-byte character split across reads is never broken.
    """

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[str]:
        self._buffer += data
        if b"\n" not in data:
            return []
        *lines, self._buffer = self._buffer.split(b"\n")
        return [self._decode(line) for line in lines]

    def finish(self) -> list[str]:
        """The unterminated last record at end of input, if any."""
        rest, self._buffer = self._buffer, b""
        return [self._decode(rest)] if rest else []

    @staticmethod
    def _decode(line: bytes) -> str:
        if line.endswith(b"\r"):
            line = line[:-1]
        return line.decode("utf-8", errors="replace")


class JsonlWriter:
    """Writes records to a binary stream, flushing each one; goes quiet once the reader has gone.

    After a broken pipe ``closed`` is True, every further write is dropped and ``on_closed`` runs once
    (json mode uses it to stop the agent). stdout is pointed at /dev/null so the interpreter's final flush
    cannot raise again at exit.
    """

    def __init__(self, stream: BinaryIO | None = None, on_closed: Callable[[], None] | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout.buffer
        self.on_closed = on_closed
        self.closed = False

    def write(self, value: Any) -> bool:
        """Write one record; False (with one line on stderr) when ``value`` cannot be encoded as JSON."""
        try:
            data = serialize_json_line(value)
        except (TypeError, ValueError, RecursionError) as exc:
            kind = value.get("type") if isinstance(value, dict) else type(value).__name__
            print(f"Warning: could not encode a {kind} record as JSON: {exc}", file=sys.stderr)
            return False
        self.write_bytes(data)
        return True

    def write_bytes(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            self._stream.write(data)
            self._stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._mark_closed()
        except OSError as exc:
            if exc.errno not in (32, 104):  # EPIPE, ECONNRESET
                raise
            self._mark_closed()

    def _mark_closed(self) -> None:
        self.closed = True
        silence_stdout()
        if self.on_closed is not None:
            callback, self.on_closed = self.on_closed, None
            callback()


def silence_stdout() -> None:
    """Point fd 1 at /dev/null (after EPIPE) so later writes and the exit-time flush succeed silently."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
