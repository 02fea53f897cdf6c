"""A very long transcript encoded on two cores.

Building a request from a resumed 50,000-message session is CPU work per message (typed from its line,
transformed, converted, encoded): about half a second on one core, during which the second core idles. On
Linux, when this process runs no other thread, the first part of the transcript is encoded by a forked
child while this process encodes the rest; the child sends its bytes back through a pipe and exits.

Both parts start from a fresh provider state. The two are the same bytes as one pass only where the first
part ended with nothing carried over (no tool call waiting for its result, no id rename that applies to
the second part, nothing owed before the next message), so the split point is a new question or a new
step of an answer, right after a finished one, and the provider checks both parts' end states
(``joinable``). If they do not join, or the child fails in any way, or the platform cannot fork safely,
the caller encodes the transcript in one pass as it always did. A stored message the child found unusable
is typed again here, so it is reported by this process, once.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pi_app.ai.deferred import Deferred
from pi_app.ai.providers.json_body import EncodedArray, joined_in_chunks

# A provider's summary of where a part ended. It crosses the pipe as a plain tuple of what marshal writes
# (a NamedTuple comes back as a plain tuple, which the provider's ``joinable`` views as its own again).
S = TypeVar("S", bound=tuple[bool | int | str | list[str], ...])

SPLIT_AT = 8000  # messages; below this a fork and a pipe cost about what the second core saves
_REACH = 4  # the split point is looked for within a quarter of the transcript either side of its middle
_HEAD = struct.Struct("<Q")  # the length of the child's header
_PIPE_BYTES = 1 << 20  # also the size of the pieces the child's bytes come in
_STARTS = ("user", "assistant")  # a split point's message...
_ENDS = ("assistant", "toolResult")  # ...and the one before it
_PATIENCE = 3  # times its expected time, plus _GRACE seconds, that the child's part may take
_GRACE = 1.0

EncodePart = Callable[[Sequence[Any], bool], tuple[EncodedArray, S]]  # (messages, first part?) -> result


@dataclass
class Split(Generic[S]):
    """The transcript as one array (the child's part in pieces of whole runs, then this process's runs) and
    each part's end state, first then second."""

    array: EncodedArray
    states: tuple[S, S]


def split_point(messages: Sequence[Any], share: float = 0.5) -> int | None:
    """An index near ``share`` of the way where a question or an answer's next step follows a finished one
    (None if there is none): an agentic run of one question and thousands of tool calls splits too."""
    n = len(messages)
    mid, reach = int(n * share), n // _REACH
    for step in range(reach):
        for k in (mid - step, mid + step):
            if 0 < k < n and messages[k].role in _STARTS and messages[k - 1].role in _ENDS:
                return k
    return None


def can_fork() -> bool:
    """Fork is safe here: Linux (on macOS a forked child may not touch system frameworks) and no other
    thread, whose locks the child would inherit held."""
    return sys.platform == "linux" and hasattr(os, "fork") and threading.active_count() == 1


@dataclass
class Meanwhile:
    """Work this process does while the child encodes, before its own part: what the request needs next
    (the first use of an SDK's client is mostly imports). ``share`` is the child's part of the transcript,
    more than half by about what the work costs."""

    run: Callable[[], object]
    share: float


def encode_split(
    messages: Sequence[Any],
    encode_part: EncodePart[S],
    joinable: Callable[[S, S], bool],
    meanwhile: Meanwhile | None = None,
) -> Split[S] | None:
    """``messages`` encoded in two parts at once (None: not split, encode them in one pass).

    ``encode_part(part, first)`` encodes a part from a fresh state (only the first part opens the
    request's own leading items) and summarises where it ended; ``joinable(first, second)`` says whether
    the two parts equal one pass. ``meanwhile`` runs only if there is a child."""
    if len(messages) < SPLIT_AT or not can_fork():
        return None
    share = meanwhile.share if meanwhile is not None else 0.5
    k = split_point(messages, share)
    if k is None:
        return None
    started: list[_Child[S]] = []  # the child is in it before any signal can interrupt this process
    try:
        child = _Child.start(messages[:k], encode_part, started)
        if child is None:
            return None
        if meanwhile is not None:
            meanwhile.run()
        began = time.monotonic()
        second, second_state = encode_part(messages[k:], False)
        # The child's part takes about this one's time, scaled by their sizes: a child far slower than that is
        # stuck (or starved), and encoding its part here is the bounded way out.
        expected = (time.monotonic() - began) * share / (1 - share)
        first = child.collect(time.monotonic() + _PATIENCE * expected + _GRACE)
    except BaseException:  # Ctrl+C included: no child is left running, blocked on the pipe or unreaped
        for c in started:
            c.kill()
        raise
    if first is None:  # the child failed: its part here instead (one pass would cost the same)
        local, local_state = encode_part(messages[:k], True)
        first = (local.runs, local.count, local_state, [])
    pieces, count, first_state, dropped = first
    for i in dropped:
        msg = messages[i]
        if isinstance(msg, Deferred):
            msg.transient()  # reported here (the child's report went nowhere), and remembered as unusable
    if not joinable(first_state, second_state):
        return None
    array = EncodedArray()
    array.runs = [*pieces, *second.runs]  # each piece is whole runs, so the array's commas go between them
    array.count = count + second.count
    return Split(array, (first_state, second_state))


@dataclass
class _Child(Generic[S]):
    """A forked process encoding the first part, and the pipe its result comes back through."""

    pid: int
    fd: int
    reaped: bool = False  # waited for (its pid may be another process's from then on: never signal it)

    @classmethod
    def start(
        cls, part: Sequence[Any], encode_part: EncodePart[S], started: list[_Child[S]]
    ) -> _Child[S] | None:
        """Fork the child (None if that is not possible), appended to ``started`` before this process can
        take a signal again."""
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        child: _Child[S] | None = None
        try:
            with contextlib.suppress(OSError, AttributeError):  # fewer round trips for megabytes of JSON
                import fcntl

                fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
            # Signals wait until each process has made them its own: the child must never run a handler of
            # this process's (nor wake its event loop), and this process must not lose track of the child.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
            try:
                pid = os.fork()
                if pid == 0:
                    _run_child(read_fd, write_fd, part, encode_part, mask)  # never returns
                child = cls(pid, read_fd)
                started.append(child)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        except OSError:
            return None
        finally:
            os.close(write_fd)
            if child is None:
                os.close(read_fd)
        return child

    def kill(self) -> None:
        if not self.reaped:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def collect(self, deadline: float) -> tuple[list[bytes], int, S, list[int]] | None:
        """The child's bytes (in pieces of whole runs), item count, end state and unusable messages; None
        if it did not finish (by ``deadline``, on the monotonic clock). Reaps the child."""
        try:
            (head_len,) = _HEAD.unpack(_read_exact(self.fd, _HEAD.size, deadline))
            count, state, dropped, sizes = marshal.loads(_read_exact(self.fd, head_len, deadline))
            # Read piece by piece, never all at once and then copied: the body is the run's largest object.
            pieces = [_read_exact(self.fd, size, deadline) for size in sizes]
            if _read_exact(self.fd, 1, deadline, at_end=True):
                raise ValueError("more than the header said")
        except (OSError, EOFError, ValueError, TypeError):  # (a missed deadline is a TimeoutError)
            self.kill()
            return None
        return (pieces, count, state, dropped) if self._reap() else None

    def _reap(self) -> bool:
        """Close the pipe and wait for the child: True if it exited cleanly."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:  # (reaped by someone else)
            self.reaped = True
            return False
        self.reaped = True  # only now: a wait interrupted by Ctrl+C leaves it to the caller's kill()
        return os.waitstatus_to_exitcode(status) == 0


def _run_child(
    read_fd: int,
    write_fd: int,
    part: Sequence[Any],
    encode_part: EncodePart[S],
    mask: set[int | signal.Signals],
) -> None:
    """In the forked child (signals still blocked): encode ``part``, write the result, exit without running
    anything of the parent's (no signal or atexit handler, no buffered output flushed twice)."""
    code = 1
    try:
        os.close(read_fd)
        for sig in signal.valid_signals():  # the parent's handlers (cleanup on SIGTERM, ...) are not ours
            with contextlib.suppress(OSError, ValueError, TypeError):
                if callable(signal.getsignal(sig)):
                    signal.signal(sig, signal.SIG_DFL)
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(-1)  # the parent's event loop listens on it
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # Ctrl+C now ends the child plainly
        gc.disable()  # a collection would touch (and so copy) every page shared with the parent
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # the parent's stdout may be a protocol (rpc, json): nothing may reach it
        os.dup2(devnull, 2)
        array, state = encode_part(part, True)
        dropped = [i for i, m in enumerate(part) if isinstance(m, Deferred) and m.found_unusable]
        pieces = list(joined_in_chunks(array.runs, _PIPE_BYTES, b","))  # whole runs, commas between
        head = marshal.dumps((array.count, tuple(state), dropped, [len(p) for p in pieces]))
        _write_all(write_fd, _HEAD.pack(len(head)) + head)
        for piece in pieces:
            _write_all(write_fd, piece)
        code = 0
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, size: int, deadline: float, at_end: bool = False) -> bytes:
    """``size`` bytes from the pipe (``at_end``: up to ``size``, the end of the output being expected)."""
    parts: list[bytes] = []
    got = 0
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while got < size:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(remaining * 1000):
            raise TimeoutError("the child took too long")
        more = os.read(fd, size - got)
        if not more:
            if at_end:
                break
            raise EOFError("the child's output ended early")
        parts.append(more)
        got += len(more)
    return parts[0] if len(parts) == 1 else b"".join(parts)
