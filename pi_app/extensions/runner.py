"""The extension runtime: loads extensions, keeps what they register, binds them to a session and serves
``pi`` / ``ctx`` (messages, UI, contexts, /reload).

Calling handlers is :class:`~pi_app.extensions.registry.Dispatch`'s job; the session's decision points are
:mod:`pi_app.extensions.session_hooks`, the agent's request and tool hooks :mod:`pi_app.extensions.agent_hooks`.
Handlers run in extension load order, then registration order. Composition follows pi: notifications
ignore results; ``input``, ``context``, ``before_provider_request`` and ``tool_result`` chain (each handler
sees the previous one's output); ``tool_call`` and ``session_before_*`` are gates (the first block or
cancel wins). An exception never escapes into the session: it is reported through ``on_error`` (chat,
``extension_error`` over RPC, stderr in print/json), and a failing ``tool_call`` handler blocks the call.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pi_app.ai.types import ImageContent, TextContent
from pi_app.extensions import agent_hooks
from pi_app.extensions import events as ev
from pi_app.extensions.api import ExtensionAPI
from pi_app.extensions.bus import EventBus
from pi_app.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_app.extensions.definitions import CommandDefinition, ShortcutDefinition, ToolDefinition
from pi_app.extensions.loader import ExtensionSource, LoadFailure, describe_error, import_extension, unload
from pi_app.extensions.registry import Dispatch, ExtensionError, Handler, LoadedExtension, get_field
from pi_app.extensions.session_hooks import ExtensionSessionHooks
from pi_app.extensions.tool_adapter import ExtensionTool, to_content
from pi_app.extensions.types import (
    DEFAULT_MARKDOWN_TYPES,
    AutocompleteFactory,
    DeliverAs,
    ExtensionUI,
    FlagDefinition,
    MarkdownContext,
    MarkdownTransformer,
    Mode,
    NoUI,
)
from pi_app.extensions.ui_view import EntryDisplay, ExtensionUIView, OwnedUI, PromptSpans, ResettableUI
from pi_app.session.messages import CustomMessage
from pi_app.session.session_events import SessionEvent, ThinkingLevelChangedEvent
from pi_app.tool_selection import ToolSelection, tool_selected

if TYPE_CHECKING:
    from pi_app.agent.tool import ToolContent
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.config import ModelRegistry, SettingsManager

log = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = ["ExtensionError", "ExtensionRunner", "LoadedExtension"]


class ExtensionRunner:
    def __init__(
        self,
        *,
        cwd: str,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        project_trusted: bool = True,
    ) -> None:
        self.cwd = cwd
        self.settings = settings
        self.model_registry = model_registry
        self.project_trusted = project_trusted
        self.dispatch = Dispatch(self.context_for)  # the loaded extensions and their handlers
        self.hooks = ExtensionSessionHooks(self)  # what the session asks (set_hooks)
        self.failures: list[LoadFailure] = []
        self.bus = EventBus()
        self.mode: Mode = "print"
        self.ui: ExtensionUI = NoUI()
        self._uis: dict[str, ExtensionUI] = {}  # ctx.ui per extension (see ui_for)
        self._spans = PromptSpans(self._prompt_span)
        self.flag_values: dict[str, bool | str] = {}
        self.on_shutdown_request: Callable[[], None] = lambda: None
        self.sources: list[ExtensionSource] = []  # every source asked for, loaded or failed
        self._session: AgentSession | None = None
        self._by_name: dict[str, LoadedExtension] = {}
        self._contexts: dict[str, ExtensionContext] = {}
        self._command_contexts: dict[str, ExtensionCommandContext] = {}
        self._next_turn: list[CustomMessage] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._thinking_level: str | None = None
        self._loading: LoadedExtension | None = None
        # finds the sources again for /reload (new files, a trust decision since); None: reload the same
        self.discover_sources: Callable[[bool], list[ExtensionSource]] | None = None
        # the command line's tool flags: they also decide tools registered later (MCP servers' tools)
        self.tool_selection: ToolSelection | None = None

    # ================================================================== loading
    async def load(self, sources: Sequence[ExtensionSource]) -> None:
        """Import each source and run its ``register(pi)``; a failure skips that extension only."""
        self.sources += sources
        for source in sources:
            ext = LoadedExtension(source)
            self._loading = ext
            try:
                ext.module = import_extension(source)
                register = getattr(ext.module, "register", None)
                if not callable(register):
                    raise AttributeError("no register(pi) function")
                result = register(ExtensionAPI(self, ext.name, source.path))
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # SyntaxError is an Exception too
                message = describe_error(source, exc)
                self.failures.append(LoadFailure(source, message))
                self.dispatch.report(ext, "register", f"Failed to load extension: {message}")
                for provider in ext.providers:
                    self.model_registry.unregister_provider(provider)
                if ext.module is not None:
                    unload(ext.module)
                continue
            finally:
                self._loading = None
            self.extensions.append(ext)
            self._by_name[ext.name] = ext
        self.dispatch.reindex()

    def _owner(self, name: str) -> LoadedExtension:
        if self._loading is not None and self._loading.name == name:
            return self._loading
        return self._by_name[name]

    # ---------------------------------------------------------------- registrations (from ExtensionAPI)
    def add_handler(self, extension: str, event: str, handler: Handler) -> Callable[[], None]:
        ext = self._owner(extension)
        ext.handlers.setdefault(event, []).append(handler)
        self.dispatch.reindex()

        def unsubscribe() -> None:
            handlers = ext.handlers.get(event, [])
            if handler in handlers:
                handlers.remove(handler)
                self.dispatch.reindex()

        return unsubscribe

    def add_tool(self, extension: str, definition: ToolDefinition) -> None:
        ext = self._owner(extension)
        ext.tools[definition.name] = definition
        if self._session is not None:
            self._install_tool(ext, definition)

    def _install_tool(self, ext: LoadedExtension, definition: ToolDefinition) -> None:
        assert self._session is not None
        tool = ExtensionTool(
            definition, ext.name, lambda: self.context_for(ext.name), prepare_images=self._prepare_images
        )
        allowed = self.tool_selection is None or tool_selected(self.tool_selection, definition.name)
        self._session.add_tool(tool, activate=definition.default_active and allowed)

    async def _prepare_images(self, content: list[ToolContent]) -> list[ToolContent]:
        """Images an extension or MCP tool returned, fitted to the current model's limits (``images``
        settings) before they enter the conversation, as pi does for every tool result (off the loop:
        decoding and resizing a screenshot takes a while)."""
        from pi_app.tools.images import prepare_content_images

        limits = self.require_session().image_limits()
        auto = bool(self.settings.settings.images.autoResize)
        return await asyncio.to_thread(prepare_content_images, content, auto_resize=auto, limits=limits)

    def add_command(self, extension: str, command: CommandDefinition) -> None:
        self._owner(extension).commands[command.name] = command

    def add_shortcut(self, extension: str, shortcut: ShortcutDefinition) -> None:
        self._owner(extension).shortcuts.append(shortcut)

    def add_message_renderer(self, extension: str, custom_type: str, renderer: Callable[..., Any]) -> None:
        self._owner(extension).message_renderers[custom_type] = renderer

    def add_entry_renderer(self, extension: str, custom_type: str, renderer: Callable[..., Any]) -> None:
        self._owner(extension).entry_renderers[custom_type] = renderer

    def entry_renderer(self, custom_type: str) -> tuple[str, Callable[..., Any]] | None:
        """(extension name, renderer) for a custom entry type; the last registration wins."""
        for ext in reversed(self.extensions):
            if custom_type in ext.entry_renderers:
                return ext.name, ext.entry_renderers[custom_type]
        return None

    def has_entry_renderers(self) -> bool:
        return any(ext.entry_renderers for ext in self.extensions)

    def append_entry(self, custom_type: str, data: Any) -> str:
        """A custom entry in the session file; shown at once by a UI that draws entries (when an extension
        renders that type)."""
        session = self.require_session()
        entry_id = session.session_manager.append_custom_entry(custom_type, data)
        if isinstance(self.ui, EntryDisplay) and self.entry_renderer(custom_type) is not None:
            entry = session.session_manager.get_entry(entry_id)
            if entry is not None:
                self.ui.show_entry(entry)
        return entry_id

    def set_markdown_transformer(
        self, extension: str, transformer: MarkdownTransformer, message_types: frozenset[str] | None
    ) -> None:
        self._owner(extension).markdown_transformer = (transformer, message_types or DEFAULT_MARKDOWN_TYPES)

    def has_markdown_transformers(self) -> bool:
        return any(ext.markdown_transformer is not None for ext in self.extensions)

    def transform_markdown(self, markdown: str, message_type: str, is_streaming: bool = False) -> str:
        """Markdown about to be drawn, through each extension's transformer in load order. One that raises
        is reported and skipped (the text so far goes on to the next)."""
        context = MarkdownContext(message_type, is_streaming)
        for ext in self.extensions:
            if ext.markdown_transformer is None:
                continue
            transformer, types = ext.markdown_transformer
            if message_type not in types:
                continue
            try:
                result = transformer(markdown, context)
            except Exception as exc:
                self.dispatch.report(ext, "markdown_transformer", f"{type(exc).__name__}: {exc}")
                continue
            if isinstance(result, str):
                markdown = result
        return markdown

    def message_renderer(self, custom_type: str) -> tuple[str, Callable[..., Any]] | None:
        """(extension name, renderer) for a custom message type; the last registration wins."""
        for ext in reversed(self.extensions):
            if custom_type in ext.message_renderers:
                return ext.name, ext.message_renderers[custom_type]
        return None

    def tool_renderers(self, tool_name: str) -> tuple[str, ToolDefinition] | None:
        """(extension name, definition) of an extension tool that renders itself."""
        for ext in reversed(self.extensions):
            definition = ext.tools.get(tool_name)
            if definition is not None and (definition.render_call or definition.render_result):
                return ext.name, definition
        return None

    def add_flag(self, extension: str, flag: FlagDefinition) -> None:
        self._owner(extension).flags[flag.name] = flag

    def flag_value(self, name: str) -> bool | str | None:
        if name in self.flag_values:
            return self.flag_values[name]
        for ext in self.extensions or ([self._loading] if self._loading else []):
            if name in ext.flags:
                return ext.flags[name].default
        return None

    def flags(self) -> list[FlagDefinition]:
        return [f for ext in self.extensions for f in ext.flags.values()]

    def shortcuts(self) -> list[tuple[str, ShortcutDefinition]]:
        return [(ext.name, s) for ext in self.extensions for s in ext.shortcuts]

    def register_provider(
        self, extension: str, name: str, config: dict[str, Any], stream: Callable[..., Any] | None
    ) -> None:
        from pi_app.ai.stream import register_api_provider
        from pi_app.session.config.registry import ProviderRegistration

        stream = stream or config.get("streamSimple") or config.get("stream")
        if stream is not None:
            api = config.get("api")
            if not api:
                raise ValueError(f'Provider {name}: "api" is required with a stream function')
            register_api_provider(str(api), stream)
        known = {k: v for k, v in config.items() if k in ProviderRegistration.__dataclass_fields__}
        self.model_registry.register_provider(name, ProviderRegistration(**known))
        self._owner(extension).providers.append(name)

    def unregister_provider(self, name: str) -> None:
        self.model_registry.unregister_provider(name)

    # ================================================================== binding to a session
    def bind(self, session: AgentSession, *, mode: Mode = "print", ui: ExtensionUI | None = None) -> None:
        """Attach to ``session``: tools, decision hooks, the agent's request/tool hooks, event forwarding.
        The front end that runs the session sets its mode and ``ctx.ui`` with :meth:`set_ui`."""
        self._session = session
        self.set_ui(mode, ui)
        self._thinking_level = session.thinking_level
        for ext in self.extensions:
            for definition in ext.tools.values():
                self._install_tool(ext, definition)
        session.set_hooks(self.hooks)
        agent = session.agent
        dispatch = self.dispatch
        agent.transform_context = agent_hooks.chain_context(dispatch, agent.transform_context)
        agent.on_payload = agent_hooks.chain_payload(dispatch, agent.on_payload)
        agent.before_tool_call = partial(agent_hooks.before_tool_call, dispatch)
        agent.after_tool_call = partial(agent_hooks.after_tool_call, dispatch)
        self._unsubscribe = session.subscribe(self._on_session_event)

    def set_ui(self, mode: Mode, ui: ExtensionUI | None = None) -> None:
        self.mode = mode
        self.ui = ui or NoUI()
        self._uis.clear()

    def ui_for(self, name: str) -> ExtensionUI:
        """``ctx.ui`` of extension ``name``: the mode's UI acting for it, dialogs announced as prompt spans."""
        view = self._uis.get(name)
        if view is None:
            owned = self.ui.for_extension(name) if isinstance(self.ui, OwnedUI) else None
            inner = owned if owned is not None else self.ui  # (a duck-typed UI may answer anything)
            view = self._uis[name] = ExtensionUIView(inner, self._spans, partial(self._keep_provider, name))
        return view

    def _keep_provider(self, name: str, factory: AutocompleteFactory) -> None:
        ext = self._loading if self._loading is not None and self._loading.name == name else None
        ext = ext or self._by_name.get(name)
        if ext is not None:  # kept with its extension, so /reload forgets it
            ext.autocomplete.append(factory)

    def autocomplete_providers(self) -> list[tuple[str, AutocompleteFactory]]:
        """(extension name, factory) of every autocomplete provider, in the order they were added."""
        return [(ext.name, factory) for ext in self.extensions for factory in ext.autocomplete]

    def _prompt_span(self, event: ev.UiPromptStartEvent | ev.UiPromptEndEvent) -> None:
        # best effort and not awaited: the dialog opens (or closes) without waiting for the handlers
        if self.has_ui and self.dispatch.has_handlers(event.type):
            self.spawn(self.emit(event))

    def tool_names(self) -> list[str]:
        return [name for ext in self.extensions for name in ext.tools]

    @property
    def has_ui(self) -> bool:
        return self.mode in ("tui", "rpc")

    def require_session(self) -> AgentSession:
        if self._session is None:
            raise RuntimeError(
                "The session is not ready yet: call this from an event handler, tool or command"
            )
        return self._session

    def context_for(self, name: str) -> ExtensionContext:
        ctx = self._contexts.get(name)
        if ctx is None:
            ctx = self._contexts[name] = ExtensionContext(self, name)
        return ctx

    def command_context_for(self, name: str) -> ExtensionCommandContext:
        ctx = self._command_contexts.get(name)
        if ctx is None:
            ctx = self._command_contexts[name] = ExtensionCommandContext(self, name)
        return ctx

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def request_shutdown(self) -> None:
        self.on_shutdown_request()

    # ================================================================== dispatch
    @property
    def extensions(self) -> list[LoadedExtension]:
        return self.dispatch.extensions

    @property
    def on_error(self) -> Callable[[ExtensionError], None]:
        return self.dispatch.on_error

    @on_error.setter
    def on_error(self, sink: Callable[[ExtensionError], None]) -> None:
        self.dispatch.on_error = sink

    def has_handlers(self, event: str) -> bool:
        return self.dispatch.has_handlers(event)

    async def emit(self, event: ev.ExtensionEvent) -> None:
        """Notify every handler of ``event.type``; results ignored."""
        await self.dispatch.emit(event)

    async def _on_session_event(self, event: SessionEvent) -> None:
        if isinstance(event, ThinkingLevelChangedEvent):
            previous, self._thinking_level = self._thinking_level, event.level
            if self.has_handlers("thinking_level_select"):
                await self.emit(ev.ThinkingLevelSelectEvent(event.level, previous))
            return
        if self.dispatch.has_handlers(event.type):
            await self.emit(event)

    async def start(self, reason: Literal["startup", "reload"] = "startup") -> None:
        """``session_start`` then ``resources_discover`` (its paths are loaded into the session)."""
        await self.emit(ev.SessionStartEvent(reason))
        await self._discover_resources(reason)

    async def _discover_resources(self, reason: Literal["startup", "reload"]) -> None:
        if not self.has_handlers("resources_discover"):
            return
        skills: list[str] = []
        prompts: list[str] = []
        for ext, handler in self.dispatch.handlers("resources_discover"):
            ok, result = await self.dispatch.call(
                ext, handler, ev.ResourcesDiscoverEvent(self.cwd, reason), "resources_discover"
            )
            if ok and result is not None:
                skills += list(get_field(result, "skill_paths", "skillPaths") or [])
                prompts += list(get_field(result, "prompt_paths", "promptPaths") or [])
        if skills or prompts:
            self.require_session().add_resource_paths(skills, prompts)

    async def decide_trust(self, cwd: str) -> tuple[bool, bool] | None:
        """``project_trust`` (user and ``-e`` extensions only: project ones are not loaded yet). The first
        yes/no wins: (trusted, remember); None when every handler left it undecided."""
        for ext, handler in self.dispatch.handlers("project_trust"):
            ok, result = await self.dispatch.call(ext, handler, ev.ProjectTrustEvent(cwd), "project_trust")
            answer = get_field(result, "trusted") if ok else None
            if answer in ("yes", "no"):
                return answer == "yes", bool(get_field(result, "remember"))
        return None

    async def shutdown(self, reason: Literal["quit", "reload", "new", "resume", "fork"] = "quit") -> None:
        session = self._session
        await self.emit(
            ev.SessionShutdownEvent(reason, session.session_file if session is not None else None)
        )
        if reason != "quit" and isinstance(self.ui, ResettableUI):
            # The extensions are unloaded next (and loaded again): widgets, status, header and footer they
            # set would outlive the code behind them.
            cleared = self.ui.clear_extension_ui()
            if inspect.isawaitable(cleared):  # (a duck-typed UI may answer anything)
                await cleared

    # ================================================================== commands and shortcuts
    def command_infos(self) -> list[dict[str, Any]]:
        return self.hooks.command_infos()

    def commands(self) -> list[tuple[str, LoadedExtension, CommandDefinition]]:
        """Invocation names: a name two extensions register becomes ``name:1``, ``name:2`` (load order)."""
        counts: dict[str, int] = {}
        for ext in self.extensions:
            for name in ext.commands:
                counts[name] = counts.get(name, 0) + 1
        seen: dict[str, int] = {}
        out = []
        for ext in self.extensions:
            for name, command in ext.commands.items():
                if counts[name] > 1:
                    seen[name] = seen.get(name, 0) + 1
                    out.append((f"{name}:{seen[name]}", ext, command))
                else:
                    out.append((name, ext, command))
        return out

    def command_completions(self, name: str, prefix: str) -> list[str]:
        for invoked, ext, command in self.commands():
            if invoked == name and command.get_argument_completions is not None:
                try:
                    return list(command.get_argument_completions(prefix) or [])
                except Exception as exc:
                    self.dispatch.report(ext, f"command:{name}", str(exc))
        return []

    async def run_shortcut(self, extension: str, shortcut: ShortcutDefinition) -> None:
        ext = self._by_name[extension]
        try:
            result = shortcut.handler(self.context_for(extension))
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.dispatch.report(ext, f"shortcut:{shortcut.key}", f"{type(exc).__name__}: {exc}")

    def take_next_turn(self) -> list[CustomMessage]:
        """The custom messages sent with ``deliver_as="nextTurn"``, for the next run (then forgotten)."""
        messages, self._next_turn = self._next_turn, []
        return messages

    async def reload(self) -> None:
        """``/reload``: ``session_shutdown``, unload every extension and its tools, import the same sources
        again (edits are picked up), bind, ``session_start``."""
        session = self.require_session()
        await self.shutdown("reload")
        for ext in self.extensions:
            for name in ext.tools:
                session.remove_tool(name)
            for provider in ext.providers:
                self.model_registry.unregister_provider(provider)
            if ext.module is not None:
                unload(ext.module)
        self.extensions.clear()
        self._by_name, self.failures = {}, []
        self._contexts.clear()
        self._command_contexts.clear()
        self._uis.clear()
        self.bus.clear()
        self.dispatch.reindex()
        self.project_trusted = self.settings.project_trusted
        sources = self.discover_sources(self.project_trusted) if self.discover_sources else self.sources
        self.sources = []
        await self.load(sources)
        for ext in self.extensions:
            for definition in ext.tools.values():
                self._install_tool(ext, definition)
        await self.start("reload")

    # ================================================================== messages
    async def send_custom_message(
        self,
        custom_type: str,
        content: str | list[Any],
        display: bool,
        details: Any,
        trigger_turn: bool,
        deliver_as: DeliverAs,
    ) -> None:
        message = CustomMessage(
            customType=custom_type,
            content=content if isinstance(content, str) else to_content(content),
            display=display,
            details=details,
        )
        if deliver_as in ("nextTurn", "next_turn"):
            self._next_turn.append(message)
            return
        await self.require_session().send_custom_message(
            message, trigger_turn=trigger_turn, follow_up=deliver_as in ("followUp", "follow_up")
        )

    async def send_user_message(
        self, content: str | list[TextContent | ImageContent], deliver_as: DeliverAs | None
    ) -> None:
        session = self.require_session()
        if isinstance(content, str):
            text, images = content, None
        else:
            text = "".join(c.text for c in content if isinstance(c, TextContent))
            images = [c for c in content if isinstance(c, ImageContent)] or None
        behavior: Literal["steer", "followUp"] | None = None
        if session.is_streaming:
            behavior = "followUp" if deliver_as in ("followUp", "follow_up") else "steer"
        await session.prompt(text, images, behavior, source="extension")
