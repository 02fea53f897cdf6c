"""The tool contract every agent tool implements (built-ins, extensions, tests)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_app.agent.validation import validate_tool_arguments
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, TextContent, Tool

ToolContent = TextContent | ImageContent


@dataclass
class AgentToolResult:
    """What ``execute`` returns. Failures are raised, not returned: the loop turns an exception into an
    error result whose text is the exception message."""

    content: list[ToolContent] = field(default_factory=list)
    details: Any = None
    terminate: bool = False

    @classmethod
    def text(cls, text: str, details: Any = None) -> AgentToolResult:
        return cls(content=[TextContent(text=text)], details=details)


OnUpdate = Callable[[AgentToolResult], None]
ExecutionMode = Literal["sequential", "parallel"]


class ToolError(Exception):
    """A tool failure whose message is shown to the model verbatim."""


class AgentTool:
    """Base class: set the class attributes and implement :meth:`execute`."""

    name: str = ""
    label: str = ""
    description: str = ""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}
    execution_mode: ExecutionMode | None = None
    # what the system prompt says of the tool when active: a one-line entry and rule bullets
    prompt_snippet: str | None = None
    prompt_guidelines: tuple[str, ...] = ()

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        raise NotImplementedError

    def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Compatibility shim run before validation (e.g. accept an older argument shape)."""
        return raw

    def validate_arguments(self, raw: Any) -> Any:
        """The arguments ``execute`` receives, coerced as AJV would; raises ToolArgumentsError with the text
        the model sees. Tools with richer schemas (extension tools) validate their own way."""
        return validate_tool_arguments(self.name, self.parameters, raw)

    def to_tool(self) -> Tool:
        return Tool(name=self.name, description=self.description, parameters=self.parameters)


ExecuteFn = Callable[[str, dict[str, Any], AbortSignal | None, OnUpdate | None], Awaitable[AgentToolResult]]


class FunctionTool(AgentTool):
    """An AgentTool from a plain async function (tests, extensions)."""

    def __init__(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        fn: ExecuteFn,
        label: str | None = None,
        execution_mode: ExecutionMode | None = None,
    ) -> None:
        self.name = name
        self.label = label or name
        self.description = description
        self.parameters = parameters
        self.execution_mode = execution_mode
        self._fn = fn

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        return await self._fn(tool_call_id, params, signal, on_update)
