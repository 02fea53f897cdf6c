"""AgentSession (pi's ``AgentSession``): the generic Agent turned into the coding agent every mode drives.

It persists every message to the session tree, expands skills and templates, queues input while busy,
retries transient provider errors, compacts (threshold, overflow, manual), runs the user's ``!`` commands,
and navigates/forks/clones sessions. Listeners get the agent's events plus the session events of
``session_events``; each is awaited in subscription order.

``is_streaming`` is True for the whole of a prompt, including retry waits and compaction between runs, so
input typed meanwhile is queued rather than started as a second prompt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pi_app.agent import Agent, AgentEvent, AgentTool, MessageEndEvent, MessageStartEvent
from pi_app.agent.history import MessageHistory, as_history
from pi_app.ai.abort import AbortController, AbortError, race_abort
from pi_app.ai.stream import StreamFn
from pi_app.ai.text import text_of
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    Model,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_app.session.auto_compaction import Compactor
from pi_app.session.config import ModelRegistry, ScopedModel, SettingsManager
from pi_app.session.event_hub import EventHub, Listener
from pi_app.session.hooks import NO_HOOKS, InputSource, SessionHooks
from pi_app.session.input_queue import InputQueue
from pi_app.session.messages import AgentMessage, CustomMessage
from pi_app.session.model_switching import ModelSelector
from pi_app.session.navigation import TreeNavigator
from pi_app.session.resources.context_files import ContextFile
from pi_app.session.resources.skills import Skill, expand_skill_command
from pi_app.session.resources.system_prompt import DOCS_URL
from pi_app.session.resources.templates import PromptTemplate, expand_prompt_template
from pi_app.session.results import Cancelled, CloneResult, ForkResult, NavigateResult
from pi_app.session.retry import RETRY_CANCELLED, is_retryable_error, retry_delay_ms
from pi_app.session.run_state import RunState
from pi_app.session.session_events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    SessionEvent,
    SessionInfoChangedEvent,
)
from pi_app.session.session_setup import (
    ResourceOptions,
    Resources,
    load_resources,
    system_prompt_for,
    tool_options_from_settings,
)
from pi_app.session.slash_commands import slash_commands
from pi_app.session.stats import (
    ContextUsage,
    SessionStats,
    compute_context_usage,
    compute_stats,
    entry_usages,
)
from pi_app.session.store import SessionManager
from pi_app.session.store.record import EntryRecord
from pi_app.session.tool_registry import ToolRegistry
from pi_app.session.user_bash import BashResult, UserShell
from pi_app.tools import ALL_TOOL_NAMES
from pi_app.tools.options import ToolOptions

if TYPE_CHECKING:
    from pi_app.session.compaction.summarize import CompactionResult
    from pi_app.tools.images import ResizeLimits

log = logging.getLogger(__name__)

BUSY_TEXT = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
PROVIDERS_DOC = f"{DOCS_URL}/docs/providers.md"
NO_MODEL_TEXT = (
    "No model selected.\n\n"
    f"Use /login or set an API key environment variable. See {PROVIDERS_DOC}\n\n"
    "Then use /model to select a model."
)
StreamingBehavior = Literal["steer", "followUp", "follow_up"]
Disposition = Literal["handled", "queued", "started"]

__all__ = ["BUSY_TEXT", "AgentSession", "NavigateResult"]


class AgentSession:
    """A facade: prompting and the run loop live here; compaction, tree moves, the user's shell and model
    selection are collaborators built below with explicit dependencies."""

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        cwd: str,
        agent_dir: str,
        resources: Resources,
        resource_options: ResourceOptions,
        tool_options: ToolOptions,
        scoped_models: list[ScopedModel] | None = None,
        stream_fn: StreamFn | None = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings = settings
        self.model_registry = model_registry
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.model_fallback_message: str | None = None
        self.resource_warnings: list[str] = list(resources.warnings)
        # the store's warnings up to here are reported with the session's; later ones (a lazily typed
        # history's unusable messages) by type_history()
        self._warnings_seen = len(session_manager.warnings)
        self._resources = resources
        self._resource_options = resource_options
        self._tool_options = tool_options
        tool_options.image_limits = self.image_limits  # read resizes images for the current model
        self._base_system_prompt = agent.state.system_prompt
        self.hooks: SessionHooks = NO_HOOKS
        self._tools = ToolRegistry(cwd, tool_options, agent.state.tools)  # the active ones are the agent's
        self._run = RunState()
        self._events = EventHub()
        self._queue = InputQueue(agent)
        self._compactor = Compactor(
            agent=agent,
            session_manager=session_manager,
            settings=settings,
            model_registry=model_registry,
            emit=self._events.emit,
            stream_fn=stream_fn,
        )
        self._shell = UserShell(
            agent=agent,
            session_manager=session_manager,
            cwd=cwd,
            tool_options=tool_options,
            warn=self._warn,
        )
        self._models = ModelSelector(
            agent=agent,
            session_manager=session_manager,
            settings=settings,
            model_registry=model_registry,
            scoped_models=list(scoped_models or []),
            emit=self._events.emit,
            schedule=self._events.schedule,
        )
        self._navigator = TreeNavigator(
            agent=agent,
            session_manager=session_manager,
            settings=settings,
            model_registry=model_registry,
            queue=self._queue,
            stop_all=self.stop_all,
            forget_run_state=self._forget_run_state,
            stream_fn=stream_fn,
        )
        agent.prepare_next_turn = self._compactor.prepare_next_turn
        agent.subscribe(self._on_agent_event)

    def _warn(self, warning: str) -> None:
        # resource_warnings is replaced on reload, so collaborators get this rather than the list
        self.resource_warnings.append(warning)

    def _forget_run_state(self) -> None:
        self._shell.drop_pending()
        self._compactor.forget_baseline()

    def set_hooks(self, hooks: SessionHooks) -> None:
        """Install the decision hooks (the extension runner); ``NO_HOOKS`` removes them."""
        self.hooks = hooks
        self._compactor.hooks = hooks
        self._navigator.hooks = hooks

    # ================================================================== properties
    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    def image_limits(self) -> ResizeLimits:
        """How images entering the conversation now are resized: the model's ``inputLimits.images.resize``
        over pi's defaults."""
        from pi_app.tools.images import resize_limits_for

        return resize_limits_for(self.model)

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self._run.running or self.agent.state.is_streaming

    @property
    def messages(self) -> list[AgentMessage]:
        return list(self.agent.state.messages)

    @property
    def transcript(self) -> Sequence[AgentMessage]:
        """The live transcript itself, not a copy (read it, never change it): a resumed history's messages
        are typed only where read, so its tail costs no more than a short session's."""
        return self.agent.state.messages

    @property
    def display_messages(self) -> Sequence[AgentMessage]:
        """The active path as the chat shows it: as stored. ``context_edit`` entries (pi 1.6) change only what
        the model sees, so where the path has one the stored messages are rebuilt without the edits.

        A copy, typed only where it is read (a resumed history's tail is drawn before the rest is typed)."""
        branch = self.session_manager.get_branch()
        if not any(_entry_type(e) == "context_edit" for e in branch):
            return as_history(self.agent.state.messages)
        return self.session_manager.build_session_context(context_edits=False).history

    @property
    def untyped_messages(self) -> int:
        """How many messages of a resumed history are not typed yet (0 once :meth:`type_history` ran)."""
        messages = self.agent.state.messages
        return messages.untyped if isinstance(messages, MessageHistory) else 0

    def type_history_step(self, limit: int) -> bool:
        """Type up to ``limit`` more messages of a lazily resumed history; True when all are typed."""
        messages = self.agent.state.messages
        return messages.type_some(limit) if isinstance(messages, MessageHistory) else True

    def type_history(self) -> tuple[list[str], bool]:
        """Type what is left of a lazily resumed history (see ``create_agent_session(lazy_history=True)``).

        Returns the warnings for messages found unusable meanwhile (also added to ``resource_warnings``) and
        whether any was dropped since the history was handed over (indices read before then have moved).
        """
        messages = self.agent.state.messages
        if not isinstance(messages, MessageHistory):
            return [], False
        messages.type_all()
        return self.take_new_warnings(), messages.dropped > 0

    def take_new_warnings(self) -> list[str]:
        """The store's warnings since the session was built (or since last asked): a lazily typed history's
        unusable messages, found as they are read (also added to ``resource_warnings``)."""
        sink = self.session_manager.warnings
        new = sink[self._warnings_seen :]
        self._warnings_seen = len(sink)
        self.resource_warnings.extend(new)
        return new

    @property
    def session_file(self) -> str | None:
        return self.session_manager.session_file

    @property
    def session_id(self) -> str:
        return self.session_manager.session_id

    @property
    def session_name(self) -> str | None:
        return self.session_manager.get_session_name()

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def is_retrying(self) -> bool:
        return self._run.retry_controller is not None

    @property
    def is_bash_running(self) -> bool:
        return self._shell.is_running

    @property
    def is_compacting(self) -> bool:
        return self._compactor.is_compacting

    @property
    def steering_mode(self) -> str:
        return self.agent.steering_mode

    @property
    def follow_up_mode(self) -> str:
        return self.agent.follow_up_mode

    @property
    def auto_retry_enabled(self) -> bool:
        return self.settings.settings.retry.enabled

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.settings.settings.compaction.enabled

    @property
    def prompt_templates(self) -> list[PromptTemplate]:
        return list(self._resources.prompt_templates)

    @property
    def skills(self) -> list[Skill]:
        return list(self._resources.skills)

    @property
    def context_files(self) -> list[ContextFile]:
        return list(self._resources.context_files)

    @property
    def pending_message_count(self) -> int:
        return len(self._queue)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.agent.state.tools]

    @property
    def scoped_models(self) -> list[ScopedModel]:
        return self._models.scoped_models

    @scoped_models.setter
    def scoped_models(self, value: list[ScopedModel]) -> None:
        self._models.scoped_models = list(value)

    # ================================================================== events
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``await listener(event)`` for every SessionEvent, in subscription order. Returns an unsubscriber."""
        return self._events.subscribe(listener)

    async def _emit(self, event: SessionEvent) -> None:
        await self._events.emit(event)

    async def _emit_queue_update(self) -> None:
        await self._emit(self._queue.update_event())

    async def _on_agent_event(self, event: AgentEvent) -> None:
        match event:
            case MessageStartEvent(message=UserMessage() as user):
                self._compactor.reset_overflow_guard()
                if self._queue.take(text_of(user.content)):
                    await self._emit_queue_update()
            case MessageEndEvent():
                self._persist(event.message)
        await self._emit(event)
        match event:
            case MessageEndEvent(message=AssistantMessage() as answer) if answer.stopReason != "error":
                self._compactor.reset_overflow_guard()
                if self._run.retry_attempt > 0:
                    await self._emit(AutoRetryEndEvent(True, self._run.take_retry_attempt()))

    def _persist(self, message: AgentMessage) -> None:
        try:
            match message:
                case SystemMessage() | UserMessage() | AssistantMessage() | ToolResultMessage():
                    self.session_manager.append_message(message)
                case CustomMessage():
                    self.session_manager.append_custom_message_entry(
                        message.customType, message.content, message.display, message.details
                    )
        except OSError as exc:  # disk full / permissions: keep the run going, say so once per failure
            warning = f"Could not write session file {self.session_file}: {exc}"
            self.resource_warnings.append(warning)
            log.warning(warning)

    # ================================================================== prompting
    def _expand(self, text: str) -> str:
        if self.settings.settings.enableSkillCommands:
            expanded = expand_skill_command(text, self._resources.skills)
            if expanded is not None:
                text = expanded
        return expand_prompt_template(text, self._resources.prompt_templates)

    async def prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: InputSource = "interactive",
        on_accepted: Callable[[Disposition], None] | None = None,
    ) -> None:
        """Send ``text`` (skill/template expanded); returns when the agent is done, retries included.

        As pi: an extension command (``/name args``) runs instead and the ``input`` hooks may transform or
        handle the text first. While busy the message is queued per ``streaming_behavior``; without one
        this raises pi's "already processing" error. Raises RuntimeError for a missing model or API key.
        ``on_accepted`` hears pi 1.6's disposition (``handled``, ``queued`` or ``started``) before any event
        of the run.
        """
        accepted = on_accepted or (lambda _disposition: None)
        if text.startswith("/") and await self.hooks.handle_command(text):
            accepted("handled")
            return
        decision = await self.hooks.input(text, images, source, streaming_behavior)
        if decision.handled:
            accepted("handled")
            return
        text, images = decision.text, decision.images
        expanded = self._expand(text)
        if self.is_streaming:
            if streaming_behavior is None:
                raise RuntimeError(BUSY_TEXT)
            accepted("queued")
            if streaming_behavior in ("followUp", "follow_up"):
                await self._queue_input(expanded, images, follow_up=True)
            else:
                await self._queue_input(expanded, images, follow_up=False)
            return
        if images:
            expanded, images = await self._prepare_images(expanded, images)
        message = UserMessage(content=[TextContent(text=expanded), *(images or [])])
        await self._start_run(message, expanded, images, accepted)

    async def _prepare_images(self, text: str, images: list[ImageContent]) -> tuple[str, list[ImageContent]]:
        """As pi: a prompt's images are resized for the current model (off the event loop), notes appended."""
        from pi_app.tools.images import prepare_prompt_images

        auto = bool(self.settings.settings.images.autoResize)
        limits = self.image_limits()
        return await asyncio.to_thread(prepare_prompt_images, text, images, auto_resize=auto, limits=limits)

    async def _start_run(
        self,
        message: AgentMessage,
        prompt_text: str | None,
        images: list[ImageContent] | None,
        accepted: Callable[[Disposition], None] | None = None,
    ) -> None:
        """One prompt's whole life: key check, pre-prompt compaction, ``before_agent_start``, the runs, then
        ``agent_settled`` (pi 1.6) once nothing continues on its own."""
        self._run.begin()
        ran = False
        try:
            model = self.model
            if model is None:
                raise RuntimeError(NO_MODEL_TEXT)
            if not await self.model_registry.get_api_key(model):
                raise RuntimeError(self._missing_key_text(model))
            if accepted is not None:
                accepted("started")
            ran = True
            self._shell.flush_pending()
            last = self._last_assistant()
            if last is not None:
                self._run.pre_prompt_compaction = True
                try:
                    await self._compactor.check(last, pre_prompt=True)
                finally:
                    self._run.pre_prompt_compaction = False
            if self._run.abort_requested:
                return  # stopped by navigation (new/switch/fork) before the prompt went out
            patch = await self.hooks.before_agent_start(prompt_text, images, self._base_system_prompt)
            self.agent.set_system_prompt(patch.system_prompt or self._base_system_prompt)
            await self.agent.prompt([message, *patch.messages])
            await self._after_runs()
        finally:
            self._shell.flush_pending()
            self._run.end()
            if ran:
                last = self._last_message_if_assistant()
                await self._emit(AgentSettledEvent(aborted=last is not None and last.stopReason == "aborted"))

    async def send_custom_message(
        self, message: CustomMessage, *, trigger_turn: bool = False, follow_up: bool = False
    ) -> None:
        """An extension's message: steered (or queued as a follow-up) while busy; when idle, recorded, or
        run as a prompt of its own with ``trigger_turn``."""
        if self.is_streaming:
            if follow_up:
                self.agent.follow_up(message)
            else:
                self.agent.steer(message)
            return
        if not trigger_turn:
            self.agent.append_message(message)
            self._persist(message)
            await self._emit(MessageStartEvent(message))  # front ends show it like any other message
            await self._emit(MessageEndEvent(message))
            return
        await self._start_run(message, None, None)

    def _missing_key_text(self, model: Model) -> str:
        if self.model_registry.is_using_oauth(model):
            return (
                f'Authentication failed for "{model.provider}". Credentials may have expired or network is '
                f"unavailable. Run '/login {model.provider}' to re-authenticate."
            )
        return (
            f"No API key found for {model.provider}.\n\n"
            f"Use /login or set an API key environment variable. See {PROVIDERS_DOC}"
        )

    async def _after_runs(self) -> None:
        """After each run: retry a transient error, recover from overflow, compact; continue when due."""
        while not self._run.abort_requested:
            last = self._last_message_if_assistant()
            if last is None:
                return
            if self.auto_retry_enabled and is_retryable_error(last, self._context_window()):
                if await self._wait_for_retry(last):
                    await self.agent.continue_()
                    continue
                if self._run.abort_requested:
                    return
                # Retries exhausted or cancelled: as pi, the compaction check still runs (a session stuck
                # on overload errors near the window can compact).
            if self._run.retry_attempt > 0 and last.stopReason in ("error", "aborted"):
                attempt = self._run.take_retry_attempt()
                await self._emit(AutoRetryEndEvent(False, attempt, last.errorMessage or "Unknown error"))
            should_continue = await self._compactor.check(last)
            if self._run.abort_requested:
                return
            if not should_continue and last.stopReason not in ("error", "aborted"):
                # Input queued while compaction (or the run's tail) was in progress still gets delivered.
                should_continue = self.agent.has_queued_messages()
            if not should_continue or not self._can_continue():
                return
            await self.agent.continue_()

    async def _wait_for_retry(self, message: AssistantMessage) -> bool:
        cfg = self.settings.settings.retry
        run = self._run
        run.retry_attempt += 1
        if run.retry_attempt > cfg.maxRetries:
            attempt = run.take_retry_attempt() - 1
            await self._emit(AutoRetryEndEvent(False, attempt, message.errorMessage))
            return False
        delay = retry_delay_ms(cfg.baseDelayMs, run.retry_attempt)
        await self._emit(
            AutoRetryStartEvent(
                run.retry_attempt, cfg.maxRetries, delay, message.errorMessage or "Unknown error"
            )
        )
        self._compactor.drop_trailing_error()
        controller = AbortController()
        run.retry_controller = controller
        try:
            await race_abort(asyncio.sleep(delay / 1000), controller.signal)
        except AbortError:
            await self._emit(AutoRetryEndEvent(False, run.take_retry_attempt(), RETRY_CANCELLED))
            return False
        finally:
            run.retry_controller = None
        return not run.abort_requested

    def _can_continue(self) -> bool:
        """The agent can run on from its context: the last message is not an answer, or input is queued (a
        compaction that rebuilt the context must never leave a continue that fails)."""
        last = self._last_message_if_assistant()
        return last is None or self.agent.has_queued_messages()

    def _context_window(self) -> int:
        model = self.model
        return (model.contextWindow or 0) if model is not None else 0

    def _last_message_if_assistant(self) -> AssistantMessage | None:
        messages = self.agent.state.messages
        last = messages[-1] if messages else None
        return last if isinstance(last, AssistantMessage) else None

    def _last_assistant(self) -> AssistantMessage | None:
        for m in reversed(self.agent.state.messages):
            if isinstance(m, AssistantMessage):
                return m
        return None

    # ------------------------------------------------------------------ queues
    async def _queue_input(self, text: str, images: list[ImageContent] | None, follow_up: bool) -> None:
        if images:
            text, images = await self._prepare_images(text, images)
        self._queue.add(text, images, follow_up)
        await self._emit_queue_update()

    async def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Deliver after the current tool batch, before the next model request."""
        await self._queue_input(self._expand(text), images, follow_up=False)

    async def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Deliver when the agent would otherwise stop."""
        await self._queue_input(self._expand(text), images, follow_up=True)

    def get_steering_messages(self) -> list[str]:
        return list(self._queue.steering)

    def get_follow_up_messages(self) -> list[str]:
        return list(self._queue.follow_up)

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Empty both queues; returns what they held (the UI puts it back into the editor)."""
        return self._queue.clear()

    # ------------------------------------------------------------------ control
    async def abort(self) -> None:
        """Stop whatever runs: retry wait, compaction, the agent's request or tools; returns when idle.

        As in pi, an abort while a prompt's pre-prompt compaction runs cancels only that compaction: the
        prompt is then sent on the uncompacted context (it is not dropped), so this returns at once.
        """
        if self._run.pre_prompt_compaction:
            self.abort_compaction()
            return
        await self.stop_all()

    async def stop_all(self) -> None:
        """Stop everything, a prompt that has not been sent yet included; returns when idle (navigation)."""
        if self._run.running:
            self._run.abort_requested = True
        self.abort_retry()
        self.abort_compaction()
        self.agent.abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        await self._run.idle.wait()
        await self.agent.wait_for_idle()

    def abort_retry(self) -> None:
        if self._run.retry_controller is not None:
            self._run.retry_controller.abort()

    def abort_compaction(self) -> None:
        self._compactor.abort()

    def abort_branch_summary(self) -> None:
        self._navigator.abort_branch_summary()

    def abort_bash(self) -> None:
        self._shell.abort()

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings.set_retry_enabled(enabled)

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self.settings.set_compaction_enabled(enabled)

    def set_steering_mode(self, mode: Literal["all", "one-at-a-time"]) -> None:
        self.agent.steering_mode = mode
        self.settings.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: Literal["all", "one-at-a-time"]) -> None:
        self.agent.follow_up_mode = mode
        self.settings.set_follow_up_mode(mode)

    # ================================================================== compaction, tree, shell, model
    async def compact(self, custom_instructions: str | None = None) -> CompactionResult:
        """Summarise the older part of the active path now (aborts a running prompt first).

        Raises CompactionError with the reason (``Nothing to compact (session too small)``,
        ``Summarization failed: …``) or CompactionCancelled.
        """
        await self.stop_all()  # a prompt waiting on a pre-prompt compaction must not run alongside
        return await self._compactor.run("manual", custom_instructions=custom_instructions)

    async def navigate_tree(
        self,
        target_id: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigateResult:
        return await self._navigator.navigate(
            target_id, summarize, custom_instructions, replace_instructions, label
        )

    def get_fork_messages(self) -> list[tuple[str, str]]:
        return self._navigator.fork_messages()

    async def fork(self, entry_id: str) -> ForkResult:
        """Raises Cancelled when a ``session_before_fork`` hook cancels."""
        previous = self.session_file
        if await self.hooks.before_fork(entry_id, "before"):
            raise Cancelled("Fork cancelled")
        await self.hooks.session_ending("fork", None)
        result = await self._navigator.fork(entry_id)
        await self.hooks.session_replaced("fork", previous)
        return result

    async def fork_at(self, entry_id: str) -> ForkResult:
        previous = self.session_file
        if await self.hooks.before_fork(entry_id, "at"):
            raise Cancelled("Fork cancelled")
        await self.hooks.session_ending("fork", None)
        result = await self._navigator.fork_at(entry_id)
        await self.hooks.session_replaced("fork", previous)
        return result

    async def clone(self, entry_id: str | None = None) -> CloneResult:
        previous = self.session_file
        if await self.hooks.before_fork(entry_id or self.session_manager.leaf_id or "", "at"):
            raise Cancelled("Clone cancelled")
        await self.hooks.session_ending("fork", None)
        result = await self._navigator.clone(entry_id)
        await self.hooks.session_replaced("fork", previous)
        return result

    async def new_session(self) -> str | None:
        """Raises Cancelled when a ``session_before_switch`` hook cancels."""
        previous = self.session_file
        if await self.hooks.before_switch("new", None):
            raise Cancelled("New session cancelled")
        await self.hooks.session_ending("new", None)
        result = await self._navigator.new_session()
        await self.hooks.session_replaced("new", previous)
        return result

    async def switch_session(self, path: str) -> None:
        """Open another session file (resume): messages, model and thinking level come from it."""
        previous = self.session_file
        if await self.hooks.before_switch("resume", path):
            raise Cancelled("Session switch cancelled")
        await self.hooks.session_ending("resume", path)
        await self._navigator.open_file(path)
        await self._models.restore_from_session()
        await self.hooks.session_replaced("resume", previous)

    async def execute_bash(
        self,
        command: str,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], None] | None = None,
    ) -> BashResult:
        """Run the user's ``!cmd`` (``!!cmd``: ``exclude_from_context``); a ``user_bash`` hook may answer
        instead of the local shell."""
        supplied = await self.hooks.user_bash(command, exclude_from_context, self.cwd)
        if supplied is not None:
            self._shell.record(command, supplied, exclude_from_context)
            return supplied
        return await self._shell.execute(command, exclude_from_context, on_chunk)

    # ================================================================== tools
    def get_all_tools(self) -> list[AgentTool]:
        """Every tool the session can activate: the built-ins, then SDK and extension tools."""
        return self._tools.all(self.agent.state.tools)

    def add_tool(self, tool: AgentTool, activate: bool = True) -> None:
        """Register a tool (replacing one of the same name, built-in or not) and optionally activate it."""
        was_active = tool.name in self.tool_names
        self._tools.add(tool)
        names = self.tool_names
        if activate and not was_active:
            names.append(tool.name)
        self.set_active_tools(names)

    def remove_tool(self, name: str) -> None:
        if self._tools.remove(name):
            self.set_active_tools([n for n in self.tool_names if n != name or n in ALL_TOOL_NAMES])

    def set_active_tools(self, names: list[str]) -> None:
        """Activate exactly ``names`` (unknown names are ignored) and rebuild the system prompt; the agent
        loop records the change in the transcript's tool log before the next request."""
        self.agent.set_tools(self._tools.choose(names, self.agent.state.tools))
        self._rebuild_system_prompt()

    def _rebuild_system_prompt(self) -> None:
        tools = self.agent.state.tools
        self._base_system_prompt = system_prompt_for(
            self.cwd,
            [t.name for t in tools],
            self._resources,
            self._resource_options,
            tool_snippets={t.name: t.prompt_snippet for t in tools if t.prompt_snippet},
            prompt_guidelines=[g for t in tools for g in t.prompt_guidelines],
        )
        if not self.is_streaming:
            self.agent.set_system_prompt(self._base_system_prompt)

    async def set_model(self, model: Model) -> None:
        await self._models.set_model(model)

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> Model | None:
        return await self._models.cycle_model(direction)

    def available_thinking_levels(self) -> list[str]:
        return self._models.available_thinking_levels()

    def set_thinking_level(self, level: str) -> None:
        self._models.set_thinking_level(level)

    def cycle_thinking_level(self) -> str | None:
        return self._models.cycle_thinking_level()

    # ================================================================== session info
    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)
        self._events.schedule(SessionInfoChangedEvent(self.session_name))

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.session_manager.append_label_change(entry_id, label)

    def get_context_usage(self) -> tuple[int | None, int, float | None] | None:
        usage = self.context_usage()
        return usage.as_tuple() if usage is not None else None

    def context_usage(self) -> ContextUsage | None:
        """The footer's context figures (estimated from the last usage on: only the tail is read)."""
        return compute_context_usage(
            self.agent.state.messages, self._context_window(), self._compactor.stale_predicate()
        )

    def get_session_stats(self) -> SessionStats:
        stats = compute_stats(
            list(self.agent.state.messages),
            self.session_file,
            self.session_id,
            entry_usages(self.session_manager.raw_entries()),
        )
        stats.context_usage = self.context_usage()
        return stats

    def get_last_assistant_text(self) -> str | None:
        for m in reversed(self.agent.state.messages):
            if getattr(m, "role", None) != "assistant":
                continue
            if m.stopReason == "aborted" and not m.content:
                continue
            text = "".join(c.text for c in m.content if c.type == "text")
            return text.strip() or None
        return None

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, prompt templates and skills as slash commands (completion, RPC
        ``get_commands``), in pi's order."""
        resources = self._resources
        with_skills = bool(self.settings.settings.enableSkillCommands)
        return slash_commands(
            self.hooks.command_infos(), resources.prompt_templates, resources.skills, with_skills
        )

    def add_resource_paths(self, skill_paths: list[str], prompt_paths: list[str]) -> None:
        """More skill and prompt-template locations (extensions' ``resources_discover``); loaded now."""
        opts = self._resource_options
        opts.skills_paths = list(dict.fromkeys([*opts.skills_paths, *skill_paths]))
        opts.template_paths = list(dict.fromkeys([*opts.template_paths, *prompt_paths]))
        self._resources = load_resources(self.cwd, self.agent_dir, self.settings, opts)
        self._rebuild_system_prompt()

    async def reload(self) -> None:
        """Re-read settings, context files, skills and templates, reload extensions; rebuild the system
        prompt."""
        await self.hooks.reload()
        self.settings.reload()
        self._resources = load_resources(self.cwd, self.agent_dir, self.settings, self._resource_options)
        self.resource_warnings = list(self._resources.warnings) + self.settings.drain_warnings()
        fresh = tool_options_from_settings(self.settings, self.agent_dir)
        for name in ("shell_command_prefix", "shell_path", "auto_resize_images", "keep_background_processes"):
            setattr(self._tool_options, name, getattr(fresh, name))  # tools share this options object
        s = self.settings.settings
        self.agent.steering_mode = s.steeringMode
        self.agent.follow_up_mode = s.followUpMode
        self.agent.thinking_budgets = self.settings.thinking_budgets() or None
        self._rebuild_system_prompt()


def _entry_type(entry: object) -> object:
    return (
        entry.type
        if isinstance(entry, EntryRecord)
        else entry.get("type")
        if isinstance(entry, dict)
        else None
    )
