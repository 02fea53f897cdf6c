"""Bounded streaming of a text file for ``read``: the same answer as decoding the whole file, splitting it
on ``\\n`` and calling :func:`~pi_app.tools.truncate.truncate_head` on the selected lines, but fed chunk by
chunk and never holding more than the limits (plus one chunk) in memory.

Lines are split on raw ``\\n`` bytes before decoding: in UTF-8 a newline byte never belongs to a multi-byte
sequence and always ends an invalid one, so per-line decoding (errors replaced) equals whole-file decoding.
Past the lines that can be shown, only counts are kept (total lines, the selection's UTF-8 size), which
``read``'s notices and truncation details need.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

from pi_app.tools.truncate import TruncatedBy, TruncationResult, utf8_len


class _Utf8Meter:
    """The UTF-8 size of raw bytes once decoded with errors replaced (U+FFFD is 3 bytes), fed in pieces."""

    def __init__(self) -> None:
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        self.n = 0

    def feed(self, data: bytes) -> None:
        if data.isascii() and not self._dec.getstate()[0]:
            self.n += len(data)  # the common case, without building a str
        else:
            self.n += utf8_len(self._dec.decode(data))

    def close(self) -> int:
        self.n += utf8_len(self._dec.decode(b"", True))
        self._dec.reset()
        return self.n


@dataclass
class TextScan:
    """What :class:`TextScanner` learned about the file and the selected line range."""

    total_lines: int
    kept: list[str]
    kept_bytes: int
    selected_lines: int
    selected_bytes: int
    first_line_bytes: int
    stopped_by: TruncatedBy | None

    def truncation(self, max_lines: int, max_bytes: int) -> TruncationResult:
        """truncate_head's result for the selected text."""

        def result(
            content: str, by: TruncatedBy | None, lines: int, size: int, first_exceeds: bool = False
        ) -> TruncationResult:
            return TruncationResult(
                content=content,
                truncated=by is not None,
                truncatedBy=by,
                totalLines=self.selected_lines,
                totalBytes=self.selected_bytes,
                outputLines=lines,
                outputBytes=size,
                firstLineExceedsLimit=first_exceeds,
                maxLines=max_lines,
                maxBytes=max_bytes,
            )

        if self.selected_lines <= max_lines and self.selected_bytes <= max_bytes:
            return result("\n".join(self.kept), None, self.selected_lines, self.selected_bytes)
        if self.first_line_bytes > max_bytes:
            return result("", "bytes", 0, 0, first_exceeds=True)
        by: TruncatedBy = "lines" if len(self.kept) >= max_lines else "bytes"
        return result("\n".join(self.kept), by, len(self.kept), self.kept_bytes)


@dataclass
class TextScanner:
    """Feed the file's bytes with :meth:`feed`, then call :meth:`finish`.

    ``start`` is the first selected line (0-based), ``count`` how many lines to select (None: to the end).
    """

    start: int
    count: int | None
    max_lines: int
    max_bytes: int
    line: int = 0  # index of the line the next byte belongs to
    _collecting: bool = True
    _kept: list[str] = field(default_factory=list)
    _used: int = 0
    _cur: list[bytes] = field(default_factory=list)
    _cur_keep: bool = True
    _cur_meter: _Utf8Meter = field(default_factory=_Utf8Meter)
    _rest: _Utf8Meter | None = None
    _sel_bytes: int = 0
    _first_bytes: int = 0
    _stopped_by: TruncatedBy | None = None

    @property
    def _end(self) -> int | None:
        return None if self.count is None else self.start + max(self.count, 0)

    def feed(self, chunk: bytes) -> None:
        pos, size, end = 0, len(chunk), self._end
        while pos < size:
            if self.line < self.start:
                need = self.start - self.line
                found = chunk.count(b"\n", pos)
                if found < need:
                    self.line += found
                    return
                for _ in range(need):
                    pos = chunk.index(b"\n", pos) + 1
                self.line = self.start
                if end is not None and end <= self.start:
                    self._collecting = False
                continue
            if end is not None and self.line >= end:
                self.line += chunk.count(b"\n", pos)
                return
            if self._collecting:
                nl = chunk.find(b"\n", pos)
                self._collect(chunk[pos : size if nl < 0 else nl])
                if nl < 0:
                    return
                self._end_line()
                self.line += 1
                self._after_line()
                pos = nl + 1
                continue
            pos = self._measure_rest(chunk, pos, end)

    def feed_zeros(self, n: int) -> None:
        """Like ``feed(bytes(n))`` without building it: a hole in a sparse file costs no reading."""
        if n <= 0:
            return
        self.feed(b"\0")  # settles a pending multi-byte sequence exactly as real bytes would
        n -= 1
        end = self._end
        if n == 0 or self.line < self.start or (end is not None and self.line >= end):
            return  # NUL is not a newline: skipped or unselected lines do not change
        if not self._collecting:
            assert self._rest is not None
            self._rest.n += n
            return
        if self._cur_keep and self._cur_meter.n + n <= self._budget():
            self._cur.append(bytes(n))
        else:
            self._cur_keep = False
            self._cur = []
        self._cur_meter.n += n

    def _budget(self) -> int:
        return self.max_bytes if self.line == self.start else self.max_bytes - self._used - 1

    def _collect(self, piece: bytes) -> None:
        self._cur_meter.feed(piece)
        if not self._cur_keep:
            return
        if self._cur_meter.n > self._budget():
            self._cur_keep = False
            self._cur = []
        else:
            self._cur.append(piece)

    def _end_line(self) -> None:
        """The current selected line is complete: keep it if it fits, else stop keeping."""
        size = self._cur_meter.close()
        self._cur_meter = _Utf8Meter()
        first = self.line == self.start
        cost = size if first else size + 1
        self._sel_bytes += cost
        if first:
            self._first_bytes = size
        if (first and size > self.max_bytes) or self._used + cost > self.max_bytes:
            self._collecting = False
            self._stopped_by = "bytes"
        else:
            self._kept.append(b"".join(self._cur).decode("utf-8", "replace"))
            self._used += cost
            if len(self._kept) >= self.max_lines:
                self._collecting = False
                self._stopped_by = "lines"
        self._cur = []
        self._cur_keep = True

    def _after_line(self) -> None:
        """A newline was consumed; start measuring the rest of the selection if keeping has stopped."""
        end = self._end
        if end is not None and self.line >= end:
            self._collecting = False
            return
        if not self._collecting and self._rest is None:
            self._sel_bytes += 1  # the separator before this line
            self._rest = _Utf8Meter()

    def _measure_rest(self, chunk: bytes, pos: int, end: int | None) -> int:
        meter = self._rest
        assert meter is not None
        if end is None:
            meter.feed(chunk[pos:])
            self.line += chunk.count(b"\n", pos)
            return len(chunk)
        need = end - self.line
        found = chunk.count(b"\n", pos)
        if found < need:
            meter.feed(chunk[pos:])
            self.line += found
            return len(chunk)
        stop = pos
        for _ in range(need):
            stop = chunk.index(b"\n", stop) + 1
        meter.feed(chunk[pos : stop - 1])  # the newline ending the selection is not part of it
        self._sel_bytes += meter.close()
        self._rest = None
        self.line = end
        return stop

    def finish(self) -> TextScan:
        total = self.line + 1
        end = self._end
        in_selection = self.start <= self.line and (end is None or self.line < end)
        if in_selection and self._collecting:
            self._end_line()
        elif self._rest is not None:
            self._sel_bytes += self._rest.close()
            self._rest = None
        if end is not None and end <= self.start:
            # an empty selection is one empty line to truncate_head (``"\n".join([])`` is ``""``)
            kept, selected = [""], 1
        else:
            kept, selected = self._kept, max(0, min(total, end if end is not None else total) - self.start)
        return TextScan(
            total_lines=total,
            kept=kept,
            kept_bytes=self._used,
            selected_lines=selected,
            selected_bytes=self._sel_bytes,
            first_line_bytes=self._first_bytes,
            stopped_by=self._stopped_by,
        )
