"""What ``pi`` and ``ctx`` need of the runtime behind them, as a Protocol.

:class:`pi_app.extensions.runner.ExtensionRunner` satisfies it; ``api`` and ``context`` depend on this
module instead of the runner, so the runner can build them without an import cycle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pi_app.ai.types import ImageContent, TextContent
from pi_app.extensions.bus import EventBus
from pi_app.extensions.types import DeliverAs, ExtensionUI, FlagDefinition, MarkdownTransformer, Mode

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.config import ModelRegistry, SettingsManager

T = TypeVar("T")
# handler(event, ctx); the ctx type lives above this module (pi_app.extensions.context)
AnyHandler = Callable[..., Any]


class ExtensionHost(Protocol):
    cwd: str
    mode: Mode
    ui: ExtensionUI
    bus: EventBus
    project_trusted: bool
    settings: SettingsManager
    model_registry: ModelRegistry

    @property
    def has_ui(self) -> bool: ...

    def require_session(self) -> AgentSession: ...

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]: ...

    def request_shutdown(self) -> None: ...

    def add_handler(self, extension: str, event: str, handler: AnyHandler) -> Callable[[], None]: ...

    def add_tool(self, extension: str, definition: Any) -> None: ...

    def add_command(self, extension: str, command: Any) -> None: ...

    def add_shortcut(self, extension: str, shortcut: Any) -> None: ...

    def add_flag(self, extension: str, flag: FlagDefinition) -> None: ...

    def add_message_renderer(
        self, extension: str, custom_type: str, renderer: Callable[..., Any]
    ) -> None: ...

    def add_entry_renderer(self, extension: str, custom_type: str, renderer: Callable[..., Any]) -> None: ...

    def set_markdown_transformer(
        self, extension: str, transformer: MarkdownTransformer, message_types: frozenset[str] | None
    ) -> None: ...

    def append_entry(self, custom_type: str, data: Any) -> str: ...

    def ui_for(self, name: str) -> ExtensionUI: ...

    def flag_value(self, name: str) -> bool | str | None: ...

    def register_provider(
        self, extension: str, name: str, config: dict[str, Any], stream: Callable[..., Any] | None
    ) -> None: ...

    def unregister_provider(self, name: str) -> None: ...

    async def send_custom_message(
        self,
        custom_type: str,
        content: str | list[Any],
        display: bool,
        details: Any,
        trigger_turn: bool,
        deliver_as: DeliverAs,
    ) -> None: ...

    async def send_user_message(
        self, content: str | list[TextContent | ImageContent], deliver_as: DeliverAs | None
    ) -> None: ...
