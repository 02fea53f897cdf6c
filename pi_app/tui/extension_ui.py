"""``ctx.ui`` in the interactive app: extension dialogs as modal screens, notices in the chat."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pi_app.extensions.types import NotifyLevel
from widgets.notices import ErrorNotice, Notice

if TYPE_CHECKING:
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
    ExtensionDialog OptionList { height: auto; max-height: 16; border: none; }
    ExtensionDialog Input { border: tall $accent; height: 3; }
    ExtensionDialog TextArea { height: 10; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Done", show=False)]

    def __init__(
        self,
        title: str,
        message: str = "",
        *,
        options: Sequence[str] | None = None,
        placeholder: str = "",
        prefill: str | None = None,
    ) -> None:
        super().__init__()
        self.title_text, self.message, self.options = title, message, options
        self.placeholder, self.prefill = placeholder, prefill

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title", markup=False)
            if self.message:
                yield Static(self.message, classes="message", markup=False)
            if self.options is not None:
                yield OptionList(*[Option(o, id=str(i)) for i, o in enumerate(self.options)])
            elif self.prefill is not None:
                yield TextArea(self.prefill)
            else:
                yield Input(placeholder=self.placeholder)

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


class TuiExtensionUI:
    def __init__(self, app: AppContext) -> None:
        self.app = app
        self._title = "pi"

    async def _ask(self, screen: ExtensionDialog, timeout: float | None) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def done(value: Any) -> None:
            if not answer.done():
                answer.set_result(value)

        self.app.push_screen(screen, done)
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            if screen.is_active:
                screen.dismiss(None)
            return None

    async def select(self, title: str, options: Sequence[str], *, timeout: float | None = None) -> str | None:
        result = await self._ask(ExtensionDialog(title, options=list(options)), timeout)
        return result if isinstance(result, str) else None

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return await self._ask(ExtensionDialog(title, message, options=["Yes", "No"]), timeout) == "Yes"

    async def input(self, title: str, placeholder: str = "", *, timeout: float | None = None) -> str | None:
        result = await self._ask(ExtensionDialog(title, placeholder=placeholder), timeout)
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
        if text:
            self.app.run_worker(self.app.show_status(text), group="extension-ui", exit_on_error=False)

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        return None  # widgets arrive with the extension-UI work (issue 21)

    def set_title(self, title: str) -> None:
        self._title = title  # the terminal title follows in the extension-UI work (issue 21)

    def set_editor_text(self, text: str) -> None:
        self.app.editor.load_text(text)

    def get_editor_text(self) -> str:
        return self.app.editor.text
