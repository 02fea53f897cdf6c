"""``pi``: the object an extension's ``register(pi)`` receives (pi's ExtensionAPI, Python names).

Registrations made during ``register`` are kept by the runner and applied when the session exists; made
later (from a handler or command) they apply at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pi_app.agent.tool import AgentTool, ToolContent
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, Model, TextContent
from pi_app.extensions.bus import EventBus
from pi_app.extensions.definitions import (
    CommandDefinition,
    CommandHandler,
    Completer,
    ShortcutDefinition,
    ShortcutHandler,
    ToolDefinition,
    ToolExecute,
)
from pi_app.extensions.host import AnyHandler, ExtensionHost
from pi_app.extensions.types import DeliverAs, ExecResult, FlagDefinition, MarkdownTransformer

if TYPE_CHECKING:
    from pi_app.session.config.settings_schema import Settings


class ExtensionAPI:
    def __init__(self, runner: ExtensionHost, extension_name: str, path: str) -> None:
        self._runner = runner
        self.extension_name = extension_name
        self.path = path

    @property
    def events(self) -> EventBus:
        return self._runner.bus

    # ---------------------------------------------------------------- events
    def on(self, event: str, handler: AnyHandler) -> Callable[[], None]:
        """Subscribe ``handler(event, ctx)`` (sync or async) to ``event``; returns an unsubscriber."""
        return self._runner.add_handler(self.extension_name, event, handler)

    # ---------------------------------------------------------------- registrations
    def register_tool(
        self,
        definition: ToolDefinition | None = None,
        /,
        *,
        name: str | None = None,
        description: str = "",
        parameters: Any = None,
        execute: ToolExecute | None = None,
        **options: Any,
    ) -> None:
        """A ToolDefinition, or its fields as keywords. A tool named like a built-in replaces it."""
        if definition is None:
            if not name or execute is None:
                raise ValueError("register_tool needs a name and an execute function")
            kwargs: dict[str, Any] = {"name": name, "description": description, "execute": execute, **options}
            if parameters is not None:
                kwargs["parameters"] = parameters
            definition = ToolDefinition(**kwargs)
        self._runner.add_tool(self.extension_name, definition)

    def register_command(
        self,
        name: str,
        handler: CommandHandler,
        *,
        description: str = "",
        get_argument_completions: Completer | None = None,
    ) -> None:
        """``/name args`` runs ``handler(args, ctx)`` in every mode (typed, RPC ``prompt``, ``-p``)."""
        self._runner.add_command(
            self.extension_name,
            CommandDefinition(name.lstrip("/"), handler, description, get_argument_completions),
        )

    def register_shortcut(
        self, key: str, handler: ShortcutHandler, *, description: str = "", name: str | None = None
    ) -> None:
        """``handler(ctx)`` on ``key`` in the app. keybindings.json remaps it under the id
        ``ext.<extension>.<name>`` (``name`` defaults to ``key``), like pi's own actions."""
        self._runner.add_shortcut(self.extension_name, ShortcutDefinition(key, handler, description, name))

    def register_message_renderer(self, custom_type: str, renderer: Callable[[Any, bool], Any]) -> None:
        """Draw custom messages of ``custom_type`` in the app: ``renderer(message, expanded)`` returns a Rich
        renderable, text, a list of lines or a Textual widget (None: the default look). Elsewhere (export,
        print) the message's text stands in."""
        self._runner.add_message_renderer(self.extension_name, custom_type, renderer)

    def register_entry_renderer(self, custom_type: str, renderer: Callable[[Any, bool], Any]) -> None:
        """Draw custom entries of ``custom_type`` (``append_entry``) in the app's conversation, live and on
        resume: ``renderer(entry, expanded)`` gets the stored entry (``entry.data``) and returns what a
        message renderer may. Entries without a renderer stay invisible (they are not messages)."""
        self._runner.add_entry_renderer(self.extension_name, custom_type, renderer)

    def register_markdown_transformer(
        self, transformer: MarkdownTransformer, *, message_types: Sequence[str] | None = None
    ) -> None:
        """Change Markdown before the app draws it: ``transformer(markdown, context)`` returns the new text
        (``context.message_type``: ``"user"``, ``"assistant"``, ``"assistant-thinking"``). Display only: the
        stored message and the model's context never change. One per extension; registering again
        replaces it."""
        types = frozenset(message_types) if message_types is not None else None
        self._runner.set_markdown_transformer(self.extension_name, transformer, types)

    def register_flag(
        self,
        name: str,
        *,
        description: str = "",
        type: Literal["boolean", "string"] = "boolean",
        default: bool | str | None = None,
    ) -> None:
        """A ``--name`` command-line flag (listed in ``--help``); read it with :meth:`get_flag`."""
        self._runner.add_flag(
            self.extension_name, FlagDefinition(name.lstrip("-"), description, type, default)
        )

    def get_flag(self, name: str) -> bool | str | None:
        return self._runner.flag_value(name.lstrip("-"))

    def register_provider(
        self,
        name: str,
        config: dict[str, Any],
        *,
        stream: Callable[..., Any] | None = None,
    ) -> None:
        """A provider in models.json's shape (``baseUrl``, ``apiKey``, ``api``, ``headers``, ``models``);
        ``stream`` (pi's ``streamSimple``) serves a new ``api`` with your own streaming function."""
        self._runner.register_provider(self.extension_name, name, config, stream)

    def unregister_provider(self, name: str) -> None:
        self._runner.unregister_provider(name)

    # ---------------------------------------------------------------- messages and entries
    async def send_message(
        self,
        custom_type: str,
        content: str | list[ToolContent],
        *,
        display: bool = True,
        details: Any = None,
        trigger_turn: bool = False,
        deliver_as: DeliverAs = "steer",
    ) -> None:
        """Add a custom message to the context (pi's ``sendMessage``)."""
        await self._runner.send_custom_message(
            custom_type, content, display, details, trigger_turn, deliver_as
        )

    async def send_user_message(
        self, content: str | list[TextContent | ImageContent], *, deliver_as: DeliverAs | None = None
    ) -> None:
        """As if the user typed it: starts a run when idle, else queued as ``deliver_as`` (default steer)."""
        await self._runner.send_user_message(content, deliver_as)

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """A custom entry in the session file: kept and restored with the session, never sent to the
        model. Returns its id."""
        return self._runner.append_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._runner.require_session().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._runner.require_session().session_name

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._runner.require_session().set_label(entry_id, label)

    def get_commands(self) -> list[dict[str, Any]]:
        return self._runner.require_session().get_commands()

    # ---------------------------------------------------------------- processes
    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        from pi_app.extensions.exec import run_exec

        return await run_exec(
            command, tuple(args), cwd=cwd or self._runner.cwd, timeout=timeout, signal=signal
        )

    # ---------------------------------------------------------------- tools, model, settings
    def get_active_tools(self) -> list[str]:
        return self._runner.require_session().tool_names

    def get_all_tools(self) -> list[AgentTool]:
        return self._runner.require_session().get_all_tools()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._runner.require_session().set_active_tools(list(names))

    async def set_model(self, model: Model) -> bool:
        """False when the model's provider has no credentials (nothing changes then)."""
        session = self._runner.require_session()
        if not await session.model_registry.get_api_key(model):
            return False
        await session.set_model(model)
        return True

    def get_thinking_level(self) -> str:
        return self._runner.require_session().thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._runner.require_session().set_thinking_level(level)

    def get_settings(self) -> Settings:
        return self._runner.settings.settings
