"""A themed app that opens one screen on mount and records what it is dismissed with."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import Input

from pi_app.session.store import SessionInfo
from tests.widgets.harness import PiTestApp

_UNSET = object()
NOW = datetime(2025, 11, 20, 12, 0, tzinfo=UTC)


class HostApp(PiTestApp):
    def __init__(self, make_screen: Callable[[], Screen[Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.make_screen = make_screen
        self.result: Any = _UNSET

    def on_mount(self) -> None:
        super().on_mount()
        self.push_screen(self.make_screen(), self._done)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # A focused Input's cursor steady, not blinking: a snapshot taken late (a loaded machine) caught it
        # in its off phase and differed by one cell.
        if isinstance(event.widget, Input):
            event.widget.cursor_blink = False

    def _done(self, result: Any) -> None:
        self.result = result

    @property
    def dismissed(self) -> bool:
        return self.result is not _UNSET


def info(
    path: str,
    first: str,
    hours_ago: float,
    *,
    name: str | None = None,
    parent: str | None = None,
    cwd: str = "/home/tester/proj",
    count: int = 4,
) -> SessionInfo:
    from datetime import timedelta

    when = NOW - timedelta(hours=hours_ago)
    return SessionInfo(
        path=path,
        id=path.rsplit("/", 1)[-1],
        cwd=cwd,
        name=name,
        parent_session_path=parent,
        created=when,
        modified=when,
        message_count=count,
        first_message=first,
        all_messages_text=first,
    )


def sessions_here() -> list[SessionInfo]:
    d = "/sessions/--home-tester-proj--"
    return [
        info(f"{d}/a.jsonl", "Add a --verbose flag to the CLI", 2, name="verbose flag"),
        info(f"{d}/b.jsonl", "Use click instead", 1, parent=f"{d}/a.jsonl"),
        info(f"{d}/c.jsonl", "Write the README", 30),
        info(f"{d}/d.jsonl", "Try argparse subcommands", 0.5, parent=f"{d}/a.jsonl"),
    ]


def sessions_all() -> list[SessionInfo]:
    return sessions_here() + [
        info("/sessions/--home-tester-web--/w.jsonl", "Fix the login page", 200, cwd="/home/tester/web"),
    ]
