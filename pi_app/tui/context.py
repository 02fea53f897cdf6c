"""What the app's collaborators may use of it: slash commands, session commands, the event bridge, dialogs.

A ``Protocol`` that :class:`pi_app.tui.app.PiApp` satisfies. It lives below ``app.py`` so that none of those
modules imports the App class (no import cycle), and so that what they touch is written down in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual import Logger
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import AwaitMount
    from textual.worker import Worker, WorkType

    from pi_app.session.agent_session import AgentSession
    from pi_app.tui.options import TuiOptions
    from widgets.conversation import Conversation
    from widgets.editor import PromptEditor
    from widgets.queue_area import QueueArea
    from widgets.status_line import StatusLine


Result = TypeVar("Result")
ScreenResult = TypeVar("ScreenResult")


class AppContext(Protocol):
    chat: Conversation
    status: StatusLine
    editor: PromptEditor
    queue_area: QueueArea
    home: str
    options: TuiOptions
    branch_summarizing: bool  # a /tree branch summary is being generated (Esc aborts it)

    @property
    def session(self) -> AgentSession: ...

    @property
    def theme(self) -> str: ...

    @property
    def log(self) -> Logger: ...

    async def show_status(self, text: str, kind: str = "info") -> None: ...

    async def copy_text(self, text: str, success: str) -> bool: ...

    def refresh_footer(self) -> None: ...

    def refresh_completions(self) -> None: ...

    async def rebuild_chat(self, header: bool = False) -> None: ...

    def on_session_replaced(self) -> None: ...

    def on_model_changed(self) -> None: ...

    async def run_compaction(self, instructions: str | None) -> None: ...

    def reload_keybindings(self) -> list[str]: ...

    def hotkeys_text(self) -> str: ...

    def open_model_selector(self, query: str = "") -> None: ...

    def open_settings(self) -> None: ...

    def open_login(self, provider: str) -> None: ...

    def push_screen(
        self, screen: Screen[ScreenResult], callback: ScreenResultCallbackType[ScreenResult] | None = None
    ) -> AwaitMount: ...

    def run_worker(
        self,
        work: WorkType[Result],
        name: str | None = "",
        group: str = "default",
        *,
        exit_on_error: bool = True,
    ) -> Worker[Result]: ...

    def exit(
        self, result: None = None, return_code: int = 0, message: RenderableType | None = None
    ) -> None: ...
