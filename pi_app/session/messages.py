"""The coding agent's own message roles and their conversion to LLM messages.

Besides the LLM roles (user/assistant/toolResult/system) a session holds ``bashExecution`` (the ``!`` command),
``custom`` (extension-injected), ``branchSummary`` and ``compactionSummary`` messages. Field names and the
wrapper texts match pi, so a session written by either side reads the same on the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, Union

from pydantic import BaseModel, Field

from pi_app.agent.history import stored_items
from pi_app.ai.deferred import Deferred
from pi_app.ai.types import (
    LLM_ROLES,
    AssistantMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
    WireModel,
    now_ms,
    parse_message,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"


class BashExecutionMessage(WireModel):
    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str = ""
    exitCode: int | None = None
    cancelled: bool = False
    truncated: bool = False
    fullOutputPath: str | None = None
    # True for `!!` commands: shown to the user, never sent to the model.
    excludeFromContext: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(WireModel):
    role: Literal["custom"] = "custom"
    customType: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(WireModel):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    fromId: str
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(WireModel):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokensBefore: int = 0
    timestamp: int = Field(default_factory=now_ms)


class OtherMessage(WireModel):
    """A message with a role this build does not know (e.g. an extension's own role): kept verbatim."""

    role: str


LlmMessage = Union[SystemMessage, UserMessage, AssistantMessage, ToolResultMessage]
AgentMessage = Union[
    LlmMessage,
    BashExecutionMessage,
    CustomMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    OtherMessage,
]

_CUSTOM_ROLES: dict[str, type[WireModel]] = {
    "bashExecution": BashExecutionMessage,
    "custom": CustomMessage,
    "branchSummary": BranchSummaryMessage,
    "compactionSummary": CompactionSummaryMessage,
}


def parse_agent_message(data: dict[str, Any]) -> AgentMessage:
    """Validate one message dict of any role; unknown fields (and unknown roles) are kept."""
    role = data.get("role")
    if role in LLM_ROLES:
        return parse_message(data)
    model = _CUSTOM_ROLES.get(role) if isinstance(role, str) else None
    if model is not None:
        return model.model_validate(data)  # type: ignore[return-value]
    if not isinstance(role, str):
        raise ValueError(f"message has no role: {str(data)[:120]}")
    return OtherMessage.model_validate(data)


def iso_to_ms(timestamp: str) -> int:
    """Epoch milliseconds of an ISO timestamp (``new Date(iso).getTime()``); 0 if unparseable."""
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
    except (ValueError, AttributeError):
        return 0


def bash_execution_to_text(msg: BashExecutionMessage) -> str:
    """The user-message text the model sees for a ``!`` command."""
    text = f"Ran `{msg.command}`\n"
    text += f"```\n{msg.output}\n```" if msg.output else "(no output)"
    if msg.cancelled:
        text += "\n\n(command cancelled)"
    elif msg.exitCode is not None and msg.exitCode != 0:
        text += f"\n\nCommand exited with code {msg.exitCode}"
    if msg.truncated and msg.fullOutputPath:
        text += f"\n\n[Output truncated. Full output: {msg.fullOutputPath}]"
    return text


def _as_blocks(content: str | list[Any]) -> list[TextContent | ImageContent]:
    if isinstance(content, str):
        return [TextContent(text=content)]
    return list(content)


def convert_to_llm(messages: Sequence[Any]) -> list[LlmMessage]:
    """Turn agent messages (models or dicts) into what a provider accepts; custom roles become user messages.

    A resumed history's stored LLM-role messages pass through untyped (the provider's transform types each
    as it encodes it, see ``pi_app.ai.deferred``); the others are typed here to be converted."""
    out: list[LlmMessage] = []
    for m in stored_items(messages):
        if isinstance(m, Deferred):
            if m.role in LLM_ROLES:
                out.append(m)  # type: ignore[arg-type]
                continue
            m = m.value()
            if m is None:
                continue  # unusable (reported when typed)
        msg = parse_agent_message(m) if isinstance(m, dict) else m
        if isinstance(msg, (UserMessage, AssistantMessage, ToolResultMessage, SystemMessage)):
            out.append(msg)
        elif isinstance(msg, BashExecutionMessage):
            if msg.excludeFromContext:
                continue
            out.append(
                UserMessage(content=[TextContent(text=bash_execution_to_text(msg))], timestamp=msg.timestamp)
            )
        elif isinstance(msg, CustomMessage):
            out.append(UserMessage(content=_as_blocks(msg.content), timestamp=msg.timestamp))
        elif isinstance(msg, BranchSummaryMessage):
            text = BRANCH_SUMMARY_PREFIX + msg.summary + BRANCH_SUMMARY_SUFFIX
            out.append(UserMessage(content=[TextContent(text=text)], timestamp=msg.timestamp))
        elif isinstance(msg, CompactionSummaryMessage):
            text = COMPACTION_SUMMARY_PREFIX + msg.summary + COMPACTION_SUMMARY_SUFFIX
            out.append(UserMessage(content=[TextContent(text=text)], timestamp=msg.timestamp))
        # Unknown roles (OtherMessage) never reach a provider.
    return out


def message_role(msg: BaseModel | dict[str, Any]) -> str | None:
    if isinstance(msg, dict):
        role = msg.get("role")
        return role if isinstance(role, str) else None
    return getattr(msg, "role", None)
