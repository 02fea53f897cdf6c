"""Moving around sessions: /tree navigation (with optional branch summary), /fork, /clone, /new, /resume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.ai.abort import AbortController
from pi_app.session.store import path_to_root

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession


@dataclass
class NavigateResult:
    editor_text: str | None = None
    cancelled: bool = False
    aborted: bool = False
    error: str | None = None
    summary_entry_id: str | None = None


def content_text(content: Any) -> str:
    """The text blocks of a message content (string or block list), joined."""
    if isinstance(content, str):
        return content
    out = []
    for block in content or ():
        if isinstance(block, dict):
            if block.get("type") == "text":
                out.append(str(block.get("text", "")))
        elif getattr(block, "type", None) == "text":
            out.append(block.text)
    return "".join(out)


def _user_message(entry: Any) -> dict[str, Any] | None:
    if entry is None or entry.get("type") != "message":
        return None
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


class NavigationMixin:
    _branch_summary_controller: AbortController | None

    def abort_branch_summary(self: AgentSession) -> None:
        if self._branch_summary_controller is not None:
            self._branch_summary_controller.abort()

    async def navigate_tree(
        self: AgentSession,
        target_id: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigateResult:
        """Move the leaf within this file (pi's /tree). A user-message target returns its text for the editor
        and moves the leaf to its parent; any other target becomes the leaf."""
        sm = self.session_manager
        old_leaf = sm.leaf_id
        if target_id == old_leaf:
            return NavigateResult()
        target = sm.get_raw_entry(target_id)
        if target is None:
            return NavigateResult(error=f"Entry {target_id} not found")
        if summarize and self.model is None:
            return NavigateResult(error="No model available for summarization")
        await self.stop_all()

        summary_text: str | None = None
        details: dict[str, Any] | None = None
        to_summarize = entries_to_summarize({e.id: e for e in sm.raw_entries()}, old_leaf, target_id)
        if summarize and to_summarize:
            model = self.model
            assert model is not None
            api_key = await self.model_registry.get_api_key(model)
            if not api_key:
                return NavigateResult(error=f"No API key for {model.provider}")
            from pi_app.session.compaction.summarize import generate_branch_summary

            controller = AbortController()
            self._branch_summary_controller = controller
            try:
                result = await generate_branch_summary(
                    to_summarize,
                    model,
                    api_key,
                    controller.signal,
                    custom_instructions,
                    replace_instructions,
                    self.settings.settings.branchSummary.reserveTokens,
                    self._stream_fn,
                )
            finally:
                self._branch_summary_controller = None
            if result.aborted:
                return NavigateResult(cancelled=True, aborted=True)
            if result.error:
                return NavigateResult(error=result.error)
            summary_text = result.summary
            details = {"readFiles": result.read_files, "modifiedFiles": result.modified_files}

        editor_text: str | None = None
        user = _user_message(target)
        if user is not None:
            new_leaf = target.get("parentId")
            editor_text = content_text(user.get("content"))
        elif target.get("type") == "custom_message":
            new_leaf = target.get("parentId")
            editor_text = content_text(target.get("content"))
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
        return NavigateResult(editor_text=editor_text, summary_entry_id=summary_id)

    def get_fork_messages(self: AgentSession) -> list[tuple[str, str]]:
        """(entry id, text) of every user message in the file, oldest first."""
        out: list[tuple[str, str]] = []
        for entry in self.session_manager.raw_entries():
            user = _user_message(entry)
            if user is not None:
                text = content_text(user.get("content"))
                if text:
                    out.append((entry.get("id"), text))
        return out

    async def fork(self: AgentSession, entry_id: str) -> tuple[str, bool]:
        """New session file holding the path up to the parent of user message ``entry_id``; returns its text
        (for the editor) and whether the fork was cancelled."""
        sm = self.session_manager
        entry = sm.get_raw_entry(entry_id)
        user = _user_message(entry)
        if entry is None or user is None:
            raise ValueError("Invalid entry ID for forking")
        text = content_text(user.get("content"))
        await self.stop_all()
        previous = sm.session_file
        parent = entry.get("parentId")
        if parent is None:
            sm.new_session(parent_session=previous if sm.is_persisted() else None)
            self._start_new_session_entries()
        else:
            sm.create_branched_session(parent)
        self._after_session_change()
        return text, False

    async def clone(self: AgentSession) -> str | None:
        """Duplicate the active path into a new session file and continue there; returns the new path."""
        sm = self.session_manager
        await self.stop_all()
        leaf = sm.leaf_id
        if leaf is None:
            previous = sm.session_file
            sm.new_session(parent_session=previous if sm.is_persisted() else None)
            self._start_new_session_entries()
        else:
            sm.create_branched_session(leaf)
        self._after_session_change()
        return sm.session_file

    async def new_session(self: AgentSession) -> str | None:
        sm = self.session_manager
        await self.stop_all()
        self.agent.reset()
        self.clear_queue()
        sm.new_session()
        self._start_new_session_entries()
        self._after_session_change()
        return sm.session_file

    async def switch_session(self: AgentSession, path: str) -> None:
        """Open another session file (resume): messages, model and thinking level come from it."""
        sm = self.session_manager
        await self.stop_all()
        self.clear_queue()
        sm.set_session_file(path)
        self._after_session_change()
        ctx = sm.build_session_context()
        if ctx.model is not None:
            previous = self.model
            match = self.model_registry.find(ctx.model.provider, ctx.model.model_id)
            if match is not None and await self.model_registry.get_api_key(match):
                self.agent.set_model(match)
                await self._emit_model_select(match, previous, "restore")
        has_level = any(e.get("type") == "thinking_level_change" for e in sm.get_branch())
        if has_level:
            # As pi: restored through the setter, so a level that differs from the current one is appended
            # to the resumed session and saved as the default; the same level writes nothing.
            self._apply_thinking_level(ctx.thinking_level, persist=True)
        else:
            # pi appends the (clamped) default but leaves the setting itself alone.
            self._apply_thinking_level(self.settings.default_thinking_level, persist=False)
            self.session_manager.append_thinking_level_change(self.thinking_level)

    # ------------------------------------------------------------------ helpers
    def _start_new_session_entries(self: AgentSession) -> None:
        """A new session starts with model_change then thinking_level_change (as pi 0.73 writes it)."""
        model = self.model
        if model is not None:
            self.session_manager.append_model_change(model.provider, model.id)
        self.session_manager.append_thinking_level_change(self.thinking_level)

    def _after_session_change(self: AgentSession) -> None:
        self.agent.session_id = self.session_manager.session_id
        self._pending_bash.clear()
        self._compaction_baseline = []
        self._reload_agent_messages()

    def _reload_agent_messages(self: AgentSession) -> None:
        self.agent.replace_messages(list(self.session_manager.build_session_context().messages))
