"""``ctx.ui`` as one extension sees it: the mode's UI (:class:`~pi_app.extensions.types.ExtensionUI`),
told which extension is calling (so an error line can name it), with pi's ``ui_prompt_start`` /
``ui_prompt_end`` notifications around every dialog and custom screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from pi_app.ai.abort import AbortSignal
from pi_app.extensions.events import UiPromptEndEvent, UiPromptKind, UiPromptStartEvent
from pi_app.extensions.types import AutocompleteFactory, ExtensionUI, NotifyLevel


@runtime_checkable
class OwnedUI(Protocol):
    """A mode's UI that can act for one extension (the app's: widgets and error lines name it)."""

    def for_extension(self, name: str) -> ExtensionUI: ...


@runtime_checkable
class EntryDisplay(Protocol):
    """A mode's UI that draws custom entries (the app's conversation)."""

    def show_entry(self, entry: Any) -> None: ...


@runtime_checkable
class ResettableUI(Protocol):
    """A mode's UI that holds what extensions put on screen (the app's widgets, status, header, footer)."""

    async def clear_extension_ui(self) -> None:
        """The extensions are being unloaded: remove everything they showed, restore pi's own parts."""
        ...


class PromptSpans:
    """Counts the dialogs that wait for the user; ``notify`` gets the start of the outermost one and the end
    of the last to close (nested or overlapping prompts are one span, as pi has it)."""

    def __init__(self, notify: Callable[[UiPromptStartEvent | UiPromptEndEvent], None]) -> None:
        self._notify = notify
        self._open = 0
        self._first: tuple[UiPromptKind, str | None] | None = None

    def start(self, kind: UiPromptKind, title: str | None) -> None:
        self._open += 1
        if self._open == 1:
            self._first = (kind, title)
            self._notify(UiPromptStartEvent(kind, title))

    def end(self) -> None:
        self._open -= 1
        if self._open == 0 and self._first is not None:
            kind, title = self._first
            self._first = None
            self._notify(UiPromptEndEvent(kind, title))


class ExtensionUIView:
    """Forwards to ``inner``; dialogs are wrapped in a prompt span; autocomplete providers are recorded by
    ``keep_provider`` (the runtime, so ``/reload`` forgets them) before the UI is told."""

    def __init__(
        self,
        inner: ExtensionUI,
        spans: PromptSpans,
        keep_provider: Callable[[AutocompleteFactory], None] = lambda factory: None,
    ) -> None:
        self.inner = inner
        self._spans = spans
        self._keep_provider = keep_provider

    async def _prompt(self, kind: UiPromptKind, title: str | None, answer: Any) -> Any:
        self._spans.start(kind, title)
        try:
            return await answer
        finally:
            self._spans.end()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        answer = self.inner.select(title, options, timeout=timeout, signal=signal)
        result: str | None = await self._prompt("select", title, answer)
        return result

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        answer = self.inner.confirm(title, message, timeout=timeout, signal=signal)
        return bool(await self._prompt("confirm", title, answer))

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        answer = self.inner.input(title, placeholder, timeout=timeout, signal=signal)
        result: str | None = await self._prompt("input", title, answer)
        return result

    async def editor(self, title: str, prefill: str = "") -> str | None:
        result: str | None = await self._prompt("editor", title, self.inner.editor(title, prefill))
        return result

    async def custom(self, screen: Any, *, timeout: float | None = None) -> Any:
        return await self._prompt("custom", None, self.inner.custom(screen, timeout=timeout))

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self.inner.notify(message, level)

    def set_status(self, key: str, text: str | None) -> None:
        self.inner.set_status(key, text)

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        self.inner.set_widget(key, content, placement)

    def set_title(self, title: str) -> None:
        self.inner.set_title(title)

    def set_editor_text(self, text: str) -> None:
        self.inner.set_editor_text(text)

    def get_editor_text(self) -> str:
        return self.inner.get_editor_text()

    def set_footer(self, widget: Any) -> None:
        self.inner.set_footer(widget)

    def set_header(self, widget: Any) -> None:
        self.inner.set_header(widget)

    def add_autocomplete_provider(self, factory: AutocompleteFactory) -> None:
        self._keep_provider(factory)
        self.inner.add_autocomplete_provider(factory)
