"""The tool-set log (spec §3.9): replaying ``system`` messages into the current prompt and tools.

The leading system message is the system prompt; later ones are deltas (``content`` appends, ``sections``
replace by name, ``toolsRemoved`` then ``toolsAdded``). Providers call :func:`resolve_transcript` to get
what they send: a system prompt, the full current tool set, and the conversation (with mid-conversation
system messages kept in place only when the API supports them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.deferred import typed
from pi_app.ai.types import Context, SystemMessage, TextContent, Tool, ToolReference, dump

# APIs that accept system/developer messages in the middle of a conversation.
MID_CONVO_SYSTEM_APIS = frozenset(
    {
        "openai-completions",
        "openai-responses",
        "azure-openai-responses",
        "openai-codex-responses",
        "mistral-conversations",
    }
)


def supports_mid_convo_system(api: str, compat: dict[str, Any] | None = None) -> bool:
    if compat and "supportsMidConvoSystemMessages" in compat:
        return bool(compat["supportsMidConvoSystemMessages"])
    return api in MID_CONVO_SYSTEM_APIS


def to_tool_declaration(tool: Any) -> Tool:
    """Keep only what the model sees (name, description, parameters, constrainedSampling)."""
    data: dict[str, Any] = {
        "name": tool.name,
        "description": getattr(tool, "description", "") or "",
        "parameters": json.loads(json.dumps(getattr(tool, "parameters", None) or {"type": "object"})),
    }
    cs = getattr(tool, "constrainedSampling", None)
    if cs is not None:
        data["constrainedSampling"] = cs
    return Tool(**data)


def _key(tool: Tool) -> str:
    return json.dumps(dump(tool), sort_keys=True)


def declarations_equal(a: Tool, b: Tool) -> bool:
    return _key(a) == _key(b)


def get_current_tools(messages: list[Any]) -> dict[str, Tool]:
    """Replay every system message's removals then additions (same-name add = upsert)."""
    tools: dict[str, Tool] = {}
    for msg in messages:
        if getattr(msg, "role", None) != "system" or (msg := typed(msg)) is None:
            continue
        for ref in msg.toolsRemoved or ():
            tools.pop(ref.name, None)
        for tool in msg.toolsAdded or ():
            tools[tool.name] = tool
    return tools


def recorded_tool_names(messages: list[Any]) -> list[str] | None:
    """Names of the tool set a transcript's system messages leave active (pi 1.6 restores it on resume).

    None when no system message ever declared tools (sessions from before the tool-set log): the caller
    keeps its defaults then.
    """
    systems = [typed(m) for m in messages if getattr(m, "role", None) == "system"]
    if not any(m is not None and (m.toolsAdded or m.toolsRemoved) for m in systems):
        return None
    return list(get_current_tools(messages))


@dataclass
class ToolStateChanges:
    """The difference between two tool sets: declarations added, and names removed."""

    added: list[Tool] = field(default_factory=list)
    removed: list[ToolReference] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.added and not self.removed


def get_tool_state_changes(previous: dict[str, Tool] | list[Tool], current: list[Tool]) -> ToolStateChanges:
    """A redefinition (same name, different declaration) is a removal plus an addition."""
    prev = previous if isinstance(previous, dict) else {t.name: t for t in previous}
    cur = {t.name: t for t in current}
    changes = ToolStateChanges()
    for name, tool in prev.items():
        if name not in cur or not declarations_equal(tool, cur[name]):
            changes.removed.append(ToolReference(name=name))
    for name, tool in cur.items():
        if name not in prev or not declarations_equal(prev[name], tool):
            changes.added.append(tool)
    return changes


def system_text(msg: SystemMessage, sections: bool = True) -> str:
    """The instruction text one system message contributes (its content, then its sections)."""
    if isinstance(msg.content, str):
        base = msg.content
    else:
        base = "".join(b.text for b in msg.content if isinstance(b, TextContent))
    parts = [base] if base.strip() else []
    for value in (msg.sections or {}).values() if sections else ():
        if value:
            parts.append(value)
    return "\n\n".join(parts)


def get_current_system_message(messages: list[Any]) -> SystemMessage | None:
    """Fold all system messages into one: contents joined, sections patched by name, current tools."""
    systems = [m for m in messages if getattr(m, "role", None) == "system"]
    if not systems:
        return None
    contents: list[str] = []
    sections: dict[str, str | None] = {}
    for msg in systems:
        text = msg.content if isinstance(msg.content, str) else "".join(b.text for b in msg.content)
        if text.strip():
            contents.append(text)
        for name, value in (msg.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = list(get_current_tools(messages).values())
    return SystemMessage(
        content="\n\n".join(contents),
        sections=sections or None,
        toolsAdded=tools or None,
        timestamp=systems[0].timestamp,
    )


@dataclass
class ResolvedTranscript:
    """What a provider sends: the system prompt, the full current tool set, and the conversation."""

    system_prompt: str
    tools: list[Tool]
    messages: list[Any]  # user/assistant/toolResult, plus SystemMessage in place when supported


def resolve_transcript(context: Context, supports_mid_convo: bool) -> ResolvedTranscript:
    """What a provider sends for ``context``.

    Leading system messages (and the legacy ``systemPrompt``) form the system prompt; with a
    ``systemPrompt`` the messages' named ``sections`` are left out (it is the current prompt). Later system
    messages with text stay in place if the API supports that, otherwise their text is folded into the
    system prompt. Tools are always the full current set at top level: ``context.tools`` when given, else
    the replayed transcript.
    """
    prompt_parts: list[str] = []
    if context.systemPrompt:
        prompt_parts.append(context.systemPrompt)
    # Named sections are a whole prompt as it was built when recorded (pi 1.6 stores its prompt that way);
    # a live system prompt supersedes them, as pi 1.6 patches its stored sections to the current prompt.
    with_sections = not context.systemPrompt
    messages: list[Any] = []
    leading = True
    for msg in context.messages:
        if getattr(msg, "role", None) == "system":
            msg = typed(msg)
            if msg is None:
                continue
            text = system_text(msg, with_sections)
            if leading or not supports_mid_convo:
                if text:
                    prompt_parts.append(text)
            elif text:
                messages.append(msg)
            continue
        leading = False
        messages.append(msg)
    if context.tools is not None:
        tools = [to_tool_declaration(t) for t in context.tools]
    else:
        tools = list(get_current_tools(context.messages).values())
    return ResolvedTranscript(system_prompt="\n\n".join(prompt_parts), tools=tools, messages=messages)
