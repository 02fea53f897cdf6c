"""What extensions register: tools, commands and shortcuts (their handlers receive ``ctx``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pi_app.agent.tool import AgentToolResult, ExecutionMode
from pi_app.ai.abort import AbortSignal
from pi_app.extensions.context import ExtensionCommandContext, ExtensionContext

ToolUpdate = Callable[[AgentToolResult], None]
ToolExecute = Callable[
    [str, Any, AbortSignal | None, ToolUpdate | None, ExtensionContext],
    Awaitable[AgentToolResult | dict[str, Any] | str | None],
]
CommandHandler = Callable[[str, ExtensionCommandContext], Awaitable[None] | None]
ShortcutHandler = Callable[[ExtensionContext], Awaitable[None] | None]
Completer = Callable[[str], Sequence[str] | None]


@dataclass
class ToolDefinition:
    """A tool the model can call. ``parameters`` is a JSON Schema dict or a pydantic model class; with a
    model class, ``execute`` receives a validated instance of it."""

    name: str
    description: str
    execute: ToolExecute
    parameters: dict[str, Any] | type[BaseModel] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    label: str | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: Sequence[str] = ()
    execution_mode: ExecutionMode | None = None
    default_active: bool = True
    # rendering hooks for the UI (used by the interactive app; ignored elsewhere)
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None


@dataclass
class CommandDefinition:
    """A slash command an extension registered: ``/name args`` calls ``handler(args, ctx)``."""

    name: str
    handler: CommandHandler
    description: str = ""
    get_argument_completions: Completer | None = None


@dataclass
class ShortcutDefinition:
    """A key binding an extension registered: pressing ``key`` calls ``handler(ctx)``."""

    key: str
    handler: ShortcutHandler
    description: str = ""
    name: str | None = None  # keybindings.json remaps it as "ext.<extension>.<name>" (default: the key)
