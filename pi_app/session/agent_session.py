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
import inspect
import logging
from collections.abc import Callable
from typing import Any, Literal

from pi_app.agent import Agent
from pi_app.ai.abort import AbortController, AbortError, race_abort
from pi_app.ai.types import AssistantMessage, ImageContent, Model, TextContent, UserMessage
from pi_app.session.assembly import (
    ResourceOptions,
    Resources,
    load_resources,
    system_prompt_for,
    tool_options_from_settings,
)
from pi_app.session.auto_compaction import CompactionMixin
from pi_app.session.config import ModelRegistry, ScopedModel, SettingsManager
from pi_app.session.model_switching import ModelSwitchingMixin
from pi_app.session.navigation import NavigateResult, NavigationMixin, content_text
from pi_app.session.resources.skills import Skill, expand_skill_command
from pi_app.session.resources.system_prompt import DOCS_URL
from pi_app.session.resources.templates import PromptTemplate, expand_prompt_template
from pi_app.session.retry import RETRY_CANCELLED, is_retryable_error, retry_delay_ms
from pi_app.session.session_events import (
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    QueueUpdateEvent,
    SessionInfoChangedEvent,
)
from pi_app.session.stats import SessionStats, compute_context_usage, compute_stats
from pi_app.session.store import SessionManager
from pi_app.session.user_bash import UserBashMixin
from pi_app.tools.options import ToolOptions

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
Listener = Callable[[Any], Any]

__all__ = ["BUSY_TEXT", "AgentSession", "NavigateResult"]


class AgentSession(ModelSwitchingMixin, CompactionMixin, NavigationMixin, UserBashMixin):
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
        stream_fn: Callable[..., Any] | None = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings = settings
        self.model_registry = model_registry
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.scoped_models = list(scoped_models or [])
        self.model_fallback_message: str | None = None
        self.resource_warnings: list[str] = list(resources.warnings)
        self._resources = resources
        self._resource_options = resource_options
        self._tool_options = tool_options
        self._stream_fn = stream_fn
        self._base_system_prompt = agent.state.system_prompt
        self._listeners: list[Listener] = []
        self._steering_texts: list[str] = []
        self._follow_up_texts: list[str] = []
        self._pending_bash = []
        self._running = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._abort_requested = False
        self._pre_prompt_compaction = False
        self._retry_attempt = 0
        self._retry_controller: AbortController | None = None
        self._bash_controller: AbortController | None = None
        self._compaction_controller = None
        self._compaction_baseline: list[Any] = []
        self._branch_summary_controller = None
        self._overflow_recovery_attempted = False
        agent.prepare_next_turn = self._prepare_next_turn
        agent.subscribe(self._on_agent_event)

    # ================================================================== properties
    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self._running or self.agent.state.is_streaming

    @property
    def messages(self) -> list[Any]:
        return list(self.agent.state.messages)

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
        return self._retry_controller is not None

    @property
    def is_bash_running(self) -> bool:
        return self._bash_controller is not None

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
    def prompt_templates(self) -> list[PromptTemplate]:
        return list(self._resources.prompt_templates)

    @property
    def skills(self) -> list[Skill]:
        return list(self._resources.skills)

    @property
    def context_files(self) -> list[Any]:
        return list(self._resources.context_files)

    @property
    def pending_message_count(self) -> int:
        return len(self._steering_texts) + len(self._follow_up_texts)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.agent.state.tools]

    # ================================================================== events
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``listener(event)``, sync or async; awaited in subscription order. Returns an unsubscriber."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return unsubscribe

    async def _emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:  # a broken UI listener must not take the run (or the file) down with it
                log.exception("session listener failed on %s", getattr(event, "type", event))

    async def _emit_queue_update(self) -> None:
        await self._emit(QueueUpdateEvent(list(self._steering_texts), list(self._follow_up_texts)))

    async def _on_agent_event(self, event: Any) -> None:
        kind = event.type
        if kind == "message_start" and getattr(event.message, "role", None) == "user":
            self._overflow_recovery_attempted = False
            if self._dequeue_text(content_text(event.message.content)):
                await self._emit_queue_update()
        elif kind == "message_end":
            self._persist(event.message)
        await self._emit(event)
        if kind == "message_end" and getattr(event.message, "role", None) == "assistant":
            if event.message.stopReason != "error":
                self._overflow_recovery_attempted = False
                if self._retry_attempt > 0:
                    attempt, self._retry_attempt = self._retry_attempt, 0
                    await self._emit(AutoRetryEndEvent(True, attempt))

    def _dequeue_text(self, text: str) -> bool:
        for queue in (self._steering_texts, self._follow_up_texts):
            if text in queue:
                queue.remove(text)
                return True
        return False

    def _persist(self, message: Any) -> None:
        role = getattr(message, "role", None)
        try:
            if role in ("user", "assistant", "toolResult", "system"):
                self.session_manager.append_message(message)
            elif role == "custom":
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
    ) -> None:
        """Send ``text`` (skill/template expanded); returns when the agent is done, retries included.

        While busy the message is queued per ``streaming_behavior``; without one this raises pi's
        "already processing" error. Raises RuntimeError for a missing model or API key.
        """
        expanded = self._expand(text)
        if self.is_streaming:
            if streaming_behavior is None:
                raise RuntimeError(BUSY_TEXT)
            if streaming_behavior in ("followUp", "follow_up"):
                await self._queue(expanded, images, follow_up=True)
            else:
                await self._queue(expanded, images, follow_up=False)
            return
        self._running = True
        self._idle.clear()
        self._abort_requested = False
        try:
            model = self.model
            if model is None:
                raise RuntimeError(NO_MODEL_TEXT)
            if not await self.model_registry.get_api_key(model):
                raise RuntimeError(self._missing_key_text(model))
            self._flush_pending_bash()
            last = self._last_assistant()
            if last is not None:
                self._pre_prompt_compaction = True
                try:
                    await self._check_compaction(last, pre_prompt=True)
                finally:
                    self._pre_prompt_compaction = False
            if self._abort_requested:
                return  # stopped by navigation (new/switch/fork) before the prompt went out
            message = UserMessage(content=[TextContent(text=expanded), *(images or [])])
            self.agent.set_system_prompt(self._base_system_prompt)
            await self.agent.prompt([message])
            await self._after_runs()
        finally:
            self._flush_pending_bash()
            self._running = False
            self._idle.set()

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
        while not self._abort_requested:
            last = self._last_message_if_assistant()
            if last is None:
                return
            if self.auto_retry_enabled and is_retryable_error(last, self._context_window()):
                if await self._wait_for_retry(last):
                    await self.agent.continue_()
                    continue
                if self._abort_requested:
                    return
                # Retries exhausted or cancelled: as pi, the compaction check still runs (a session stuck
                # on overload errors near the window can compact).
            if self._retry_attempt > 0 and last.stopReason in ("error", "aborted"):
                attempt, self._retry_attempt = self._retry_attempt, 0
                await self._emit(AutoRetryEndEvent(False, attempt, last.errorMessage or "Unknown error"))
            should_continue = await self._check_compaction(last)
            if self._abort_requested:
                return
            if not should_continue and last.stopReason not in ("error", "aborted"):
                # Input queued while compaction (or the run's tail) was in progress still gets delivered.
                should_continue = self.agent.has_queued_messages()
            if not should_continue:
                return
            await self.agent.continue_()

    async def _wait_for_retry(self, message: AssistantMessage) -> bool:
        cfg = self.settings.settings.retry
        self._retry_attempt += 1
        if self._retry_attempt > cfg.maxRetries:
            attempt, self._retry_attempt = self._retry_attempt - 1, 0
            await self._emit(AutoRetryEndEvent(False, attempt, message.errorMessage))
            return False
        delay = retry_delay_ms(cfg.baseDelayMs, self._retry_attempt)
        await self._emit(
            AutoRetryStartEvent(
                self._retry_attempt, cfg.maxRetries, delay, message.errorMessage or "Unknown error"
            )
        )
        self._drop_trailing_error()
        controller = AbortController()
        self._retry_controller = controller
        try:
            await race_abort(asyncio.sleep(delay / 1000), controller.signal)
        except AbortError:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(AutoRetryEndEvent(False, attempt, RETRY_CANCELLED))
            return False
        finally:
            self._retry_controller = None
        return not self._abort_requested

    def _context_window(self) -> int:
        model = self.model
        return (model.contextWindow or 0) if model is not None else 0

    def _last_message_if_assistant(self) -> AssistantMessage | None:
        messages = self.agent.state.messages
        last = messages[-1] if messages else None
        return last if getattr(last, "role", None) == "assistant" else None

    def _last_assistant(self) -> AssistantMessage | None:
        for m in reversed(self.agent.state.messages):
            if getattr(m, "role", None) == "assistant":
                return m
        return None

    # ------------------------------------------------------------------ queues
    async def _queue(self, text: str, images: list[ImageContent] | None, follow_up: bool) -> None:
        message = UserMessage(content=[TextContent(text=text), *(images or [])])
        if follow_up:
            self._follow_up_texts.append(text)
            self.agent.follow_up(message)
        else:
            self._steering_texts.append(text)
            self.agent.steer(message)
        await self._emit_queue_update()

    async def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Deliver after the current tool batch, before the next model request."""
        await self._queue(self._expand(text), images, follow_up=False)

    async def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Deliver when the agent would otherwise stop."""
        await self._queue(self._expand(text), images, follow_up=True)

    def get_steering_messages(self) -> list[str]:
        return list(self._steering_texts)

    def get_follow_up_messages(self) -> list[str]:
        return list(self._follow_up_texts)

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Empty both queues; returns what they held (the UI puts it back into the editor)."""
        steering, follow_up = self._steering_texts, self._follow_up_texts
        self._steering_texts, self._follow_up_texts = [], []
        self.agent.clear_all_queues()
        return steering, follow_up

    # ------------------------------------------------------------------ control
    async def abort(self) -> None:
        """Stop whatever runs: retry wait, compaction, the agent's request or tools; returns when idle.

        As in pi, an abort while a prompt's pre-prompt compaction runs cancels only that compaction: the
        prompt is then sent on the uncompacted context (it is not dropped), so this returns at once.
        """
        if self._pre_prompt_compaction:
            self.abort_compaction()
            return
        await self.stop_all()

    async def stop_all(self) -> None:
        """Stop everything, a prompt that has not been sent yet included; returns when idle (navigation)."""
        if self._running:
            self._abort_requested = True
        self.abort_retry()
        self.abort_compaction()
        self.agent.abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        await self._idle.wait()
        await self.agent.wait_for_idle()

    def abort_retry(self) -> None:
        if self._retry_controller is not None:
            self._retry_controller.abort()

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings.set_retry_enabled(enabled)

    def set_steering_mode(self, mode: Literal["all", "one-at-a-time"]) -> None:
        self.agent.steering_mode = mode
        self.settings.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: Literal["all", "one-at-a-time"]) -> None:
        self.agent.follow_up_mode = mode
        self.settings.set_follow_up_mode(mode)

    # ================================================================== model and thinking level
    def _schedule(self, event: Any) -> None:
        """Emit from synchronous setters: now if no loop runs, else as a task (listeners may be async)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self._emit(event))
            return
        task = loop.create_task(self._emit(event))
        self._tasks = getattr(self, "_tasks", set())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ================================================================== session info
    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)
        self._schedule(SessionInfoChangedEvent(self.session_name))

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.session_manager.append_label_change(entry_id, label)

    def get_context_usage(self) -> tuple[int | None, int, float | None] | None:
        usage = compute_context_usage(
            list(self.agent.state.messages), self._context_window(), self._stale_predicate()
        )
        return usage.as_tuple() if usage is not None else None

    def get_session_stats(self) -> SessionStats:
        stats = compute_stats(list(self.agent.state.messages), self.session_file, self.session_id)
        stats.context_usage = compute_context_usage(
            list(self.agent.state.messages), self._context_window(), self._stale_predicate()
        )
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
        """Prompt templates and skills as slash commands (completion, RPC ``get_commands``)."""
        out: list[dict[str, Any]] = [
            {
                "name": t.name,
                "description": t.description,
                "source": "prompt",
                "location": t.source,
                "path": t.file_path,
            }
            for t in self._resources.prompt_templates
        ]
        if self.settings.settings.enableSkillCommands:
            out += [
                {
                    "name": f"skill:{s.name}",
                    "description": s.description,
                    "source": "skill",
                    "location": s.source,
                    "path": s.file_path,
                }
                for s in self._resources.skills
            ]
        return out

    async def reload(self) -> None:
        """Re-read settings, context files, skills and templates; rebuild the system prompt."""
        self.settings.reload()
        self._resources = load_resources(self.cwd, self.agent_dir, self.settings, self._resource_options)
        self.resource_warnings = list(self._resources.warnings) + self.settings.drain_warnings()
        fresh = tool_options_from_settings(self.settings, self.agent_dir)
        for name in ("shell_command_prefix", "shell_path", "auto_resize_images"):
            setattr(self._tool_options, name, getattr(fresh, name))  # tools share this options object
        s = self.settings.settings
        self.agent.steering_mode = s.steeringMode
        self.agent.follow_up_mode = s.followUpMode
        self.agent.thinking_budgets = self.settings.thinking_budgets() or None
        self._base_system_prompt = system_prompt_for(
            self.cwd, self.tool_names, self._resources, self._resource_options
        )
        self.agent.set_system_prompt(self._base_system_prompt)
