"""The session's compactor: manual, threshold (before every model request and after a run) and overflow
recovery (one compact-and-retry per prompt).

Unlike pi, the threshold is also checked between tool turns of one run (through the agent's
``prepare_next_turn`` hook), so a long tool run compacts before the provider rejects it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_app.agent import Agent, AgentContext, NextTurn, TurnContext
from pi_app.ai.abort import AbortController, AbortSignal
from pi_app.ai.overflow import is_context_overflow
from pi_app.ai.stream import StreamFn
from pi_app.ai.types import AssistantMessage
from pi_app.session.compaction.estimate import context_tokens_from_usage, estimate_tokens, should_compact
from pi_app.session.config import ModelRegistry, SettingsManager
from pi_app.session.event_hub import Emit
from pi_app.session.hooks import NO_HOOKS, SessionHooks
from pi_app.session.messages import AgentMessage
from pi_app.session.results import CompactionCancelled, CompactionError
from pi_app.session.session_events import CompactionEndEvent, CompactionReason, CompactionStartEvent
from pi_app.session.stats import context_tokens, stale_before
from pi_app.session.store import SessionManager

if TYPE_CHECKING:
    from pi_app.session.compaction.summarize import CompactionResult

__all__ = [
    "NOTHING_TO_COMPACT",
    "OVERFLOW_RETRY_FAILED",
    "CompactionCancelled",
    "CompactionError",
    "Compactor",
]

NOTHING_TO_COMPACT = "Nothing to compact (session too small)"
OVERFLOW_RETRY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)


class _Skip(Exception):
    """Nothing to do (auto paths end quietly, manual compaction reports the text)."""


class Compactor:
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        emit: Emit,
        stream_fn: StreamFn | None = None,
    ) -> None:
        self._agent = agent
        self._sm = session_manager
        self._settings = settings
        self._registry = model_registry
        self._emit = emit
        self._stream_fn = stream_fn
        self._controller: AbortController | None = None
        self.hooks: SessionHooks = NO_HOOKS
        # The agent messages rebuilt by the latest compaction here (see stale_predicate).
        self._baseline: list[AgentMessage] = []
        self._overflow_attempted = False

    # ------------------------------------------------------------------ state
    @property
    def is_compacting(self) -> bool:
        return self._controller is not None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    def forget_baseline(self) -> None:
        """Another session file or leaf: the messages compacted here are gone."""
        self._baseline = []

    def reset_overflow_guard(self) -> None:
        """A new user message or a good answer: overflow recovery may be tried again."""
        self._overflow_attempted = False

    def _latest_compaction_timestamp(self) -> str | None:
        for entry in reversed(self._sm.get_branch()):
            if entry.get("type") == "compaction":
                return str(entry.get("timestamp", ""))
        return None

    def stale_predicate(self) -> Callable[[AgentMessage], bool]:
        """Is a message from before the latest compaction (its usage describes the old context)?

        After a compaction here, the rebuilt messages are exactly the stale ones (identity, not clock: a fast
        provider answers within the compaction's millisecond). After a resume, timestamps decide.
        """
        baseline = self._baseline
        if baseline:
            return lambda m: any(m is b for b in baseline)
        return stale_before(self._latest_compaction_timestamp())

    # ------------------------------------------------------------------ the one compaction routine
    async def run(
        self,
        reason: CompactionReason,
        *,
        will_retry: bool = False,
        custom_instructions: str | None = None,
        parent_signal: AbortSignal | None = None,
    ) -> CompactionResult:
        """Compact and replace the agent's messages with the rebuilt context.

        Always emits compaction_start/compaction_end. Raises CompactionCancelled when aborted and
        CompactionError otherwise (its text is what compaction_end said, if anything).
        """
        from pi_app.session.compaction.cut_point import (
            prepare_compaction,
            prepare_manual_compaction,
            worth_summarizing,
        )
        from pi_app.session.compaction.summarize import CompactionResult, SummarizationAborted, compact

        await self._emit(CompactionStartEvent(reason))
        controller = AbortController()
        self._controller = controller
        remove = parent_signal.add_listener(controller.abort) if parent_signal is not None else None
        try:
            model = self._agent.state.model
            if model is None:
                raise CompactionError("No model selected")
            api_key = await self._registry.get_api_key(model)
            if not api_key:
                raise CompactionError(f"No API key for {model.provider}")
            path: list[dict[str, Any]] = [e if isinstance(e, dict) else e.data for e in self._sm.get_branch()]
            cfg = self._settings.settings.compaction
            # A manual compaction within keepRecentTokens summarises all but the last exchange (the user
            # asked for it); automatic ones keep their thresholds.
            prepare = prepare_manual_compaction if reason == "manual" else prepare_compaction
            prep = prepare(path, cfg.keepRecentTokens)
            if prep is None and path and path[-1].get("type") == "compaction":
                raise _Skip("Already compacted")
            # Before any compaction, tool-set system messages alone free nothing (the tools are declared
            # again), and an overflow "recovery" would resend the same request. After one, compacting
            # still drops the previously kept messages, so it goes ahead as in pi.
            if prep is None or not worth_summarizing(prep):
                raise _Skip(NOTHING_TO_COMPACT)
            decision = await self.hooks.before_compact(
                preparation=prep,
                branch_entries=path,
                custom_instructions=custom_instructions,
                reason=reason,
                will_retry=will_retry,
                signal=controller.signal,
            )
            if decision.cancel:
                raise SummarizationAborted("Compaction cancelled")
            supplied = decision.compaction
            if supplied is not None:
                result = CompactionResult(
                    supplied.summary, supplied.first_kept_entry_id, supplied.tokens_before, supplied.details
                )
            else:
                result = await compact(
                    prep,
                    model,
                    cfg.reserveTokens,
                    api_key,
                    custom_instructions,
                    controller.signal,
                    self._stream_fn,
                )
            if controller.signal.aborted:
                raise SummarizationAborted("Compaction cancelled")
            entry_id = self._sm.append_compaction(
                result.summary,
                result.first_kept_entry_id,
                result.tokens_before,
                result.details,
                from_hook=True if supplied is not None else None,
            )
            entry = self._sm.get_raw_entry(entry_id) if entry_id else None
            await self.hooks.after_compact(
                entry.data if entry is not None else None,
                supplied is not None,
                reason,
                will_retry,
            )
            messages = list(self._sm.build_session_context().messages)
            if will_retry and messages:
                last = messages[-1]
                if isinstance(last, AssistantMessage) and last.stopReason == "error":
                    messages.pop()
            self._agent.replace_messages(messages)
            self._baseline = list(messages)
            await self._emit(CompactionEndEvent(reason, result, will_retry=will_retry))
            return result
        except SummarizationAborted:
            await self._emit(CompactionEndEvent(reason, aborted=True))
            raise CompactionCancelled("Compaction cancelled") from None
        except _Skip as skip:
            text = str(skip)
            if reason == "overflow":  # the request cannot succeed as it is: say so instead of ending quietly
                text = f"Context overflow recovery failed: {text}"
            shown = text if reason in ("manual", "overflow") else None
            await self._emit(CompactionEndEvent(reason, error_message=shown))
            raise CompactionError(text) from None
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            if reason == "overflow":
                text = f"Context overflow recovery failed: {text}"
            elif reason == "threshold":
                text = f"Auto-compaction failed: {text}"
            await self._emit(CompactionEndEvent(reason, error_message=text))
            raise CompactionError(text) from exc
        finally:
            if remove is not None:
                remove()
            self._controller = None

    async def _run_auto(
        self, reason: CompactionReason, *, will_retry: bool = False, parent_signal: AbortSignal | None = None
    ) -> bool:
        """An automatic compaction: True when it compacted (failures were reported by compaction_end)."""
        try:
            await self.run(reason, will_retry=will_retry, parent_signal=parent_signal)
        except CompactionError:
            return False
        return True

    # ------------------------------------------------------------------ auto triggers
    def _tokens_now(self, messages: list[AgentMessage]) -> int:
        tokens = context_tokens(messages, self.stale_predicate())
        # Only pre-compaction usage known: the kept messages' old usage would overstate the context.
        return tokens if tokens is not None else sum(estimate_tokens(m) for m in messages)

    async def prepare_next_turn(self, turn: TurnContext) -> NextTurn | None:
        """Between tool turns of a run: compact when the next request would cross the threshold."""
        cfg = self._settings.settings.compaction
        model = self._agent.state.model
        if not cfg.enabled or model is None or self._controller is not None:
            return None
        tokens = self._tokens_now(list(turn.context.messages))
        if not should_compact(tokens, model.contextWindow or 0, cfg.reserveTokens):
            return None
        if not await self._run_auto("threshold", parent_signal=self._agent.signal):
            return None  # the run goes on with the full context (overflow recovery may still save it)
        ctx = turn.context
        return NextTurn(context=AgentContext(ctx.system_prompt, list(self._agent.state.messages), ctx.tools))

    async def check(self, message: AssistantMessage | None, pre_prompt: bool = False) -> bool:
        """After a run (and before a prompt): overflow recovery or threshold compaction.

        Returns True when the agent should continue (overflow retried, or messages queued meanwhile). Before a
        prompt, aborted messages count too and an overflow is compacted without a retry (the prompt follows).
        """
        cfg = self._settings.settings.compaction
        if not cfg.enabled or message is None:
            return False
        if not pre_prompt and message.stopReason == "aborted":
            return False
        model = self._agent.state.model
        window = (model.contextWindow or 0) if model is not None else 0
        same_model = model is not None and message.provider == model.provider and message.model == model.id
        is_stale = self.stale_predicate()
        if is_stale(message):
            return False  # usage or error from before the latest compaction says nothing about now
        # Only a failed request is recovered by compact-and-retry. A successful answer whose reported usage
        # exceeds the window (a silent overflow) is the answer: it stays, and the context is compacted below
        # as at the threshold, without a retry (retrying would discard it, continuing from it cannot work).
        if same_model and message.stopReason == "error" and is_context_overflow(message, window):
            if self._overflow_attempted and not pre_prompt:
                await self._emit(CompactionEndEvent("overflow", error_message=OVERFLOW_RETRY_FAILED))
                return False
            self._overflow_attempted = True
            self.drop_trailing_error()
            compacted = await self._run_auto("overflow", will_retry=not pre_prompt)
            return compacted and not pre_prompt
        if message.stopReason == "error":
            tokens = context_tokens(list(self._agent.state.messages), is_stale)
            if tokens is None:
                return False
        else:
            tokens = context_tokens_from_usage(message.usage)
        if not should_compact(tokens, window, cfg.reserveTokens):
            return False
        compacted = await self._run_auto("threshold")
        return compacted and self._agent.has_queued_messages()

    def drop_trailing_error(self) -> None:
        """Take a failed assistant message out of the agent's context (the session file keeps it)."""
        messages = self._agent.state.messages
        if messages and getattr(messages[-1], "role", None) == "assistant":
            self._agent.replace_messages(messages[:-1])
