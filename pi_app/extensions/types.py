"""What extensions register: tools, commands, shortcuts, flags; and the UI surface a mode offers them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pi_app.ai.abort import AbortSignal

Mode = Literal["tui", "rpc", "json", "print"]
NotifyLevel = Literal["info", "warning", "error"]
Scope = Literal["user", "project", "temporary"]
DeliverAs = Literal["steer", "followUp", "follow_up", "nextTurn", "next_turn"]


@dataclass
class FlagDefinition:
    """A command-line flag an extension registered (``--name``), boolean or taking a string."""

    name: str
    description: str = ""
    type: Literal["boolean", "string"] = "boolean"
    default: bool | str | None = None


@dataclass(frozen=True)
class ExecResult:
    """``pi.exec``: output, exit code (128+N for a signal, as a shell reports it) and whether pi killed it."""

    stdout: str
    stderr: str
    code: int
    killed: bool = False
    truncated: bool = False


@dataclass(frozen=True)
class AutocompleteItem:
    """One suggestion: ``value`` replaces the prefix (a space follows unless it ends with ``/``)."""

    value: str
    label: str = ""
    description: str = ""


@dataclass(frozen=True)
class AutocompleteSuggestions:
    """An autocomplete provider's answer: the suggestions, and the prefix the chosen one replaces."""

    prefix: str  # the text left of the cursor that the chosen item's value replaces
    items: list[AutocompleteItem] = field(default_factory=list)


class AutocompleteProvider(Protocol):
    """pi's autocomplete provider, synchronous: the editor asks on every keystroke."""

    def get_suggestions(
        self, lines: list[str], cursor_line: int, cursor_col: int, force: bool
    ) -> AutocompleteSuggestions | None:
        """Suggestions at the cursor (None: nothing to suggest); ``force`` is Tab."""
        ...


# ``add_autocomplete_provider(factory)``: ``factory(current)`` wraps the provider in effect (delegate to
# ``current.get_suggestions`` when your syntax does not match)
AutocompleteFactory = Callable[[AutocompleteProvider], AutocompleteProvider]


@dataclass(frozen=True)
class MarkdownContext:
    """What a Markdown transformer is told about the text it gets (pi's names, snake_case)."""

    message_type: str  # "user", "assistant", "assistant-thinking"
    is_streaming: bool = False


MarkdownTransformer = Callable[[str, MarkdownContext], str]
DEFAULT_MARKDOWN_TYPES = frozenset({"user", "assistant", "assistant-thinking"})


class ExtensionUI(Protocol):
    """What ``ctx.ui`` offers. Without a UI (print, json) dialogs return their default at once."""

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None: ...

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool: ...

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None: ...

    async def editor(self, title: str, prefill: str = "") -> str | None: ...

    def notify(self, message: str, level: NotifyLevel = "info") -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None: ...

    def set_title(self, title: str) -> None: ...

    def set_editor_text(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...

    async def custom(self, screen: Any, *, timeout: float | None = None) -> Any: ...

    def set_footer(self, widget: Any) -> None: ...

    def set_header(self, widget: Any) -> None: ...

    def add_autocomplete_provider(self, factory: AutocompleteFactory) -> None: ...


class NoUI:
    """``ctx.ui`` in print and json modes: dialogs answer their cancel value, notifications go to stderr."""

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        return None

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        return False

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        return None

    async def editor(self, title: str, prefill: str = "") -> str | None:
        return None

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        print(f"[{level}] {message}" if level != "info" else message, file=sys.stderr)

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    async def custom(self, screen: Any, *, timeout: float | None = None) -> Any:
        return None

    def set_footer(self, widget: Any) -> None:
        return None

    def set_header(self, widget: Any) -> None:
        return None

    def add_autocomplete_provider(self, factory: AutocompleteFactory) -> None:
        return None
