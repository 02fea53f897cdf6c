"""The extension runtime: loads extensions, keeps what they register, and runs their handlers.

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
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    hook_field,
)
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, Model, TextContent
from pi_app.cli_args import ToolSelection, tool_selected
from pi_app.extensions import events as ev
from pi_app.extensions.api import ExtensionAPI
from pi_app.extensions.bus import EventBus
from pi_app.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_app.extensions.definitions import CommandDefinition, ShortcutDefinition, ToolDefinition
from pi_app.extensions.loader import ExtensionSource, LoadFailure, describe_error, import_extension, unload
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
from pi_app.extensions.ui_view import EntryDisplay, ExtensionUIView, OwnedUI, PromptSpans
from pi_app.session.hooks import (
    AgentStartPatch,
    CompactDecision,
    CompactionOverride,
    ForkPosition,
    InputDecision,
    InputSource,
    SessionHooks,
    SwitchReason,
    TreeDecision,
    TreePreparation,
)
from pi_app.session.messages import AgentMessage, CustomMessage
from pi_app.session.session_events import SessionEvent, ThinkingLevelChangedEvent

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.config import ModelRegistry, SettingsManager
    from pi_app.session.user_bash import BashResult

log = logging.getLogger(__name__)
T = TypeVar("T")
Handler = Callable[[Any, ExtensionContext], Any]


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


def _get(obj: Any, name: str, camel: str | None = None) -> Any:
    return hook_field(obj, name, camel)


class ExtensionRunner(SessionHooks):
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
        self.extensions: list[LoadedExtension] = []
        self.failures: list[LoadFailure] = []
        self.bus = EventBus()
        self.mode: Mode = "print"
        self.ui: ExtensionUI = NoUI()
        self._uis: dict[str, ExtensionUI] = {}  # ctx.ui per extension (see ui_for)
        self._spans = PromptSpans(self._prompt_span)
        self.flag_values: dict[str, bool | str] = {}
        self.on_error: Callable[[ExtensionError], None] = lambda e: log.warning("%s", e)
        self.on_shutdown_request: Callable[[], None] = lambda: None
        self.sources: list[ExtensionSource] = []  # every source asked for, loaded or failed
        self._session: AgentSession | None = None
        self._by_name: dict[str, LoadedExtension] = {}
        self._contexts: dict[str, ExtensionContext] = {}
        self._command_contexts: dict[str, ExtensionCommandContext] = {}
        self._index: dict[str, list[tuple[LoadedExtension, Handler]]] = {}
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
                self._report(ext, "register", f"Failed to load extension: {message}")
                for provider in ext.providers:
                    self.model_registry.unregister_provider(provider)
                if ext.module is not None:
                    unload(ext.module)
                continue
            finally:
                self._loading = None
            self.extensions.append(ext)
            self._by_name[ext.name] = ext
        self._reindex()

    def _owner(self, name: str) -> LoadedExtension:
        if self._loading is not None and self._loading.name == name:
            return self._loading
        return self._by_name[name]

    def _reindex(self) -> None:
        index: dict[str, list[tuple[LoadedExtension, Handler]]] = {}
        for ext in self.extensions:
            for event, handlers in ext.handlers.items():
                index.setdefault(event, []).extend((ext, h) for h in handlers)
        self._index = index

    # ---------------------------------------------------------------- registrations (from ExtensionAPI)
    def add_handler(self, extension: str, event: str, handler: Handler) -> Callable[[], None]:
        ext = self._owner(extension)
        ext.handlers.setdefault(event, []).append(handler)
        self._reindex()

        def unsubscribe() -> None:
            handlers = ext.handlers.get(event, [])
            if handler in handlers:
                handlers.remove(handler)
                self._reindex()

        return unsubscribe

    def add_tool(self, extension: str, definition: ToolDefinition) -> None:
        ext = self._owner(extension)
        ext.tools[definition.name] = definition
        if self._session is not None:
            self._install_tool(ext, definition)

    def _install_tool(self, ext: LoadedExtension, definition: ToolDefinition) -> None:
        assert self._session is not None
        tool = ExtensionTool(definition, ext.name, lambda: self.context_for(ext.name))
        allowed = self.tool_selection is None or tool_selected(self.tool_selection, definition.name)
        self._session.add_tool(tool, activate=definition.default_active and allowed)

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
                self._report(ext, "markdown_transformer", f"{type(exc).__name__}: {exc}")
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
        session.set_hooks(self)
        agent = session.agent
        agent.transform_context = self._chain_context(agent.transform_context)
        agent.on_payload = self._chain_payload(agent.on_payload)
        agent.before_tool_call = self._before_tool_call
        agent.after_tool_call = self._after_tool_call
        self._unsubscribe = session.subscribe(self._on_session_event)

    def set_ui(self, mode: Mode, ui: ExtensionUI | None = None) -> None:
        self.mode = mode
        self.ui = ui or NoUI()
        self._uis.clear()

    def ui_for(self, name: str) -> ExtensionUI:
        """``ctx.ui`` of extension ``name``: the mode's UI acting for it, dialogs announced as prompt spans."""
        view = self._uis.get(name)
        if view is None:
            inner = self.ui.for_extension(name) if isinstance(self.ui, OwnedUI) else self.ui
            ext = self._owner(name)
            view = self._uis[name] = ExtensionUIView(inner, self._spans, ext.autocomplete.append)
        return view

    def autocomplete_providers(self) -> list[tuple[str, AutocompleteFactory]]:
        """(extension name, factory) of every autocomplete provider, in the order they were added."""
        return [(ext.name, factory) for ext in self.extensions for factory in ext.autocomplete]

    def _prompt_span(self, event: ev.UiPromptStartEvent | ev.UiPromptEndEvent) -> None:
        # best effort and not awaited: the dialog opens (or closes) without waiting for the handlers
        if self.has_ui and self._index.get(event.type):
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
    def _report(self, ext: LoadedExtension, event: str, error: str) -> None:
        try:
            self.on_error(ExtensionError(ext.name, ext.source.path, event, error))
        except Exception:
            log.exception("extension error sink failed")

    async def _call(
        self, ext: LoadedExtension, handler: Handler, event: ev.ExtensionEvent, event_name: str
    ) -> tuple[bool, Any]:
        """(ok, result) of one handler; failures reported."""
        try:
            result = handler(event, self.context_for(ext.name))
            if result is not None and inspect.isawaitable(result):  # most handlers are sync and return None
                result = await result
            return True, result
        except Exception as exc:
            self._report(ext, event_name, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            return False, None

    def has_handlers(self, event: str) -> bool:
        return bool(self._index.get(event))

    async def emit(self, event: ev.ExtensionEvent) -> None:
        """Notify every handler of ``event.type``; results ignored."""
        for ext, handler in list(self._index.get(event.type, ())):
            await self._call(ext, handler, event, event.type)

    async def _on_session_event(self, event: SessionEvent) -> None:
        if isinstance(event, ThinkingLevelChangedEvent):
            previous, self._thinking_level = self._thinking_level, event.level
            if self.has_handlers("thinking_level_select"):
                await self.emit(ev.ThinkingLevelSelectEvent(event.level, previous))
            return
        if self._index.get(event.type):
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
        for ext, handler in list(self._index["resources_discover"]):
            ok, result = await self._call(
                ext, handler, ev.ResourcesDiscoverEvent(self.cwd, reason), "resources_discover"
            )
            if ok and result is not None:
                skills += list(_get(result, "skill_paths", "skillPaths") or [])
                prompts += list(_get(result, "prompt_paths", "promptPaths") or [])
        if skills or prompts:
            self.require_session().add_resource_paths(skills, prompts)

    async def decide_trust(self, cwd: str) -> tuple[bool, bool] | None:
        """``project_trust`` (user and ``-e`` extensions only: project ones are not loaded yet). The first
        yes/no wins: (trusted, remember); None when every handler left it undecided."""
        for ext, handler in list(self._index.get("project_trust", ())):
            ok, result = await self._call(ext, handler, ev.ProjectTrustEvent(cwd), "project_trust")
            answer = _get(result, "trusted") if ok else None
            if answer in ("yes", "no"):
                return answer == "yes", bool(_get(result, "remember"))
        return None

    async def shutdown(self, reason: Literal["quit", "reload", "new", "resume", "fork"] = "quit") -> None:
        session = self._session
        await self.emit(
            ev.SessionShutdownEvent(reason, session.session_file if session is not None else None)
        )

    # ================================================================== SessionHooks
    def may_handle(self, text: str) -> bool:
        if self._index.get("input"):
            return True
        name = text[1:].partition(" ")[0] if text.startswith("/") else None
        return name is not None and any(invoked == name for invoked, _, _ in self._commands())

    def command_infos(self) -> list[dict[str, Any]]:
        out = []
        for name, ext, command in self._commands():
            out.append(
                {
                    "name": name,
                    "description": command.description,
                    "source": "extension",
                    "location": ext.source.scope,
                    "path": ext.source.path,
                }
            )
        return out

    def _commands(self) -> list[tuple[str, LoadedExtension, CommandDefinition]]:
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
        for invoked, ext, command in self._commands():
            if invoked == name and command.get_argument_completions is not None:
                try:
                    return list(command.get_argument_completions(prefix) or [])
                except Exception as exc:
                    self._report(ext, f"command:{name}", str(exc))
        return []

    async def handle_command(self, text: str) -> bool:
        if not text.startswith("/") or not any(ext.commands for ext in self.extensions):
            return False
        name, _, args = text[1:].partition(" ")
        for invoked, ext, command in self._commands():
            if invoked == name:
                try:
                    result = command.handler(args.strip(), self.command_context_for(ext.name))
                    if inspect.isawaitable(result):
                        await result
                except Exception as exc:
                    self._report(ext, f"command:{name}", f"{type(exc).__name__}: {exc}")
                return True
        return False

    async def run_shortcut(self, extension: str, shortcut: ShortcutDefinition) -> None:
        ext = self._by_name[extension]
        try:
            result = shortcut.handler(self.context_for(extension))
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self._report(ext, f"shortcut:{shortcut.key}", f"{type(exc).__name__}: {exc}")

    async def input(
        self,
        text: str,
        images: list[ImageContent] | None,
        source: InputSource,
        streaming_behavior: str | None,
    ) -> InputDecision:
        for ext, handler in list(self._index.get("input", ())):
            event = ev.InputEvent(text, images, source, streaming_behavior)
            ok, result = await self._call(ext, handler, event, "input")
            if not ok or result is None:
                continue
            action = _get(result, "action")
            if action == "handled":
                return InputDecision(text, images, handled=True)
            if action == "transform":
                new_text = _get(result, "text")
                text = new_text if isinstance(new_text, str) else text
                new_images = _get(result, "images")
                images = new_images if new_images is not None else images
        return InputDecision(text, images)

    async def before_agent_start(
        self, prompt: str | None, images: list[ImageContent] | None, system_prompt: str
    ) -> AgentStartPatch:
        patch = AgentStartPatch()
        for ext, handler in list(self._index.get("before_agent_start", ())):
            event = ev.BeforeAgentStartEvent(prompt, images, patch.system_prompt or system_prompt)
            ok, result = await self._call(ext, handler, event, "before_agent_start")
            if not ok or result is None:
                continue
            new_prompt = _get(result, "system_prompt", "systemPrompt")
            if isinstance(new_prompt, str):
                patch.system_prompt = new_prompt
            message = _get(result, "message")
            if message is not None:
                patch.messages.append(_custom_message(message))
        if self._next_turn:
            patch.messages += self._next_turn
            self._next_turn = []
        return patch

    async def _gate(self, event: ev.SessionBeforeSwitchEvent | ev.SessionBeforeForkEvent) -> bool:
        """True when a handler asked to cancel ``event`` (a failing handler does not cancel)."""
        for ext, handler in list(self._index.get(event.type, ())):
            ok, result = await self._call(ext, handler, event, event.type)
            if ok and _get(result, "cancel"):
                return True
        return False

    async def before_switch(self, reason: SwitchReason, target_session_file: str | None) -> bool:
        return await self._gate(ev.SessionBeforeSwitchEvent(reason, target_session_file))

    async def before_fork(self, entry_id: str, position: ForkPosition) -> bool:
        return await self._gate(ev.SessionBeforeForkEvent(entry_id, position))

    async def before_compact(
        self,
        *,
        preparation: Any,
        branch_entries: list[dict[str, Any]],
        custom_instructions: str | None,
        reason: str,
        will_retry: bool,
        signal: AbortSignal | None,
    ) -> CompactDecision:
        event = ev.SessionBeforeCompactEvent(
            preparation, branch_entries, custom_instructions, reason, will_retry, signal
        )
        decision = CompactDecision()
        for ext, handler in list(self._index.get(event.type, ())):
            ok, result = await self._call(ext, handler, event, event.type)
            if not ok or result is None:
                continue
            if _get(result, "cancel"):
                return CompactDecision(cancel=True)
            supplied = _get(result, "compaction")
            if supplied is not None and decision.compaction is None:
                decision.compaction = (
                    supplied
                    if isinstance(supplied, CompactionOverride)
                    else CompactionOverride(
                        summary=str(_get(supplied, "summary")),
                        first_kept_entry_id=str(
                            _get(supplied, "first_kept_entry_id", "firstKeptEntryId")
                            or preparation.first_kept_entry_id
                        ),
                        tokens_before=int(
                            _get(supplied, "tokens_before", "tokensBefore") or preparation.tokens_before
                        ),
                        details=_get(supplied, "details"),
                    )
                )
        return decision

    async def after_compact(
        self, compaction_entry: dict[str, Any] | None, from_extension: bool, reason: str, will_retry: bool
    ) -> None:
        await self.emit(ev.SessionCompactEvent(compaction_entry, from_extension, reason, will_retry))

    async def before_tree(self, preparation: TreePreparation, signal: AbortSignal | None) -> TreeDecision:
        decision = TreeDecision()
        event = ev.SessionBeforeTreeEvent(preparation, signal)
        for ext, handler in list(self._index.get(event.type, ())):
            ok, result = await self._call(ext, handler, event, event.type)
            if not ok or result is None:
                continue
            if _get(result, "cancel"):
                return TreeDecision(cancel=True)
            summary = _get(result, "summary")
            if summary is not None and decision.summary is None:
                decision.summary = (
                    summary if isinstance(summary, str) else str(_get(summary, "summary") or "")
                )
                decision.details = _get(summary, "details") if not isinstance(summary, str) else None
            for name, camel in (
                ("custom_instructions", "customInstructions"),
                ("replace_instructions", "replaceInstructions"),
                ("label", None),
            ):
                value = _get(result, name, camel)
                if value is not None:
                    setattr(decision, name, value)
        return decision

    async def after_tree(
        self,
        new_leaf_id: str | None,
        old_leaf_id: str | None,
        summary_entry: dict[str, Any] | None,
        from_extension: bool,
    ) -> None:
        await self.emit(ev.SessionTreeEvent(new_leaf_id, old_leaf_id, summary_entry, from_extension))

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> BashResult | None:
        from pi_app.session.user_bash import BashResult

        for ext, handler in list(self._index.get("user_bash", ())):
            ok, result = await self._call(
                ext, handler, ev.UserBashEvent(command, exclude_from_context, cwd), "user_bash"
            )
            if not ok:  # as pi: a failing handler blocks the command rather than running it locally
                return BashResult(
                    output=f"Blocked: extension {ext.name} failed",
                    exit_code=1,
                    cancelled=True,
                    truncated=False,
                )
            supplied = _get(result, "result")
            if isinstance(supplied, BashResult):
                return supplied
            if supplied is not None:
                return BashResult(
                    output=str(_get(supplied, "output") or ""),
                    exit_code=_get(supplied, "exit_code", "exitCode"),
                    cancelled=bool(_get(supplied, "cancelled")),
                    truncated=bool(_get(supplied, "truncated")),
                )
        return None

    async def session_ending(
        self, reason: Literal["new", "resume", "fork"], target_session_file: str | None
    ) -> None:
        # while the old session is still current: handlers can save what they keep about it
        await self.emit(ev.SessionShutdownEvent(reason, target_session_file))

    async def session_replaced(
        self, reason: Literal["new", "resume", "fork"], previous_session_file: str | None
    ) -> None:
        await self.emit(ev.SessionStartEvent(reason, previous_session_file))

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
        self.extensions, self._by_name, self.failures = [], {}, []
        self._contexts.clear()
        self._command_contexts.clear()
        self.bus.clear()
        self._reindex()
        self.project_trusted = self.settings.project_trusted
        sources = self.discover_sources(self.project_trusted) if self.discover_sources else self.sources
        self.sources = []
        await self.load(sources)
        for ext in self.extensions:
            for definition in ext.tools.values():
                self._install_tool(ext, definition)
        await self.start("reload")

    # ================================================================== agent hooks
    def _chain_context(
        self, inner: Callable[..., Any] | None
    ) -> Callable[[list[AgentMessage], AbortSignal | None], Awaitable[list[AgentMessage]]]:
        async def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
            if inner is not None:
                result = inner(messages, signal)
                messages = await result if inspect.isawaitable(result) else result
            # A new list of the session's own message objects: copying every message on every request
            # would cost O(session) per turn, so handlers replace messages rather than change them.
            for ext, handler in list(self._index.get("context", ())):
                ok, result = await self._call(ext, handler, ev.ContextEvent(list(messages)), "context")
                new = _get(result, "messages") if ok and result is not None else None
                if isinstance(new, list):
                    messages = new
            return messages

        return transform

    def _chain_payload(
        self, inner: Callable[..., Any] | None
    ) -> Callable[[dict[str, Any], Model], Awaitable[dict[str, Any] | None]]:
        async def on_payload(payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
            if inner is not None:
                result = inner(payload, model)
                result = await result if inspect.isawaitable(result) else result
                payload = result if isinstance(result, dict) else payload
            for ext, handler in list(self._index.get("before_provider_request", ())):
                ok, result = await self._call(
                    ext, handler, ev.BeforeProviderRequestEvent(payload, model), "before_provider_request"
                )
                if ok and isinstance(result, dict):
                    payload = result
            return payload

        return on_payload

    async def _before_tool_call(
        self, context: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        handlers = self._index.get("tool_call")
        if not handlers:
            return None
        call = context.tool_call
        args = context.args if isinstance(context.args, dict) else {}
        event = ev.ToolCallEvent(call.id, call.name, args)
        for ext, handler in list(handlers):
            ok, result = await self._call(ext, handler, event, "tool_call")
            if not ok:  # fail closed: a gate that cannot decide blocks
                return BeforeToolCallResult(
                    block=True, reason=f"Extension {ext.name} failed while checking the call"
                )
            if _get(result, "block"):
                return BeforeToolCallResult(
                    block=True, reason=_get(result, "reason"), terminate=bool(_get(result, "terminate"))
                )
        return None

    async def _after_tool_call(
        self, context: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        handlers = self._index.get("tool_result")
        if not handlers:
            return None
        call = context.tool_call
        content, details, is_error = list(context.result.content), context.result.details, context.is_error
        changed = False
        for ext, handler in list(handlers):
            event = ev.ToolResultEvent(
                call.id,
                call.name,
                context.args if isinstance(context.args, dict) else {},
                content,
                details,
                is_error,
            )
            ok, result = await self._call(ext, handler, event, "tool_result")
            if not ok or result is None:
                continue
            new_content = _get(result, "content")
            if new_content is not None:
                content, changed = to_content(new_content), True
            new_details = _get(result, "details")
            if new_details is not None:
                details, changed = new_details, True
            new_error = _get(result, "is_error", "isError")
            if new_error is not None:
                is_error, changed = bool(new_error), True
        if not changed:
            return None
        return AfterToolCallResult(content=content, details=details, is_error=is_error)

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


def _custom_message(spec: Any) -> CustomMessage:
    if isinstance(spec, CustomMessage):
        return spec
    if isinstance(spec, ev.CustomMessageSpec):
        content: Any = spec.content
        return CustomMessage(
            customType=spec.custom_type,
            content=content if isinstance(content, str) else to_content(content),
            display=spec.display,
            details=spec.details,
        )
    raw = _get(spec, "content")
    return CustomMessage(
        customType=str(_get(spec, "custom_type", "customType") or "extension"),
        content=raw if isinstance(raw, str) else to_content(raw),
        display=bool(_get(spec, "display") if _get(spec, "display") is not None else True),
        details=_get(spec, "details"),
    )
