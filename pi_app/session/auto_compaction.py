"""Compaction inside AgentSession: manual, threshold (before every model request and after a run) and
overflow recovery (one compact-and-retry per prompt).

Unlike pi, the threshold is also checked between tool turns of one run (through the agent's
``prepare_next_turn`` hook), so a long tool run compacts before the provider rejects it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_app.agent import AgentContext, NextTurn, TurnContext
from pi_app.ai.abort import AbortController, AbortSignal
from pi_app.ai.overflow import is_context_overflow
from pi_app.session.compaction.estimate import context_tokens_from_usage, estimate_tokens, should_compact
from pi_app.session.session_events import CompactionEndEvent, CompactionReason, CompactionStartEvent
from pi_app.session.stats import context_tokens, stale_before

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.compaction.summarize import CompactionResult

OVERFLOW_RETRY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)


class CompactionError(RuntimeError):
    pass


class _Skip(Exception):
    """Nothing to do (auto paths end quietly, manual compaction reports the text)."""


def _compacted(result: CompactionResult | str | None) -> bool:
    # A CompactionResult (the summariser is imported only once a compaction runs).
    return result is not None and not isinstance(result, str)


class CompactionMixin:
    _compaction_controller: AbortController | None
    _compaction_baseline: list[Any]

    # ------------------------------------------------------------------ public
    @property
    def is_compacting(self: AgentSession) -> bool:
        return self._compaction_controller is not None

    @property
    def auto_compaction_enabled(self: AgentSession) -> bool:
        return self.settings.settings.compaction.enabled

    def set_auto_compaction_enabled(self: AgentSession, enabled: bool) -> None:
        self.settings.set_compaction_enabled(enabled)

    def abort_compaction(self: AgentSession) -> None:
        if self._compaction_controller is not None:
            self._compaction_controller.abort()

    async def compact(self: AgentSession, custom_instructions: str | None = None) -> CompactionResult:
        """Summarise the older part of the active path now (aborts a running prompt first).

        Raises CompactionError with the reason (``Nothing to compact (session too small)``,
        ``Summarization failed: …``, ``Compaction cancelled``).
        """
        await self.stop_all()  # a prompt waiting on a pre-prompt compaction must not run alongside
        result = await self._run_compaction("manual", custom_instructions=custom_instructions)
        if _compacted(result):
            return result  # type: ignore[return-value]
        raise CompactionError(result or "Compaction failed")

    # ------------------------------------------------------------------ the one compaction routine
    def _latest_compaction_timestamp(self: AgentSession) -> str | None:
        for entry in reversed(self.session_manager.get_branch()):
            if entry.get("type") == "compaction":
                return str(entry.get("timestamp", ""))
        return None

    def _stale_predicate(self: AgentSession) -> Callable[[Any], bool]:
        """Is a message from before the latest compaction (its usage describes the old context)?

        After a compaction here, the rebuilt messages are exactly the stale ones (identity, not clock: a fast
        provider answers within the compaction's millisecond). After a resume, timestamps decide.
        """
        baseline = self._compaction_baseline
        if baseline:
            return lambda m: any(m is b for b in baseline)
        return stale_before(self._latest_compaction_timestamp())

    async def _run_compaction(
        self: AgentSession,
        reason: CompactionReason,
        *,
        will_retry: bool = False,
        custom_instructions: str | None = None,
        parent_signal: AbortSignal | None = None,
    ) -> CompactionResult | str | None:
        """Compact and replace the agent's messages with the rebuilt context.

        Returns the result, or the error text (None when aborted or, on auto paths, nothing to do).
        Always emits compaction_start/compaction_end.
        """
        from pi_app.session.compaction.cut_point import prepare_compaction
        from pi_app.session.compaction.summarize import SummarizationAborted, compact

        await self._emit(CompactionStartEvent(reason))
        controller = AbortController()
        self._compaction_controller = controller
        remove = parent_signal.add_listener(controller.abort) if parent_signal is not None else None
        try:
            model = self.model
            if model is None:
                raise CompactionError("No model selected")
            api_key = await self.model_registry.get_api_key(model)
            if not api_key:
                raise CompactionError(f"No API key for {model.provider}")
            path = [e.data if hasattr(e, "data") else e for e in self.session_manager.get_branch()]
            cfg = self.settings.settings.compaction
            prep = prepare_compaction(path, cfg.keepRecentTokens)
            if prep is None and path and path[-1].get("type") == "compaction":
                raise _Skip("Already compacted")
            # Before any compaction, tool-set system messages alone free nothing (the tools are declared
            # again), and an overflow "recovery" would resend the same request. After one, compacting
            # still drops the previously kept messages, so it goes ahead as in pi.
            if prep is None or not any(
                getattr(m, "role", None) != "system" or prep.previous_summary is not None
                for m in (*prep.messages_to_summarize, *prep.turn_prefix_messages)
            ):
                raise _Skip("Nothing to compact (session too small)")
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
            self.session_manager.append_compaction(
                result.summary, result.first_kept_entry_id, result.tokens_before, result.details
            )
            messages = list(self.session_manager.build_session_context().messages)
            if will_retry and messages:
                last = messages[-1]
                if getattr(last, "role", None) == "assistant" and last.stopReason == "error":
                    messages.pop()
            self.agent.replace_messages(messages)
            self._compaction_baseline = list(messages)
            await self._emit(CompactionEndEvent(reason, result, will_retry=will_retry))
            return result
        except SummarizationAborted:
            await self._emit(CompactionEndEvent(reason, aborted=True))
            return None if reason != "manual" else "Compaction cancelled"
        except _Skip as skip:
            text = str(skip)
            if reason == "overflow":  # the request cannot succeed as it is: say so instead of ending quietly
                text = f"Context overflow recovery failed: {text}"
            shown = text if reason in ("manual", "overflow") else None
            await self._emit(CompactionEndEvent(reason, error_message=shown))
            return shown
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            if reason == "overflow":
                text = f"Context overflow recovery failed: {text}"
            elif reason == "threshold":
                text = f"Auto-compaction failed: {text}"
            await self._emit(CompactionEndEvent(reason, error_message=text))
            return text
        finally:
            if remove is not None:
                remove()
            self._compaction_controller = None

    # ------------------------------------------------------------------ auto triggers
    def _tokens_now(self: AgentSession, messages: list[Any]) -> int:
        tokens = context_tokens(messages, self._stale_predicate())
        # Only pre-compaction usage known: the kept messages' old usage would overstate the context.
        return tokens if tokens is not None else sum(estimate_tokens(m) for m in messages)

    async def _prepare_next_turn(self: AgentSession, turn: TurnContext) -> NextTurn | None:
        """Between tool turns of a run: compact when the next request would cross the threshold."""
        cfg = self.settings.settings.compaction
        model = self.model
        if not cfg.enabled or model is None or self._compaction_controller is not None:
            return None
        tokens = self._tokens_now(list(turn.context.messages))
        if not should_compact(tokens, model.contextWindow or 0, cfg.reserveTokens):
            return None
        result = await self._run_compaction("threshold", parent_signal=self.agent.signal)
        if not _compacted(result):
            return None  # the run goes on with the full context (overflow recovery may still save it)
        ctx = turn.context
        return NextTurn(context=AgentContext(ctx.system_prompt, list(self.agent.state.messages), ctx.tools))

    async def _check_compaction(self: AgentSession, message: Any, pre_prompt: bool = False) -> bool:
        """After a run (and before a prompt): overflow recovery or threshold compaction.

        Returns True when the agent should continue (overflow retried, or messages queued meanwhile). Before a
        prompt, aborted messages count too and an overflow is compacted without a retry (the prompt follows).
        """
        cfg = self.settings.settings.compaction
        if not cfg.enabled or message is None:
            return False
        if not pre_prompt and message.stopReason == "aborted":
            return False
        model = self.model
        window = (model.contextWindow or 0) if model is not None else 0
        same_model = model is not None and message.provider == model.provider and message.model == model.id
        is_stale = self._stale_predicate()
        if is_stale(message):
            return False  # usage or error from before the latest compaction says nothing about now
        if same_model and is_context_overflow(message, window):
            if self._overflow_recovery_attempted and not pre_prompt:
                await self._emit(CompactionEndEvent("overflow", error_message=OVERFLOW_RETRY_FAILED))
                return False
            self._overflow_recovery_attempted = True
            self._drop_trailing_error()
            result = await self._run_compaction("overflow", will_retry=not pre_prompt)
            return _compacted(result) and not pre_prompt
        if message.stopReason == "error":
            tokens = context_tokens(list(self.agent.state.messages), is_stale)
            if tokens is None:
                return False
        else:
            tokens = context_tokens_from_usage(message.usage)
        if not should_compact(tokens, window, cfg.reserveTokens):
            return False
        result = await self._run_compaction("threshold")
        return _compacted(result) and self.agent.has_queued_messages()

    def _drop_trailing_error(self: AgentSession) -> None:
        """Take a failed assistant message out of the agent's context (the session file keeps it)."""
        messages = self.agent.state.messages
        if messages and getattr(messages[-1], "role", None) == "assistant":
            self.agent.replace_messages(messages[:-1])
