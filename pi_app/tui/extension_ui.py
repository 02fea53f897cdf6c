"""``ctx.ui`` in the interactive app: extension dialogs as modal screens, notices in the chat."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pi_app.ai.abort import AbortSignal
from pi_app.extensions.types import NotifyLevel
from widgets.custom_render import CustomRenderers, ToolRenderers
from widgets.extension_slots import ExtensionStatus, ExtensionWidgetArea
from widgets.notices import ErrorNotice, Notice

if TYPE_CHECKING:
    from pi_app.extensions.runner import ExtensionRunner
    from pi_app.tui.context import AppContext


class ExtensionDialog(ModalScreen[Any]):
    """A title, an optional message, then a list to choose from, a one-line input or a text area."""

    DEFAULT_CSS = """
    ExtensionDialog { align: center middle; background: $background 40%; }
    ExtensionDialog > Vertical {
        width: 70%; max-width: 100; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ExtensionDialog .title { text-style: bold; color: $accent; }
    ExtensionDialog .message { color: $text-muted; margin-bottom: 1; }
    ExtensionDialog .countdown { color: $text-muted; height: auto; display: none; }
    ExtensionDialog.-timed .countdown { display: block; }
    ExtensionDialog OptionList { height: auto; max-height: 16; border: none; }
    ExtensionDialog Input { border: tall $accent; height: 3; }
    ExtensionDialog TextArea { height: 10; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Done", show=False)]
    AUTO_FOCUS = "OptionList, Input, TextArea"  # not the app's "#editor": the dialog's own field

    def __init__(
        self,
        title: str,
        message: str = "",
        *,
        options: Sequence[str] | None = None,
        placeholder: str = "",
        prefill: str | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        self.timeout = timeout
        self._left = 0
        self.title_text, self.message, self.options = title, message, options
        self.placeholder, self.prefill = placeholder, prefill

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title", markup=False)
            yield Static("", classes="countdown", markup=False)
            if self.message:
                yield Static(self.message, classes="message", markup=False)
            if self.options is not None:
                yield OptionList(*[Option(o, id=str(i)) for i, o in enumerate(self.options)])
            elif self.prefill is not None:
                yield TextArea(self.prefill)
            else:
                yield Input(placeholder=self.placeholder)

    def on_mount(self) -> None:
        if self.timeout is not None:  # show the seconds left before the dialog answers by itself
            self.add_class("-timed")
            self._left = int(self.timeout + 0.999)
            self._show_left()
            self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        self._left = max(self._left - 1, 0)
        self._show_left()

    def _show_left(self) -> None:
        self.query_one(".countdown", Static).update(f"(closes in {self._left}s)")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        assert self.options is not None
        self.dismiss(self.options[int(event.option.id or 0)])

    @on(Input.Submitted)
    def _entered(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_save(self) -> None:
        if self.prefill is not None:
            self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExtensionSlots(Protocol):
    """The app's places for extension UI (PiApp has them)."""

    extension_status: ExtensionStatus
    widgets_above: ExtensionWidgetArea
    widgets_below: ExtensionWidgetArea

    @property
    def footer(self) -> Widget: ...


class TuiExtensionUI:
    def __init__(self, app: AppContext, host: ExtensionSlots) -> None:
        self.app = app
        self.host = host
        self._title = "pi"
        self._footer: Widget | None = None  # an extension's replacement footer

    async def _ask(
        self, screen: Screen[Any], timeout: float | None, signal: AbortSignal | None = None
    ) -> Any:
        """Push ``screen`` and wait for its result; a timeout or ``signal`` closes it with None."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def done(value: Any) -> None:
            if not answer.done():
                answer.set_result(value)

        def close() -> None:
            done(None)
            if screen.is_active:
                screen.dismiss(None)

        self.app.push_screen(screen, done)
        remove = signal.add_listener(lambda: loop.call_soon(close)) if signal is not None else None
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            close()
            return None
        finally:
            if remove is not None:
                remove()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        result = await self._ask(
            ExtensionDialog(title, options=list(options), timeout=timeout), timeout, signal
        )
        return result if isinstance(result, str) else None

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        dialog = ExtensionDialog(title, message, options=["Yes", "No"], timeout=timeout)
        return await self._ask(dialog, timeout, signal) == "Yes"

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        result = await self._ask(
            ExtensionDialog(title, placeholder=placeholder, timeout=timeout), timeout, signal
        )
        return result if isinstance(result, str) else None

    async def editor(self, title: str, prefill: str = "") -> str | None:
        result = await self._ask(
            ExtensionDialog(title, "Ctrl+S to finish, Esc to cancel", prefill=prefill), None
        )
        return result if isinstance(result, str) else None

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        notice = (
            ErrorNotice(message)
            if level == "error"
            else Notice(message, kind="warning" if level == "warning" else "info")
        )
        self.app.run_worker(self.app.chat.add(notice), group="extension-ui", exit_on_error=False)

    def set_status(self, key: str, text: str | None) -> None:
        self.host.extension_status.set_entry(key, text)

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        """A Textual widget, lines of text or Rich renderables; ``None`` removes it."""
        area = (
            self.host.widgets_below
            if placement in ("below_editor", "belowEditor")
            else self.host.widgets_above
        )
        self.app.run_worker(area.set_entry(key, content), group="extension-ui", exit_on_error=False)

    def set_footer(self, widget: Widget | None) -> None:
        """Replace the footer with ``widget``; None restores pi's own."""
        self.app.run_worker(self._swap_footer(widget), group="extension-ui", exit_on_error=False)

    async def _swap_footer(self, widget: Widget | None) -> None:
        footer = self.host.footer
        if self._footer is not None:
            await self._footer.remove()
            self._footer = None
        footer.display = widget is None
        if widget is not None:
            self._footer = widget
            parent = footer.parent
            assert isinstance(parent, Widget)  # the screen
            await parent.mount(widget, after=footer)

    async def custom(self, screen: Screen[Any], *, timeout: float | None = None) -> Any:
        """Push an extension's own Textual screen; its ``dismiss(value)`` is the result."""
        return await self._ask(screen, timeout)

    def set_title(self, title: str) -> None:
        self._title = title  # the terminal title follows in the extension-UI work (issue 21)

    def set_editor_text(self, text: str) -> None:
        self.app.editor.load_text(text)

    def get_editor_text(self) -> str:
        return self.app.editor.text


def extension_renderers(runner: ExtensionRunner) -> CustomRenderers:
    """The conversation's lookups into what the loaded extensions render themselves."""

    def tool(name: str) -> ToolRenderers | None:
        found = runner.tool_renderers(name)
        if found is None:
            return None
        owner, definition = found
        return ToolRenderers(owner, definition.render_call, definition.render_result)

    return CustomRenderers(tool=tool, message=runner.message_renderer)
