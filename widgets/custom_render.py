"""Rendering that extensions supply: tool calls and results (``render_call`` / ``render_result``) and
custom messages (``register_message_renderer``), behind an error boundary.

The widgets ask a :class:`CustomRenderers` by tool name or custom type; the app fills it from the extension
runtime. A renderer returns a Rich renderable, a string (plain text), a list of lines or, for messages, a
Textual widget. One that raises draws a one-line error naming its extension instead; nothing else breaks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

ToolCallRenderer = Callable[[dict[str, Any]], Any]  # (args) -> renderable
ToolResultRenderer = Callable[[Any, bool], Any]  # (result, expanded) -> renderable
MessageRenderer = Callable[[Any, bool], Any]  # (message, expanded) -> renderable or widget


@dataclass(frozen=True)
class ToolRenderers:
    owner: str  # the extension's name, for the error line
    call: ToolCallRenderer | None = None
    result: ToolResultRenderer | None = None


@dataclass
class CustomRenderers:
    """Lookups into what extensions registered (functions, so a reload is seen at once)."""

    tool: Callable[[str], ToolRenderers | None] = field(default=lambda name: None)
    message: Callable[[str], tuple[str, MessageRenderer] | None] = field(default=lambda custom_type: None)


def failure(owner: str, exc: BaseException) -> Text:
    return Text(f"Extension renderer failed ({owner}): {type(exc).__name__}: {exc}", style="bold red")


def as_renderable(value: Any) -> RenderableType:
    if isinstance(value, str):
        return Text(value)
    if isinstance(value, list | tuple):
        return Group(*(Text(v) if isinstance(v, str) else v for v in value))
    return value


def render_tool(
    renderers: ToolRenderers, name: str, args: dict[str, Any], result: Any, expanded: bool
) -> RenderableType:
    """The whole panel body: the call line (custom or ``name args``), then the result (custom or its text)."""
    parts: list[RenderableType] = []
    try:
        call = renderers.call(args) if renderers.call is not None else None
        parts.append(as_renderable(call) if call is not None else Text(f"{name} {args}", style="bold"))
        if result is not None:
            shown = renderers.result(result, expanded) if renderers.result is not None else None
            parts.append(Text(""))
            parts.append(
                as_renderable(shown) if shown is not None else Text(getattr(result, "text", "") or "")
            )
    except Exception as exc:  # the boundary: this panel shows the error, the app goes on
        return failure(renderers.owner, exc)
    return Group(*parts)


def render_message(
    owner: str, renderer: MessageRenderer, message: Any, expanded: bool = False
) -> Widget | None:
    """A widget for a custom message (None: the renderer declined, use the default)."""
    from textual.widgets import Static

    try:
        value = renderer(message, expanded)
    except Exception as exc:
        return Static(failure(owner, exc), classes="-extension-error")
    if value is None:
        return None
    if isinstance(value, Widget):
        return value
    return Static(as_renderable(value))
