"""Bounded-memory accumulation of streamed command output (bash).

Bytes are decoded incrementally (invalid UTF-8 becomes U+FFFD), ANSI escape sequences and stray control
characters are removed, and only a rolling tail of the text is kept for display. Once the output outgrows
the limits, the raw bytes are also written to ``<tmpdir>/<prefix>-<16 hex>.log`` so nothing is lost
(see :mod:`pi_app.tools.bash_logs` for its permissions and retention).
"""

from __future__ import annotations

import codecs
import re
from typing import BinaryIO

from pi_app.tools.bash_logs import create_log
from pi_app.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, truncate_tail

# CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, charset selection, other two-byte escapes.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[()*+][0-9A-Za-z]"
    r"|\x1b[@-Z\\-_=>78]"
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufff9-\ufffb]")
_HOLD_BACK = 128  # an escape this close to the end of a chunk may continue in the next one


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences and control characters other than tab, newline and CR."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


class AnsiStripper:
    """Streaming :func:`strip_ansi` that never cuts an escape sequence split across chunks."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, text: str, final: bool = False) -> str:
        if self._pending:
            text = self._pending + text
            self._pending = ""
        if not final:
            i = text.rfind("\x1b")
            if i != -1 and len(text) - i < _HOLD_BACK and not _ANSI.match(text, i):
                self._pending = text[i:]
                text = text[:i]
        return strip_ansi(text)


class OutputAccumulator:
    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_prefix: str = "pi-bash",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._rolling = max(max_bytes * 2, 1)
        self._prefix = temp_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._stripper = AnsiStripper()
        self._raw_chunks: list[bytes] = []
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self.total_raw_bytes = 0
        self.total_bytes = 0
        self.total_lines = 1
        self.last_line_bytes = 0
        self.full_output_path: str | None = None
        self._file: BinaryIO | None = None
        self._finished = False

    # -------------------------------------------------------------- input
    def append(self, data: bytes) -> None:
        self.total_raw_bytes += len(data)
        self._add_text(self._stripper.feed(self._decoder.decode(data)))
        if self._file is not None or self._needs_file():
            self._ensure_file()
            assert self._file is not None
            self._file.write(data)
        elif data:
            self._raw_chunks.append(data)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._add_text(self._stripper.feed(self._decoder.decode(b"", final=True), final=True))
        if self._needs_file():
            self._ensure_file()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _add_text(self, text: str) -> None:
        if not text:
            return
        nbytes = len(text.encode("utf-8", "surrogatepass"))
        self.total_bytes += nbytes
        self._tail += text
        self._tail_bytes += nbytes
        if self._tail_bytes > self._rolling * 2:
            self._trim()
        newlines = text.count("\n")
        if newlines:
            self.total_lines += newlines
            self.last_line_bytes = len(text[text.rfind("\n") + 1 :].encode("utf-8", "surrogatepass"))
        else:
            self.last_line_bytes += nbytes

    def _trim(self) -> None:
        data = self._tail.encode("utf-8", "surrogatepass")
        start = len(data) - self._rolling
        while start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
        self._tail_at_line_start = data[start - 1] == 0x0A
        self._tail = data[start:].decode("utf-8", "surrogatepass")
        self._tail_bytes = len(data) - start

    def _needs_file(self) -> bool:
        return (
            self.total_raw_bytes > self.max_bytes
            or self.total_bytes > self.max_bytes
            or self.total_lines > self.max_lines
        )

    def _ensure_file(self) -> None:
        if self.full_output_path is not None:
            return
        self.full_output_path, self._file = create_log(self._prefix)  # 0600; removed at exit
        for chunk in self._raw_chunks:
            self._file.write(chunk)
        self._raw_chunks = []

    # -------------------------------------------------------------- output
    def snapshot(self) -> TruncationResult:
        """Tail-truncated view; totals describe the whole output, not just the retained tail."""
        text = self._tail
        if not self._tail_at_line_start:
            nl = text.find("\n")
            text = text if nl == -1 else text[nl + 1 :]
        tail = truncate_tail(text, self.max_lines, self.max_bytes)
        truncated = self.total_lines > self.max_lines or self.total_bytes > self.max_bytes
        truncated_by = None
        if truncated:
            truncated_by = tail.truncatedBy or ("bytes" if self.total_bytes > self.max_bytes else "lines")
            self._ensure_file()
        return tail.model_copy(
            update={
                "truncated": truncated,
                "truncatedBy": truncated_by,
                "totalLines": self.total_lines,
                "totalBytes": self.total_bytes,
            }
        )
