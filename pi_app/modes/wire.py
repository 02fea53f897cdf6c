"""What json and rpc modes print: pi 0.73.1's events and messages, without this port's tool-set log.

Tool-set log and pi 0.73.1 (decided by running both against a loopback server):

- Our agent loop records tool-set changes as ``role: "system"`` messages (toolsAdded/toolsRemoved) in the
  transcript, and AgentSession persists them as ordinary ``message`` entries. pi 0.73.1 has no ``system``
  role, but it tolerates these entries: its ``convertToLlm`` drops unknown roles, its chat view and
  compaction skip them, so it opens and continues a session written by us with exactly the context it
  would have built itself (same request messages). The reverse also holds: we open pi's files and our
  ledger writes the tool-set delta before the next request. So the entries stay in the session file.
- pi 0.73.1 never prints such messages in ``--mode json`` or RPC, and clients written for it switch on the
  four roles it knows. So on the wire they are left out: no ``message_start/end`` for them, none in
  ``agent_end.messages``, ``get_messages``, ``messageCount`` or ``totalMessages``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_app.agent.events import MessageEndEvent, MessageStartEvent, MessageUpdateEvent, message_json
from pi_app.ai.types import Model, dump
from pi_app.session.session_events import WIRE_EVENT_TYPES, SessionEvent

# Roles that exist only inside this port (the tool-set log); never sent to json/rpc clients.
INTERNAL_ROLES = frozenset({"system"})


# What a client sees instead of a secret: custom headers from models.json are usually auth tokens
REDACTED = "[redacted]"
_SECRET_KEYS = frozenset({"apikey", "api_key", "authorization", "token", "secret", "password"})


def model_json(model: Model) -> dict[str, Any]:
    """A model as clients see it: header names kept, every header value (and any apiKey) redacted."""
    return redact_secrets(dump(model))


def redact_secrets(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    headers = out.get("headers")
    if isinstance(headers, dict):
        out["headers"] = {name: REDACTED for name in headers}
    for key in out:
        if key.lower() in _SECRET_KEYS and out[key]:
            out[key] = REDACTED
    return out


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def is_wire_message(message: Any) -> bool:
    """True for the messages pi 0.73.1 itself would show a client."""
    return _role(message) not in INTERNAL_ROLES


def wire_messages(messages: Iterable[Any]) -> list[Any]:
    return [m for m in messages if is_wire_message(m)]


def wire_messages_json(messages: Iterable[Any]) -> list[Any]:
    return [message_json(m) for m in messages if is_wire_message(m)]


def event_json(event: SessionEvent) -> dict[str, Any] | None:
    """The JSON line for a session event, or None when pi 0.73.1 would print nothing for it."""
    kind = event.type
    if kind not in WIRE_EVENT_TYPES:
        return None
    if isinstance(event, MessageStartEvent | MessageUpdateEvent | MessageEndEvent) and not is_wire_message(
        event.message
    ):
        return None
    data = event.to_json()
    if kind == "agent_end":
        data["messages"] = [m for m in data.get("messages", ()) if is_wire_message(m)]
    return data
