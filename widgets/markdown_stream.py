"""Streaming Markdown into a live ``Markdown`` widget, with a stop that may drop what is not parsed yet.

Textual's public ``MarkdownStream`` (``textual.widgets.markdown``) always parses its pending fragments when it
stops; a live block that is about to be replaced by its frozen form only loses time doing that. This is the
same coalescing writer over the public ``Markdown.append``, plus ``stop(discard=True)``.
"""

from __future__ import annotations

import asyncio
import contextlib

from textual.widgets import Markdown


class LiveMarkdownStream:
    def __init__(self, markdown: Markdown) -> None:
        self.markdown = markdown
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = asyncio.create_task(self._run())

    async def write(self, fragment: str) -> None:
        """Queue a fragment; fragments that arrive while a parse runs are appended together."""
        if self._task is None:
            raise RuntimeError("Can't write to the stream after it has stopped.")
        if fragment:
            self._pending.append(fragment)
            self._wake.set()
            await asyncio.sleep(0)  # let the writer task pick it up

    async def stop(self, discard: bool = False) -> None:
        """End the writer task; what is still queued is appended, or dropped with ``discard``."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError  # only a cancellation of the caller itself propagates
        rest, self._pending = "".join(self._pending), []
        if rest and not discard:
            await self.markdown.append(rest)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            text, self._pending = "".join(self._pending), []
            if text:
                await asyncio.shield(self.markdown.append(text))
