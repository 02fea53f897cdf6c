"""What the runtime keeps per extension (:class:`LoadedExtension`), how it reports a failure
(:class:`ExtensionError`) and how it calls handlers (:class:`Dispatch`): in extension load order, then
registration order; an exception is reported through ``on_error``, never raised into the session."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pi_app.agent.types import hook_field
from pi_app.extensions import events as ev
from pi_app.extensions.definitions import CommandDefinition, ShortcutDefinition, ToolDefinition
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.types import AutocompleteFactory, FlagDefinition, MarkdownTransformer

if TYPE_CHECKING:
    from pi_app.extensions.context import ExtensionContext

log = logging.getLogger(__name__)
Handler = Callable[[Any, "ExtensionContext"], Any]


def get_field(obj: Any, name: str, camel: str | None = None) -> Any:
    """A field of a handler's result: an attribute or a dict key, snake_case or pi's camelCase."""
    return hook_field(obj, name, camel)


@dataclass(frozen=True)
class ExtensionError:
    """One failure inside an extension, as every mode reports it."""

    extension: str  # the extension's name
    path: str
    event: str  # the event, "register", "tool:<name>", "command:<name>" …
    error: str

    def to_json(self) -> dict[str, str]:
        return {
            "type": "extension_error",
            "extensionPath": self.path,
            "event": self.event,
            "error": self.error,
        }

    def __str__(self) -> str:
        return f"Extension error ({self.extension}): {self.error}"


@dataclass
class LoadedExtension:
    """What the runtime keeps for one loaded extension: its module and everything its ``register(pi)`` added."""

    source: ExtensionSource
    module: ModuleType | None = None
    handlers: dict[str, list[Handler]] = field(default_factory=dict)
    tools: dict[str, ToolDefinition] = field(default_factory=dict)
    commands: dict[str, CommandDefinition] = field(default_factory=dict)
    shortcuts: list[ShortcutDefinition] = field(default_factory=list)
    flags: dict[str, FlagDefinition] = field(default_factory=dict)
    providers: list[str] = field(default_factory=list)
    message_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    entry_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # (transformer, the message types it runs on); one per extension, as pi has it
    markdown_transformer: tuple[MarkdownTransformer, frozenset[str]] | None = None
    autocomplete: list[AutocompleteFactory] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.source.name


class Dispatch:
    """The loaded extensions and their handlers by event."""

    def __init__(self, context_for: Callable[[str], ExtensionContext]) -> None:
        self.extensions: list[LoadedExtension] = []
        self.on_error: Callable[[ExtensionError], None] = lambda e: log.warning("%s", e)
        self._context_for = context_for
        self._index: dict[str, list[tuple[LoadedExtension, Handler]]] = {}

    def reindex(self) -> None:
        index: dict[str, list[tuple[LoadedExtension, Handler]]] = {}
        for ext in self.extensions:
            for event, handlers in ext.handlers.items():
                index.setdefault(event, []).extend((ext, h) for h in handlers)
        self._index = index

    def handlers(self, event: str) -> list[tuple[LoadedExtension, Handler]]:
        """A copy: a handler may subscribe or unsubscribe while the others run."""
        return list(self._index.get(event, ()))

    def has_handlers(self, event: str) -> bool:
        return bool(self._index.get(event))

    def report(self, ext: LoadedExtension, event: str, error: str) -> None:
        try:
            self.on_error(ExtensionError(ext.name, ext.source.path, event, error))
        except Exception:
            log.exception("extension error sink failed")

    async def call(
        self, ext: LoadedExtension, handler: Handler, event: ev.ExtensionEvent, event_name: str
    ) -> tuple[bool, Any]:
        """(ok, result) of one handler; failures reported."""
        try:
            result = handler(event, self._context_for(ext.name))
            if result is not None and inspect.isawaitable(result):  # most handlers are sync and return None
                result = await result
            return True, result
        except Exception as exc:
            self.report(ext, event_name, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            return False, None

    async def emit(self, event: ev.ExtensionEvent) -> None:
        """Notify every handler of ``event.type``; results ignored."""
        for ext, handler in self.handlers(event.type):
            await self.call(ext, handler, event, event.type)
