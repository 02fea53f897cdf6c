"""Rendering that extensions supply: tool calls and results (``render_call`` / ``render_result``), custom
messages and entries (``register_message_renderer`` / ``register_entry_renderer``) and the widgets they put
on screen (``ctx.ui.set_widget`` / ``set_header`` / ``set_footer``), all behind one error boundary.

The widgets ask a :class:`CustomRenderers` by tool name or custom type; the app fills it from the extension
runtime. A renderer returns a Rich renderable, a string (plain text), a list of lines or, for messages and
entries, a Textual widget. A renderer that raises draws a one-line error naming its extension instead; a
widget that raises while composing, handling an event (mounting) or rendering is replaced by that line
(:class:`ExtensionBoundary`). Nothing else breaks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

log = logging.getLogger(__name__)

ToolCallRenderer = Callable[[dict[str, Any]], Any]  # (args) -> renderable
ToolResultRenderer = Callable[[Any, bool], Any]  # (result, expanded) -> renderable
MessageRenderer = Callable[[Any, bool], Any]  # (message, expanded) -> renderable or widget
EntryRenderer = Callable[[Any, bool], Any]  # (entry, expanded) -> renderable or widget


@dataclass(frozen=True)
class ToolRenderers:
    """An extension's renderers for one tool's call and result; ``owner`` names it in error lines."""

    owner: str  # the extension's name, for the error line
    call: ToolCallRenderer | None = None
    result: ToolResultRenderer | None = None


@dataclass
class CustomRenderers:
    """Lookups into what extensions registered (functions, so a reload is seen at once)."""

    tool: Callable[[str], ToolRenderers | None] = field(default=lambda name: None)
    message: Callable[[str], tuple[str, MessageRenderer] | None] = field(default=lambda custom_type: None)
    entry: Callable[[str], tuple[str, EntryRenderer] | None] = field(default=lambda custom_type: None)
    # the session's custom entries that have a renderer, by the index of the message they follow (-1: before
    # the first); asked once per history build
    entries_by_message: Callable[[], dict[int, list[Any]]] = field(default=dict)
    # assistant Markdown before it is drawn (display only; the stored message never changes)
    markdown: Callable[[str, str, bool], str] | None = None  # (markdown, message type, streaming)


def failure(owner: str, exc: BaseException, what: str = "renderer") -> Text:
    return Text(f"Extension {what} failed ({owner}): {type(exc).__name__}: {exc}", style="bold red")


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
    """A widget for a custom message or entry (None: the renderer declined, use the default)."""
    try:
        value = renderer(message, expanded)
    except Exception as exc:
        return ExtensionErrorBox(owner, exc, "renderer")
    if value is None:
        return None
    if isinstance(value, Widget):
        return ExtensionBoundary(owner, value)
    return Static(as_renderable(value))


class ExtensionErrorBox(Static):
    """The one line that stands in for what an extension failed to draw."""

    DEFAULT_CSS = "ExtensionErrorBox { height: auto; width: 1fr; }"

    def __init__(self, owner: str, exc: BaseException, what: str = "widget", **kwargs: Any) -> None:
        super().__init__(failure(owner, exc, what), markup=False, **kwargs)
        self.owner = owner


class ExtensionBoundary(Vertical):
    """Holds one widget an extension supplied. If it, or anything it composes, raises while composing,
    handling an event (mount, resize, keys …) or rendering, the boundary shows an :class:`ExtensionErrorBox`
    naming the extension instead, and the app goes on. Widgets the extension mounts by hand later are not
    covered (only what Textual composes)."""

    DEFAULT_CSS = "ExtensionBoundary { height: auto; width: 1fr; }"

    def __init__(self, owner: str, widget: Widget, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.owner = owner
        self.content = widget
        self.error: BaseException | None = None
        _guard(widget, self)

    def compose(self) -> ComposeResult:
        yield self.content

    def fail(self, exc: BaseException) -> None:
        """Replace the content with the error line (once; later failures of the dying widget are dropped)."""
        if self.error is not None:
            return
        self.error = exc
        log.warning("extension widget failed (%s)", self.owner, exc_info=exc)
        self.call_later(self._show_error)

    async def _show_error(self) -> None:
        assert self.error is not None
        await self.remove_children()
        await self.mount(ExtensionErrorBox(self.owner, self.error))


def _guard(widget: Widget, boundary: ExtensionBoundary) -> None:
    """Route the widget's failures to ``boundary``: its public hooks (``compose``, ``render``,
    ``render_line``, ``on_event``, ``mount_composed_widgets``) are wrapped on the instance, and what it
    composes is guarded in turn."""
    slots = vars(widget)  # instance attributes shadow the class's methods, which is how Textual calls them
    compose, render, render_line = widget.compose, widget.render, widget.render_line
    on_event, mount_composed = widget.on_event, widget.mount_composed_widgets

    def safe_compose() -> Iterator[Widget]:
        try:
            yield from compose()  # a generator still: ``with Container():`` blocks nest as they should
        except Exception as exc:
            boundary.fail(exc)

    def safe_render() -> Any:
        if boundary.error is None:
            try:
                return render()
            except Exception as exc:
                boundary.fail(exc)
        return Text("")

    def safe_render_line(y: int) -> Strip:
        if boundary.error is None:
            try:
                return render_line(y)
            except Exception as exc:
                boundary.fail(exc)
        return Strip.blank(widget.size.width)

    async def safe_on_event(event: events.Event) -> None:
        try:
            await on_event(event)
        except Exception as exc:
            boundary.fail(exc)

    async def safe_mount_composed(widgets: list[Widget]) -> None:
        for child in widgets:
            _guard(child, boundary)
        await mount_composed(widgets)

    slots.update(
        compose=safe_compose,
        render=safe_render,
        render_line=safe_render_line,
        on_event=safe_on_event,
        mount_composed_widgets=safe_mount_composed,
    )
