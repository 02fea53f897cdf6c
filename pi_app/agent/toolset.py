"""The tool-set log (spec §3.9): before each request, record tool-set changes as system-message deltas.

``AgentContext.tools`` is ephemeral; the transcript is what gets persisted and cached. So before every
model request the loop compares the tools replayed from the transcript with the live tools and writes the
difference into a ``system`` message of the pending batch. Invariant: replaying every system message of
the transcript yields exactly the live tool set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pi_app.agent.history import stored_items
from pi_app.ai.deferred import typed
from pi_app.ai.transcript import ToolStateChanges, get_tool_state_changes, to_tool_declaration
from pi_app.ai.types import SystemMessage, Tool, ToolReference, dump, now_ms


def _decl_key(tool: Tool) -> str:
    return json.dumps(dump(tool), sort_keys=True)


def _apply(state: dict[str, tuple[Tool, str]], msg: Any) -> bool:
    """Apply one system message's removals then additions. True when it touched the tool set."""
    msg = typed(msg)
    if msg is None:
        return False
    removed = msg.toolsRemoved
    added = msg.toolsAdded
    for ref in removed or ():
        state.pop(ref.name, None)
    for tool in added or ():
        state[tool.name] = (tool, _decl_key(tool))
    return bool(removed or added)


class ToolSetLedger:
    """Incrementally replays the transcript's tool log and caches live-tool declarations.

    The loop appends to ``context.messages``; only new messages are replayed. Any other change to the
    list (a swapped context, a replaced or removed system message) triggers a full replay.
    """

    __slots__ = ("_messages", "_seen", "_last", "_state", "_version", "_decls", "_clean_key")

    def __init__(self) -> None:
        self._messages: Sequence[Any] | None = None
        self._seen = 0
        self._last: Any = None
        self._state: dict[str, tuple[Tool, str]] = {}
        self._version = 0
        self._decls: dict[int, tuple[Any, Tool, str]] = {}
        self._clean_key: tuple[Any, ...] | None = None

    def replayed(self, messages: Sequence[Any]) -> dict[str, tuple[Tool, str]]:
        items = stored_items(messages)  # by role only: a resumed history's messages stay untyped here
        seen = self._seen
        stale = messages is not self._messages or len(items) < seen
        if not stale and seen:
            prev = items[seen - 1]
            if prev is not self._last and (
                getattr(prev, "role", None) == "system" or getattr(self._last, "role", None) == "system"
            ):
                stale = True
        if stale:
            self._messages = messages
            self._state = {}
            self._version += 1
            seen = 0
        for msg in items[seen:]:
            if getattr(msg, "role", None) == "system" and _apply(self._state, msg):
                self._version += 1
        self._seen = len(items)
        self._last = items[-1] if items else None
        return self._state

    def declarations(self, tools: list[Any]) -> list[tuple[Tool, str]]:
        out = []
        for tool in tools:
            hit = self._decls.get(id(tool))
            if hit is None or hit[0] is not tool:
                decl = to_tool_declaration(tool)
                hit = (tool, decl, _decl_key(decl))
                self._decls[id(tool)] = hit
            out.append((hit[1], hit[2]))
        return out

    def declare_tool_changes(
        self, messages: Sequence[Any], tools: list[Any] | None, pending: list[Any]
    ) -> list[Any]:
        """Return ``pending`` with the live tool set's differences written into a system message."""
        live_tools = tools or []
        replayed = self.replayed(messages)
        target = -1
        for i in range(len(pending) - 1, -1, -1):
            if getattr(pending[i], "role", None) == "system":
                target = i
                break
        if target < 0:
            clean_key = (self._version, tuple(id(t) for t in live_tools))
            if clean_key == self._clean_key:
                return pending  # nothing changed since the last check found the log in sync
        state = dict(replayed)
        for i, msg in enumerate(pending):
            if i != target and getattr(msg, "role", None) == "system":
                _apply(state, msg)
        changes = _diff(state, self.declarations(live_tools))
        if target < 0:
            if changes.empty:
                if not any(getattr(m, "role", None) == "system" for m in pending):
                    self._clean_key = clean_key
                return pending
            delta = SystemMessage(
                content="",
                toolsAdded=changes.added or None,
                toolsRemoved=changes.removed or None,
                timestamp=now_ms(),
            )
            out = list(pending)
            at = next((i for i, m in enumerate(out) if getattr(m, "role", None) != "system"), len(out))
            out.insert(at, delta)
            return out
        msg = pending[target]
        if changes.empty and not msg.toolsAdded and not msg.toolsRemoved:
            return pending
        # Caller-provided tool fields are intent only: the reconciled delta replaces them.
        out = list(pending)
        out[target] = msg.model_copy(
            update={"toolsAdded": changes.added or None, "toolsRemoved": changes.removed or None}
        )
        return out


def _diff(state: dict[str, tuple[Tool, str]], live: list[tuple[Tool, str]]) -> ToolStateChanges:
    """Like transcript.get_tool_state_changes, using precomputed declaration keys."""
    live_map = {decl.name: (decl, key) for decl, key in live}
    changes = ToolStateChanges()
    for name, (_tool, key) in state.items():
        other = live_map.get(name)
        if other is None or other[1] != key:
            changes.removed.append(ToolReference(name=name))
    for name, (decl, key) in live_map.items():
        prev = state.get(name)
        if prev is None or prev[1] != key:
            changes.added.append(decl)
    return changes


def declare_tool_changes(messages: Sequence[Any], tools: list[Any] | None, pending: list[Any]) -> list[Any]:
    """One-shot form (no caching)."""
    return ToolSetLedger().declare_tool_changes(messages, tools, pending)


__all__ = ["ToolSetLedger", "declare_tool_changes", "get_tool_state_changes"]
