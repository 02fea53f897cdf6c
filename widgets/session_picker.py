"""The /resume (and ``pi -r``) session picker: this folder's sessions or all of them, threaded by fork lineage.

UI only: the App passes the session lists (or loaders) and callables that rename or delete a session file;
the screen returns the chosen session path with ``dismiss(path)`` (None on Esc). Ages are relative to an
injected ``now`` so the screen draws the same thing every time in tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Static

from pi_app.session.store import SessionInfo
from widgets.tree.entry_text import shorten_path
from widgets.tree.session_list import SORT_LABELS, SORT_MODES, SessionRow, arrange, display_name, format_age

SessionSource = Sequence[SessionInfo] | Callable[[], Sequence[SessionInfo]]
KEYS_HINT = "enter open · tab scope · ^S sort · ^N named · ^R rename · ^D delete · ^P path · esc cancel"
DELETE_HINT = "Delete session? [Enter] confirm · [Esc/Ctrl+C] cancel"


class SessionList(ScrollView, can_focus=False):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--cursor",
        "session-list--dim",
        "session-list--accent",
        "session-list--named",
        "session-list--error",
    }
    DEFAULT_CSS = """
    SessionList { height: 1fr; background: $background; color: $pi-text; overflow-x: hidden; }
    SessionList > .session-list--cursor { background: $pi-selected-bg; text-style: bold; }
    SessionList > .session-list--dim { color: $pi-dim; }
    SessionList > .session-list--accent { color: $pi-accent; }
    SessionList > .session-list--named { color: $pi-warning; }
    SessionList > .session-list--error { color: $pi-error; }
    """

    def __init__(self, picker: SessionPickerScreen, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.picker = picker

    def refresh_rows(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.picker.rows))
        height = self.scrollable_content_region.height or self.size.height
        sel, top = self.picker.selected, int(self.scroll_offset.y)
        if height > 0:
            if sel < top:
                top = sel
            elif sel >= top + height:
                top = sel - height + 1
            self.scroll_to(y=max(0, top), animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_offset.y) + y
        base = self.rich_style
        picker = self.picker
        if index >= len(picker.rows):
            return Strip.blank(width, base)
        row = picker.rows[index]
        info = row.info
        selected = index == picker.selected

        def st(name: str) -> Style:
            return self.get_component_rich_style(name, partial=True)

        deleting = picker.confirming_delete == info.path
        right = f"{info.message_count} {format_age(info.modified, picker.now)}"
        if picker.scope == "all" and info.cwd:
            right = f"{shorten_path(info.cwd, picker.home)} {right}"
        if picker.show_path:
            right = f"{shorten_path(info.path, picker.home)} {right}"
        text = display_name(info)
        room = max(10, width - 2 - len(row.prefix) - len(right) - 2)
        if len(text) > room:
            text = text[: room - 1] + "…"
        if deleting:
            text_style = st("session-list--error")
        elif info.path == picker.current_path:
            text_style = st("session-list--accent")
        elif info.name and info.name.strip():
            text_style = st("session-list--named")
        else:
            text_style = Style()
        line_style = base + st("session-list--cursor") if selected else base
        left_len = 2 + len(row.prefix) + len(text)
        gap = max(1, width - left_len - len(right))
        segs = [
            Segment("› " if selected else "  ", line_style + st("session-list--accent")),
            Segment(row.prefix, line_style + st("session-list--dim")),
            Segment(text, line_style + text_style),
            Segment(" " * gap, line_style),
            Segment(right, line_style + st("session-list--error" if deleting else "session-list--dim")),
        ]
        return Strip(segs).adjust_cell_length(width, line_style)


class SessionPickerScreen(Screen[str | None]):
    """Pick a session to resume."""

    DEFAULT_CSS = """
    SessionPickerScreen { background: $background; }
    SessionPickerScreen #picker-header { height: 1; padding: 0 1; }
    SessionPickerScreen #picker-search { border: tall $pi-border-muted; margin: 0 1; }
    SessionPickerScreen #picker-search:focus { border: tall $pi-border-accent; }
    SessionPickerScreen #picker-status { height: 1; padding: 0 1; color: $pi-muted; }
    SessionPickerScreen #picker-status.alert { color: $pi-error; }
    SessionPickerScreen #picker-rename { display: none; margin: 0 1; border: tall $pi-border-accent; }
    SessionPickerScreen #picker-rename.editing { display: block; }
    SessionPickerScreen #picker-keys { height: 1; padding: 0 1; color: $pi-dim; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("pageup", "page(-1)", show=False, priority=True),
        Binding("pagedown", "page(1)", show=False, priority=True),
        Binding("enter", "choose", show=False, priority=True),
        Binding("escape,ctrl+c", "cancel", show=False, priority=True),
        Binding("tab", "toggle_scope", show=False, priority=True),
        Binding("ctrl+s", "toggle_sort", show=False, priority=True),
        Binding("ctrl+n", "toggle_named", show=False, priority=True),
        Binding("ctrl+p", "toggle_path", show=False, priority=True),
        Binding("ctrl+r", "rename", show=False, priority=True),
        Binding("ctrl+d", "delete", show=False, priority=True),
    ]

    def __init__(
        self,
        current: SessionSource,
        all_sessions: SessionSource | None = None,
        *,
        now: datetime | None = None,
        current_path: str | None = None,
        on_rename: Callable[[str, str], None] | None = None,
        on_delete: Callable[[str], None] | None = None,
        home: str | None = None,
        name: str | None = None,
        load_in_background: bool = False,
    ) -> None:
        super().__init__(name=name)
        self._sources: dict[str, SessionSource | None] = {"current": current, "all": all_sessions}
        self._loaded: dict[str, list[SessionInfo]] = {}
        # A callable source runs in a thread and the picker draws at once ("Loading sessions…"): a folder
        # of 2,000 sessions read cold takes ~0.5 s. Off, sources are read before the first frame.
        self.load_in_background = load_in_background
        self._loading: set[str] = set()
        self.now = now or datetime.now(UTC)
        self.current_path = current_path
        self.on_rename = on_rename
        self.on_delete = on_delete
        self.home = home
        self.scope = "current"
        self.sort = "threaded"
        self.named_only = False
        self.show_path = False
        self.rows: list[SessionRow] = []
        self.selected = 0
        self.confirming_delete: str | None = None
        self._renaming: str | None = None
        self._status: tuple[str, bool] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="picker-header")
        yield Input(placeholder='Type to search ("phrase", re:regex)', id="picker-search")
        yield SessionList(self, id="picker-list")
        yield Input(id="picker-rename")
        yield Static(id="picker-status")
        yield Static(Text(KEYS_HINT), id="picker-keys")

    def on_mount(self) -> None:
        self.query_one("#picker-search", Input).focus()
        self._rearrange()

    # ------------------------------------------------------------------ data
    def sessions(self) -> list[SessionInfo]:
        """The sessions of the current scope ([] while they are still loading in the background)."""
        scope = self.scope
        if scope not in self._loaded:
            source = self._sources.get(scope)
            if source is None:
                return []
            if callable(source) and self.load_in_background:
                if scope not in self._loading:
                    self._loading.add(scope)
                    self._load(scope, source)
                return []
            self._loaded[scope] = list(source() if callable(source) else source)
        return self._loaded[scope]

    @property
    def listing(self) -> bool:
        """The current scope's sessions are still being read in the background."""
        return self.scope in self._loading

    @work(thread=True, group="session-listing", exit_on_error=False)
    def _load(self, scope: str, source: Callable[[], Sequence[SessionInfo]]) -> None:
        try:
            found = list(source())
        except OSError as exc:  # an unreadable sessions folder: say so in the picker, not as a crash
            self.app.call_from_thread(
                self._loaded_in_background, scope, [], f"Could not list sessions: {exc}"
            )
            return
        self.app.call_from_thread(self._loaded_in_background, scope, found, None)

    def _loaded_in_background(self, scope: str, found: list[SessionInfo], error: str | None) -> None:
        self._loading.discard(scope)
        self._loaded[scope] = found
        if error:
            self._status = (error, True)
        if self.is_attached and scope == self.scope:
            self._rearrange()

    @property
    def query_text(self) -> str:
        return self.query_one("#picker-search", Input).value

    @property
    def selected_path(self) -> str | None:
        return self.rows[self.selected].info.path if self.rows else None

    def _rearrange(self, keep: str | None = None) -> None:
        keep = keep if keep is not None else self.selected_path
        self.rows = arrange(self.sessions(), self.query_text, self.sort, self.named_only)
        paths = [r.info.path for r in self.rows]
        self.selected = paths.index(keep) if keep in paths else 0
        self._sync()

    def _sync(self) -> None:
        title = "Resume Session (Current Folder)" if self.scope == "current" else "Resume Session (All)"
        scope = "◉ Current Folder | ○ All" if self.scope == "current" else "○ Current Folder | ◉ All"
        header = Text(title, style="bold")
        right = f"{scope}  Name: {'Named' if self.named_only else 'All'}  Sort: {SORT_LABELS[self.sort]}"
        width = max(self.size.width - 2, 0)
        header.append(" " * max(2, width - len(title) - len(right)))
        header.append(right)
        self.query_one("#picker-header", Static).update(header)
        status = self.query_one("#picker-status", Static)
        if self.confirming_delete:
            status.update(Text(DELETE_HINT))
            status.add_class("alert")
        elif self._status:
            status.update(Text(self._status[0]))
            status.set_class(self._status[1], "alert")
        elif self.listing:
            status.update(Text("Loading sessions…"))
            status.remove_class("alert")
        else:
            n = len(self.rows)
            status.update(Text(f"({self.selected + 1}/{n})" if n else "No sessions found"))
            status.remove_class("alert")
        self.query_one(SessionList).refresh_rows()

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._renaming is not None and action != "cancel":
            return False  # the rename input owns the keyboard
        if self.confirming_delete is not None and action not in ("choose", "cancel"):
            return False
        return True

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "picker-search":
            self._status = None
            self._rearrange()

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.selected = (self.selected + delta) % len(self.rows)
            self._sync()

    def action_page(self, pages: int) -> None:
        if self.rows:
            step = max(1, self.query_one(SessionList).size.height - 1)
            self.selected = max(0, min(len(self.rows) - 1, self.selected + pages * step))
            self._sync()

    def action_choose(self) -> None:
        if self.confirming_delete is not None:
            self._do_delete(self.confirming_delete)
            return
        if self.selected_path is not None:
            self.dismiss(self.selected_path)

    def action_cancel(self) -> None:
        if self.confirming_delete is not None:
            self.confirming_delete = None
            self._sync()
        elif self._renaming is not None:
            self._close_rename()
        else:
            self.dismiss(None)

    def action_toggle_scope(self) -> None:
        if self._sources.get("all") is None:
            return
        self.scope = "all" if self.scope == "current" else "current"
        self._rearrange()

    def action_toggle_sort(self) -> None:
        self.sort = SORT_MODES[(SORT_MODES.index(self.sort) + 1) % len(SORT_MODES)]
        self._rearrange()

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only
        self._rearrange()

    def action_toggle_path(self) -> None:
        self.show_path = not self.show_path
        self._sync()

    def action_delete(self) -> None:
        if self.on_delete is None or self.selected_path is None:
            return
        if self.selected_path == self.current_path:
            self._status = ("Cannot delete the session that is open", True)
            self._sync()
            return
        self.confirming_delete = self.selected_path
        self._sync()

    def _do_delete(self, path: str) -> None:
        self.confirming_delete = None
        assert self.on_delete is not None
        try:
            self.on_delete(path)
        except Exception as exc:  # the callable's error is the user's answer; keep the list intact
            self._status = (f"Could not delete session: {exc}", True)
            self._sync()
            return
        for lst in self._loaded.values():
            lst[:] = [s for s in lst if s.path != path]
        self._status = ("Session deleted", False)
        index = self.selected
        self._rearrange(keep="")
        self.selected = min(index, max(0, len(self.rows) - 1))
        self._sync()

    def action_rename(self) -> None:
        if self.on_rename is None or not self.rows:
            return
        info = self.rows[self.selected].info
        self._renaming = info.path
        field = self.query_one("#picker-rename", Input)
        field.value = info.name or ""
        field.add_class("editing")
        field.focus()

    def _close_rename(self) -> None:
        self._renaming = None
        self.query_one("#picker-rename", Input).remove_class("editing")
        self.query_one("#picker-search", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id != "picker-rename" or self._renaming is None:
            return
        path, new_name = self._renaming, event.value.strip()
        self._close_rename()
        if not new_name:
            return
        assert self.on_rename is not None
        try:
            self.on_rename(path, new_name)
        except Exception as exc:
            self._status = (f"Could not rename session: {exc}", True)
            self._sync()
            return
        for lst in self._loaded.values():
            lst[:] = [dataclasses.replace(s, name=new_name) if s.path == path else s for s in lst]
        self._status = None
        self._rearrange(keep=path)
