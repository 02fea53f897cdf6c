"""An extension's ToolDefinition as an AgentTool the agent loop can run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolContent, ToolError
from pi_app.agent.validation import ToolArgumentsError
from pi_app.ai.abort import AbortSignal
from pi_app.ai.types import ImageContent, TextContent
from pi_app.extensions.definitions import ToolDefinition
from pi_app.extensions.schema import inline_refs, validate_extension_arguments

if TYPE_CHECKING:
    from pi_app.extensions.context import ExtensionContext


def to_content(items: Any) -> list[ToolContent]:
    """Text or image blocks from what an extension returned (objects, dicts or a bare string)."""
    if isinstance(items, str):
        return [TextContent(text=items)]
    out: list[ToolContent] = []
    for item in items or ():
        if isinstance(item, TextContent | ImageContent):
            out.append(item)
        elif isinstance(item, dict) and item.get("type") == "image":
            out.append(ImageContent.model_validate(item))
        elif isinstance(item, dict):
            out.append(TextContent(text=str(item.get("text", ""))))
        else:
            out.append(TextContent(text=str(item)))
    return out


def to_tool_result(value: AgentToolResult | dict[str, Any] | str | None) -> AgentToolResult:
    """pi's ``{content, details, isError}`` (or our AgentToolResult); ``isError`` raises so the loop marks
    the result as an error, as a thrown error would."""
    if value is None:
        return AgentToolResult()
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult.text(value)
    content = to_content(value.get("content"))
    if value.get("isError") or value.get("is_error"):
        raise ToolError("\n".join(c.text for c in content if isinstance(c, TextContent)) or "Tool failed")
    return AgentToolResult(
        content=content, details=value.get("details"), terminate=bool(value.get("terminate"))
    )


class ExtensionTool(AgentTool):
    def __init__(
        self,
        definition: ToolDefinition,
        extension_name: str,
        context: Callable[[], ExtensionContext],
        prepare_images: Callable[[list[ToolContent]], Awaitable[list[ToolContent]]] | None = None,
    ) -> None:
        self.definition = definition
        self.extension_name = extension_name
        self._context = context
        self._prepare_images = prepare_images  # fits returned images to the current model (pi does too)
        self.name = definition.name
        self.label = definition.label or definition.name
        self.description = definition.description
        self.execution_mode = definition.execution_mode
        self.prompt_snippet = definition.prompt_snippet
        self.prompt_guidelines = tuple(definition.prompt_guidelines)
        params = definition.parameters
        self._model: type[BaseModel] | None = None
        if isinstance(params, type) and issubclass(params, BaseModel):
            self._model = params
            self.parameters = params.model_json_schema()
        else:
            self.parameters = dict(params)
        self._schema = inline_refs(self.parameters)

    def validate_arguments(self, raw: Any) -> Any:
        args = validate_extension_arguments(self.name, self._schema, raw)
        if self._model is not None:  # the schema passed; the model's own validators may still object
            try:
                self._model.model_validate(args)
            except ValidationError as exc:
                lines = [f"  - {'/'.join(map(str, e['loc'])) or 'root'}: {e['msg']}" for e in exc.errors()]
                raise ToolArgumentsError(
                    f'Validation failed for tool "{self.name}":\n' + "\n".join(lines)
                ) from None
        return args

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        # a tool_call handler may have changed the dict in place: the model instance is built from it now
        args: Any = self._model.model_validate(params) if self._model is not None else params
        value = await self.definition.execute(tool_call_id, args, signal, on_update, self._context())
        result = to_tool_result(value)
        if self._prepare_images is not None and any(isinstance(c, ImageContent) for c in result.content):
            result.content = await self._prepare_images(list(result.content))
        return result
