"""Moving around sessions: /tree navigation (with optional branch summary), fork, clone, new file, open file.

Results and errors follow the convention of :mod:`pi_app.session.results`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from pi_app.agent import Agent
from pi_app.ai.abort import AbortController
from pi_app.ai.stream import StreamFn
from pi_app.ai.text import text_of
from pi_app.session.config import ModelRegistry, SettingsManager
from pi_app.session.hooks import NO_HOOKS, SessionHooks, TreePreparation
from pi_app.session.input_queue import InputQueue
from pi_app.session.results import Cancelled, CloneResult, ForkResult, NavigateResult, NavigationError
from pi_app.session.store import SessionManager, path_to_root

__all__ = ["NavigateResult", "TreeNavigator", "entries_to_summarize"]


# A user message's line has this; a line without it is not one (a match is confirmed by parsing). Quotes
# inside JSON strings are escaped, so message text cannot fake it.
_USER_ROLE = re.compile(r'"role"\s*:\s*"user"')


def _user_message(entry: Any) -> dict[str, Any] | None:
    if entry is None or entry.get("type") != "message":
        return None
    line = getattr(entry, "unparsed_line", None)
    if line is not None:  # a record not parsed yet: look before parsing, and don't keep the parse
        if _USER_ROLE.search(line) is None:
            return None
        msg = entry.peek("message")
    else:
        msg = entry.get("message")
    return msg if isinstance(msg, dict) and msg.get("role") == "user" else None


def entries_to_summarize(by_id: dict[str, Any], old_leaf: str | None, target: str) -> list[dict[str, Any]]:
    """The abandoned path: from below the deepest common ancestor of old leaf and target down to the old leaf."""
    old_path = path_to_root(by_id, old_leaf)
    on_target = {e["id"] for e in path_to_root(by_id, target)}
    start = 0
    for i, e in enumerate(old_path):
        if e["id"] in on_target:
            start = i + 1
    return [e.data if hasattr(e, "data") else e for e in old_path[start:]]


class TreeNavigator:
    """Owns every move of the session's leaf or file. ``stop_all`` stops whatever runs (nothing may go out
    into a session being left); ``forget_run_state`` drops what belonged to the old leaf (held-back ``!``
    commands, the compaction baseline)."""

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        queue: InputQueue,
        stop_all: Callable[[], Awaitable[None]],
        forget_run_state: Callable[[], None],
        stream_fn: StreamFn | None = None,
    ) -> None:
        self._agent = agent
        self._sm = session_manager
        self._settings = settings
        self._registry = model_registry
        self._queue = queue
        self._stop_all = stop_all
        self._forget_run_state = forget_run_state
        self._stream_fn = stream_fn
        self._summary_controller: AbortController | None = None
        self.hooks: SessionHooks = NO_HOOKS

    def abort_branch_summary(self) -> None:
        if self._summary_controller is not None:
            self._summary_controller.abort()

    # ------------------------------------------------------------------ /tree
    async def navigate(
        self,
        target_id: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigateResult:
        """Move the leaf within this file (pi's /tree). A user-message target returns its text for the editor
        and moves the leaf to its parent; any other target becomes the leaf.

        Raises NavigationError (unknown entry, no model/key, summary failed) or Cancelled (summary aborted).
        """
        sm = self._sm
        old_leaf = sm.leaf_id
        if target_id == old_leaf:
            return NavigateResult(moved=False)
        target = sm.get_raw_entry(target_id)
        if target is None:
            raise NavigationError(f"Entry {target_id} not found")
        model = self._agent.state.model
        if summarize and model is None:
            raise NavigationError("No model available for summarization")
        await self._stop_all()

        summary_text: str | None = None
        details: dict[str, Any] | None = None
        to_summarize = entries_to_summarize({e.id: e for e in sm.raw_entries()}, old_leaf, target_id)
        preparation = TreePreparation(
            target_id, old_leaf, to_summarize, summarize, custom_instructions, replace_instructions, label
        )
        decision = await self.hooks.before_tree(preparation, None)
        if decision.cancel:
            raise Cancelled("Navigation cancelled")
        if decision.custom_instructions is not None:
            custom_instructions = decision.custom_instructions
        if decision.replace_instructions is not None:
            replace_instructions = decision.replace_instructions
        if decision.label is not None:
            label = decision.label
        from_extension = bool(summarize and decision.summary is not None)
        if from_extension:
            summary_text, details = decision.summary, decision.details
        elif summarize and to_summarize and model is not None:
            api_key = await self._registry.get_api_key(model)
            if not api_key:
                raise NavigationError(f"No API key for {model.provider}")
            from pi_app.session.compaction.summarize import generate_branch_summary

            controller = AbortController()
            self._summary_controller = controller
            try:
                result = await generate_branch_summary(
                    to_summarize,
                    model,
                    api_key,
                    controller.signal,
                    custom_instructions,
                    replace_instructions,
                    self._settings.settings.branchSummary.reserveTokens,
                    self._stream_fn,
                )
            finally:
                self._summary_controller = None
            if result.aborted:
                raise Cancelled("Branch summarization cancelled")
            if result.error:
                raise NavigationError(result.error)
            summary_text = result.summary
            details = {"readFiles": result.read_files, "modifiedFiles": result.modified_files}

        editor_text: str | None = None
        user = _user_message(target)
        if user is not None:
            new_leaf = target.get("parentId")
            editor_text = text_of(user.get("content"))
        elif target.get("type") == "custom_message":
            new_leaf = target.get("parentId")
            editor_text = text_of(target.get("content"))
        else:
            new_leaf = target_id

        summary_id: str | None = None
        if summary_text:
            summary_id = sm.branch_with_summary(new_leaf, summary_text, details)
            if label:
                sm.append_label_change(summary_id, label)
        else:
            if new_leaf is None:
                sm.reset_leaf()
            else:
                sm.branch(new_leaf)
            if label:
                sm.append_label_change(target_id, label)
        self._reload_agent_messages()
        summary_entry = sm.get_raw_entry(summary_id) if summary_id else None
        await self.hooks.after_tree(
            sm.leaf_id, old_leaf, summary_entry.data if summary_entry is not None else None, from_extension
        )
        return NavigateResult(editor_text=editor_text, summary_entry_id=summary_id)

    # ------------------------------------------------------------------ fork / clone
    def fork_messages(self) -> list[tuple[str, str]]:
        """(entry id, text) of every user message in the file, oldest first."""
        out: list[tuple[str, str]] = []
        for entry in self._sm.raw_entries():
            user = _user_message(entry)
            if user is not None:
                text = text_of(user.get("content"))
                if text:
                    out.append((entry.id, text))
        return out

    async def fork(self, entry_id: str) -> ForkResult:
        """New session file holding the path up to the parent of user message ``entry_id`` (pi's /fork);
        the result carries the message's text for the editor."""
        sm = self._sm
        entry = sm.get_raw_entry(entry_id)
        user = _user_message(entry)
        if entry is None or user is None:
            raise NavigationError("Invalid entry ID for forking")
        text = text_of(user.get("content"))
        await self._stop_all()
        parent = entry.get("parentId")
        if parent is None:
            self._new_file(with_parent=True)
        else:
            sm.create_branched_session(parent)
        self._after_session_change()
        return ForkResult(text=text, session_file=sm.session_file)

    async def fork_at(self, entry_id: str) -> ForkResult:
        """The tree's fork: before a user message (as :meth:`fork`), or including any other entry."""
        if _user_message(self._sm.get_raw_entry(entry_id)) is not None:
            return await self.fork(entry_id)
        cloned = await self.clone(entry_id)
        return ForkResult(text=None, session_file=cloned.session_file)

    async def clone(self, entry_id: str | None = None) -> CloneResult:
        """Duplicate the path root→``entry_id`` (default: the leaf) into a new session file and continue
        there. The old file is left as it was (its leaf comes back if the copy fails)."""
        sm = self._sm
        await self._stop_all()  # nothing may go out into the session being cloned
        old_leaf = sm.leaf_id
        if entry_id is not None and entry_id != old_leaf:
            try:
                sm.branch(entry_id)
            except KeyError as exc:
                raise NavigationError(str(exc)) from exc
        try:
            leaf = sm.leaf_id
            if leaf is None:
                self._new_file(with_parent=True)
            else:
                sm.create_branched_session(leaf)
        except Exception:
            if sm.leaf_id != old_leaf and old_leaf is not None and sm.get_raw_entry(old_leaf) is not None:
                sm.branch(old_leaf)
            raise
        self._after_session_change()
        return CloneResult(session_file=sm.session_file)

    # ------------------------------------------------------------------ other files
    async def new_session(self) -> str | None:
        await self._stop_all()
        self._agent.reset()
        self._queue.clear()
        self._new_file(with_parent=False)
        self._after_session_change()
        return self._sm.session_file

    async def open_file(self, path: str) -> None:
        """Switch to another session file (its messages; the caller restores model and level)."""
        await self._stop_all()
        self._queue.clear()
        self._sm.set_session_file(path)
        self._after_session_change()

    # ------------------------------------------------------------------ helpers
    def _new_file(self, *, with_parent: bool) -> None:
        """A new session starts with model_change then thinking_level_change (as pi 0.73 writes it)."""
        sm = self._sm
        if with_parent:
            previous = sm.session_file
            sm.new_session(parent_session=previous if sm.is_persisted() else None)
        else:
            sm.new_session()
        model = self._agent.state.model
        if model is not None:
            sm.append_model_change(model.provider, model.id)
        sm.append_thinking_level_change(self._agent.state.thinking_level)

    def _after_session_change(self) -> None:
        self._agent.session_id = self._sm.session_id
        self._forget_run_state()
        self._reload_agent_messages()

    def _reload_agent_messages(self) -> None:
        self._agent.replace_messages(list(self._sm.build_session_context().messages))
