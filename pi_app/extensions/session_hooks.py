"""The session's decision points answered by the extensions' handlers (pi_app.session.hooks): commands,
``input`` (a chain), ``before_agent_start``, the ``session_before_*`` gates (the first cancel wins),
compaction and tree summaries supplied by an extension, the user's ``!cmd``, and the session lifecycle."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent
from pi_app.extensions import events as ev
from pi_app.extensions.definitions import CommandDefinition
from pi_app.extensions.registry import Dispatch, LoadedExtension, get_field
from pi_app.extensions.tool_adapter import to_content
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
from pi_app.session.messages import CustomMessage

if TYPE_CHECKING:
    from pi_app.extensions.context import ExtensionCommandContext
    from pi_app.session.user_bash import BashResult


class HooksHost(Protocol):
    """What the hooks need of the runtime (:class:`pi_app.extensions.runner.ExtensionRunner`)."""

    dispatch: Dispatch

    def commands(self) -> list[tuple[str, LoadedExtension, CommandDefinition]]: ...

    def command_context_for(self, name: str) -> ExtensionCommandContext: ...

    def take_next_turn(self) -> list[CustomMessage]: ...

    async def reload(self) -> None: ...


class ExtensionSessionHooks(SessionHooks):
    def __init__(self, runner: HooksHost) -> None:
        self._runner = runner
        self._dispatch = runner.dispatch

    @property
    def extensions(self) -> list[LoadedExtension]:
        """The loaded extensions (what ``session.hooks`` is asked for, e.g. by /mcp)."""
        return self._dispatch.extensions

    def may_handle(self, text: str) -> bool:
        if self._dispatch.has_handlers("input"):
            return True
        name = text[1:].partition(" ")[0] if text.startswith("/") else None
        return name is not None and any(invoked == name for invoked, _, _ in self._runner.commands())

    def command_infos(self) -> list[dict[str, Any]]:
        out = []
        for name, ext, command in self._runner.commands():
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

    async def handle_command(self, text: str) -> bool:
        if not text.startswith("/") or not any(ext.commands for ext in self._dispatch.extensions):
            return False
        name, _, args = text[1:].partition(" ")
        for invoked, ext, command in self._runner.commands():
            if invoked == name:
                try:
                    result = command.handler(args.strip(), self._runner.command_context_for(ext.name))
                    if inspect.isawaitable(result):
                        await result
                except Exception as exc:
                    self._dispatch.report(ext, f"command:{name}", f"{type(exc).__name__}: {exc}")
                return True
        return False

    async def input(
        self,
        text: str,
        images: list[ImageContent] | None,
        source: InputSource,
        streaming_behavior: str | None,
    ) -> InputDecision:
        for ext, handler in self._dispatch.handlers("input"):
            event = ev.InputEvent(text, images, source, streaming_behavior)
            ok, result = await self._dispatch.call(ext, handler, event, "input")
            if not ok or result is None:
                continue
            action = get_field(result, "action")
            if action == "handled":
                return InputDecision(text, images, handled=True)
            if action == "transform":
                new_text = get_field(result, "text")
                text = new_text if isinstance(new_text, str) else text
                new_images = get_field(result, "images")
                images = new_images if new_images is not None else images
        return InputDecision(text, images)

    async def before_agent_start(
        self, prompt: str | None, images: list[ImageContent] | None, system_prompt: str
    ) -> AgentStartPatch:
        patch = AgentStartPatch()
        for ext, handler in self._dispatch.handlers("before_agent_start"):
            event = ev.BeforeAgentStartEvent(prompt, images, patch.system_prompt or system_prompt)
            ok, result = await self._dispatch.call(ext, handler, event, "before_agent_start")
            if not ok or result is None:
                continue
            new_prompt = get_field(result, "system_prompt", "systemPrompt")
            if isinstance(new_prompt, str):
                patch.system_prompt = new_prompt
            message = get_field(result, "message")
            if message is not None:
                patch.messages.append(_custom_message(message))
        patch.messages += self._runner.take_next_turn()
        return patch

    async def _gate(self, event: ev.SessionBeforeSwitchEvent | ev.SessionBeforeForkEvent) -> bool:
        """True when a handler asked to cancel ``event`` (a failing handler does not cancel)."""
        for ext, handler in self._dispatch.handlers(event.type):
            ok, result = await self._dispatch.call(ext, handler, event, event.type)
            if ok and get_field(result, "cancel"):
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
        for ext, handler in self._dispatch.handlers(event.type):
            ok, result = await self._dispatch.call(ext, handler, event, event.type)
            if not ok or result is None:
                continue
            if get_field(result, "cancel"):
                return CompactDecision(cancel=True)
            supplied = get_field(result, "compaction")
            if supplied is not None and decision.compaction is None:
                decision.compaction = (
                    supplied
                    if isinstance(supplied, CompactionOverride)
                    else CompactionOverride(
                        summary=str(get_field(supplied, "summary")),
                        first_kept_entry_id=str(
                            get_field(supplied, "first_kept_entry_id", "firstKeptEntryId")
                            or preparation.first_kept_entry_id
                        ),
                        tokens_before=int(
                            get_field(supplied, "tokens_before", "tokensBefore") or preparation.tokens_before
                        ),
                        details=get_field(supplied, "details"),
                    )
                )
        return decision

    async def after_compact(
        self, compaction_entry: dict[str, Any] | None, from_extension: bool, reason: str, will_retry: bool
    ) -> None:
        await self._dispatch.emit(
            ev.SessionCompactEvent(compaction_entry, from_extension, reason, will_retry)
        )

    async def before_tree(self, preparation: TreePreparation, signal: AbortSignal | None) -> TreeDecision:
        decision = TreeDecision()
        event = ev.SessionBeforeTreeEvent(preparation, signal)
        for ext, handler in self._dispatch.handlers(event.type):
            ok, result = await self._dispatch.call(ext, handler, event, event.type)
            if not ok or result is None:
                continue
            if get_field(result, "cancel"):
                return TreeDecision(cancel=True)
            summary = get_field(result, "summary")
            if summary is not None and decision.summary is None:
                decision.summary = (
                    summary if isinstance(summary, str) else str(get_field(summary, "summary") or "")
                )
                decision.details = get_field(summary, "details") if not isinstance(summary, str) else None
            for name, camel in (
                ("custom_instructions", "customInstructions"),
                ("replace_instructions", "replaceInstructions"),
                ("label", None),
            ):
                value = get_field(result, name, camel)
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
        await self._dispatch.emit(
            ev.SessionTreeEvent(new_leaf_id, old_leaf_id, summary_entry, from_extension)
        )

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> BashResult | None:
        from pi_app.session.user_bash import BashResult

        for ext, handler in self._dispatch.handlers("user_bash"):
            ok, result = await self._dispatch.call(
                ext, handler, ev.UserBashEvent(command, exclude_from_context, cwd), "user_bash"
            )
            if not ok:  # as pi: a failing handler blocks the command rather than running it locally
                return BashResult(
                    output=f"Blocked: extension {ext.name} failed",
                    exit_code=1,
                    cancelled=True,
                    truncated=False,
                )
            supplied = get_field(result, "result")
            if isinstance(supplied, BashResult):
                return supplied
            if supplied is not None:
                return BashResult(
                    output=str(get_field(supplied, "output") or ""),
                    exit_code=get_field(supplied, "exit_code", "exitCode"),
                    cancelled=bool(get_field(supplied, "cancelled")),
                    truncated=bool(get_field(supplied, "truncated")),
                )
        return None

    async def session_ending(
        self, reason: Literal["new", "resume", "fork"], target_session_file: str | None
    ) -> None:
        # while the old session is still current: handlers can save what they keep about it
        await self._dispatch.emit(ev.SessionShutdownEvent(reason, target_session_file))

    async def session_replaced(
        self, reason: Literal["new", "resume", "fork"], previous_session_file: str | None
    ) -> None:
        await self._dispatch.emit(ev.SessionStartEvent(reason, previous_session_file))

    async def reload(self) -> None:
        await self._runner.reload()


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
    raw = get_field(spec, "content")
    return CustomMessage(
        customType=str(get_field(spec, "custom_type", "customType") or "extension"),
        content=raw if isinstance(raw, str) else to_content(raw),
        display=bool(get_field(spec, "display") if get_field(spec, "display") is not None else True),
        details=get_field(spec, "details"),
    )
