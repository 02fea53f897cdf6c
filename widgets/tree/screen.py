"""The /tree browser: the session tree on the left, the selected entry in full on the right, one key per action.

Pushed by the App (``push_screen(TreeBrowserScreen(model), callback)``); it returns a :class:`TreeAction` or
None (Esc). Keys follow pi's tree selector — ↑/↓ wrap, ←/→ page (→ on a folded row unfolds it), Ctrl/Alt+←/→
fold or jump between branch segments, Ctrl+D/T/U/L/A filters, Ctrl+O / Ctrl+Shift+O cycle, typing searches — plus the actions: Enter
continue here, ``f`` fork to a new file, ``c`` clone the path, ``y`` copy the text, Shift+L label. While the
search is empty, ``f``/``c``/``y`` are actions; ``/`` starts a search explicitly (then every key types).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..textual_caches import release_closed_widgets
from .model import TreeModel
from .preview import Paragraph, PreviewPane
from .tree_list import TreeList

ActionKind = Literal["continue", "fork", "clone", "copy", "label"]
PREVIEW_LIMIT = 6000  # characters per preview section; the whole text is one `y` away
# While keys repeat (held arrow: moves closer than REPEAT_S), the list moves at once and the preview follows
# PREVIEW_DEBOUNCE_S after the last move; a single move redraws both in the same frame.
PREVIEW_DEBOUNCE_S = 0.03
REPEAT_S = 0.05
WARM_SLICE_S = 0.006  # CPU seconds of search text built per idle slice after opening

FOOTER_KEYS = (
    "enter continue here · f fork to new file · c clone path · y copy · L label · "
    "^D/^T/^U/^L/^A filters (^O cycle) · ^←/^→ fold/branch · / search · esc cancel"
)


@dataclass(frozen=True)
class TreeAction:
    """What the user picked in the tree browser: the action (continue, fork, clone, copy, label) and the entry."""

    kind: ActionKind
    entry_id: str
    label: str | None = None
    text: str | None = None  # copy: the entry text; continue/fork on a user message: its text for the editor


class TreeBrowserScreen(Screen[TreeAction | None]):
    """Browse a session tree and pick an entry and what to do with it."""

    DEFAULT_CSS = """
    TreeBrowserScreen { background: $background; }
    TreeBrowserScreen #tree-title { height: 1; padding: 0 1; color: $pi-text; text-style: bold; }
    TreeBrowserScreen #tree-search { height: 1; padding: 0 1; color: $pi-muted; }
    TreeBrowserScreen #tree-body { height: 1fr; border-top: solid $pi-border; border-bottom: solid $pi-border; }
    TreeBrowserScreen TreeList { width: 3fr; }
    TreeBrowserScreen #tree-preview {
        width: 2fr;
        height: 1fr;
        border-left: solid $pi-border-muted;
        padding: 0 1;
    }
    TreeBrowserScreen #tree-status { height: 1; padding: 0 1; color: $pi-muted; }
    TreeBrowserScreen #tree-label-box { height: auto; padding: 0 1; display: none; }
    TreeBrowserScreen #tree-label-box.editing { display: block; }
    TreeBrowserScreen #tree-label-hint { color: $pi-muted; }
    TreeBrowserScreen #tree-label-input { border: tall $pi-border-accent; }
    TreeBrowserScreen #tree-keys { height: auto; padding: 0 1; color: $pi-dim; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("left,pageup", "page(-1)", show=False, priority=True),
        Binding("right,pagedown", "page(1)", show=False, priority=True),
        Binding("home", "ends(0)", show=False, priority=True),
        Binding("end", "ends(1)", show=False, priority=True),
        Binding("ctrl+left,alt+left", "fold_or_up", show=False, priority=True),
        Binding("ctrl+right,alt+right", "unfold_or_down", show=False, priority=True),
        Binding("enter", "act('continue')", show=False, priority=True),
        Binding("escape,ctrl+c", "cancel", show=False, priority=True),
        Binding("backspace", "backspace", show=False, priority=True),
        Binding("shift+l", "edit_label", show=False, priority=True),
        *[
            Binding(key, f"filter_key('{key}')", show=False, priority=True)
            for key in ("ctrl+d", "ctrl+t", "ctrl+u", "ctrl+l", "ctrl+a", "ctrl+o", "ctrl+shift+o")
        ],
    ]

    def __init__(
        self,
        model: TreeModel,
        *,
        title: str = "Session Tree",
        on_label: Callable[[str, str | None], None] | None = None,
        name: str | None = None,
    ) -> None:
        """``on_label(entry_id, label_or_None)`` persists a label and keeps the browser open (pi); without it,
        Shift+L finishes with ``TreeAction("label", ...)``."""
        super().__init__(name=name)
        self.model = model
        self.title_text = title
        self.on_label = on_label
        self._label_target: str | None = None
        self._search_mode = False
        self._preview_timer: Timer | None = None
        self._last_move = 0.0
        self._shown_status: tuple[str, str] | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text), id="tree-title")
        yield Static(id="tree-search")
        with Horizontal(id="tree-body"):
            yield TreeList(self.model, id="tree-list")
            yield PreviewPane(id="tree-preview")
        yield Static(id="tree-status")
        yield Vertical(
            id="tree-label-box"
        )  # its hint and field are made on first use: not in the first frame
        yield Static(Text(FOOTER_KEYS), id="tree-keys")

    def on_mount(self) -> None:
        self.query_one(TreeList).focus()
        self._sync(rows_changed=False)
        # The path outline is clipped to the pane's width, which is only known after the first layout.
        self.call_after_refresh(self._update_preview)
        # Search text for every entry is built lazily; build it in slices while the user reads, so neither
        # the first paint nor a key pressed meanwhile waits for all of it.
        self.set_timer(0.05, self._warm_step)

    def on_resize(self, _event: events.Resize) -> None:
        self._update_preview()

    def on_unmount(self) -> None:
        # A closed browser is cyclic garbage (Textual's DOM) until the collector gets to it, and the next big
        # model build freezes whatever is alive then (settle_heap): holding its model, it would keep a whole
        # session's tree for good. The model lives on in the per-session cache while it is current.
        self.model = TreeModel([], None)
        release_closed_widgets()  # Textual would keep this screen's drawn lines alive (see the module)

    def _warm_step(self) -> None:
        if not self.model.warm_search(budget_s=WARM_SLICE_S):
            self.set_timer(0.01, self._warm_step)

    @property
    def tree_list(self) -> TreeList:
        return self.query_one(TreeList)

    @property
    def preview_pane(self) -> PreviewPane:
        return self.query_one(PreviewPane)

    def _sync(self, rows_changed: bool = True, old_row: int | None = None) -> None:
        tl = self.tree_list
        if rows_changed:
            tl.refresh_rows()
        elif old_row is not None:
            tl.cursor_moved(old_row)
        else:
            tl.scroll_to_cursor()
            tl.refresh()
        query = self.model.query
        search = "Type to search:"
        if query or self._search_mode:
            search += f" {query}"
        status = (search, self.model.status_text())
        shown = self._shown_status
        if status != shown:
            self._shown_status = status
            # Both lines have a fixed size: no layout pass for their new text. Only a line that changed is
            # repainted (the frame's update spans every changed line: the search line is at the top).
            if shown is None or search != shown[0]:
                text = Text("Type to search:")
                if query or self._search_mode:
                    text.append(f" {query}", style="bold")
                self.query_one("#tree-search", Static).update(text, layout=False)
            if shown is None or status[1] != shown[1]:
                self.query_one("#tree-status", Static).update(Text(status[1]), layout=False)
        self._schedule_preview(moved=old_row is not None)

    def _schedule_preview(self, moved: bool) -> None:
        """Draw the preview now, unless moves are arriving fast (held key): then after they pause."""
        now = time.monotonic()
        quick = moved and now - self._last_move < REPEAT_S
        if moved:
            self._last_move = now
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        if quick:
            self._preview_timer = self.set_timer(PREVIEW_DEBOUNCE_S, self._update_preview)
        else:
            self._update_preview()

    def preview_paragraphs(self) -> list[Paragraph]:
        sid = self.model.selected_id
        if sid is None:
            return [("No entries found", False)]
        out: list[Paragraph] = []
        for heading, body in self.model.preview(sid):
            clipped = body if len(body) <= PREVIEW_LIMIT else body[:PREVIEW_LIMIT] + "\n… (y copies all)"
            out.append((f"{heading}\n", True))
            out.append((f"{clipped}\n\n", False))
        total, marks = self.model.path_outline(sid)
        room = max(20, self.preview_pane.size.width - 2)
        out.append((f"path ({total} entries from the root)\n", True))
        for mid, shown, fork in marks:
            # a fork point on the path; box drawing, which every terminal font has
            bullet = "├ " if fork else "· "
            out.append((bullet + (shown.tag + shown.body)[:room] + "\n", mid == sid))
        return out

    def _update_preview(self) -> None:
        self._preview_timer = None
        self.preview_pane.show(self.preview_paragraphs())

    # ------------------------------------------------------------------ keys
    @property
    def editing_label(self) -> bool:
        return self._label_target is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the label input is open, it owns the keyboard (its own enter/escape handlers below).
        if self.editing_label and action != "cancel":
            return False
        return True

    def action_move(self, delta: int) -> None:
        old = self.model.selected
        self.model.move(delta)
        self._sync(rows_changed=False, old_row=old)

    def action_page(self, pages: int) -> None:
        if pages > 0 and self.model.unfold_selected():  # → on a folded stub opens it in place
            self._sync()
            return
        self.model.page_size = max(1, self.tree_list.size.height - 1)
        self.model.page(pages)
        self._sync(rows_changed=False)

    def action_ends(self, end: int) -> None:
        self.model.last() if end else self.model.first()
        self._sync(rows_changed=False)

    def action_fold_or_up(self) -> None:
        self.model.fold_or_up()
        self._sync()

    def action_unfold_or_down(self) -> None:
        self.model.unfold_or_down()
        self._sync()

    def action_filter_key(self, key: str) -> None:
        self.model.filter_key(key)
        self._sync()

    def action_backspace(self) -> None:
        self.model.backspace()
        if not self.model.query:
            self._search_mode = False
        self._sync()

    def action_cancel(self) -> None:
        if self.editing_label:
            self._close_label()
        elif self.model.query or self._search_mode:
            self._search_mode = False
            self.model.set_query("")
            self._sync()
        else:
            self.dismiss(None)

    def action_act(self, kind: ActionKind) -> None:
        sid = self.model.selected_id
        if sid is None:
            return
        text: str | None = None
        if kind == "copy" or (kind in ("continue", "fork") and self.model.is_user_entry(sid)):
            text = self.model.entry_text(sid)
        self.dismiss(TreeAction(kind, sid, text=text))

    async def action_edit_label(self) -> None:
        sid = self.model.selected_id
        if sid is None:
            return
        self._label_target = sid
        box = self.query_one("#tree-label-box", Vertical)
        if not box.children:
            await box.mount(
                Static("Label (empty to remove):", id="tree-label-hint"), Input(id="tree-label-input")
            )
        box.add_class("editing")
        field = self.query_one("#tree-label-input", Input)
        field.value = self.model.labels.get(sid, "")
        field.focus()

    def _close_label(self) -> None:
        self._label_target = None
        self.query_one("#tree-label-box").remove_class("editing")
        self.tree_list.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        target = self._label_target
        if target is None:
            return
        label = event.value.strip() or None
        self._close_label()
        if self.on_label is None:
            self.dismiss(TreeAction("label", target, label=label))
            return
        self.on_label(target, label)
        self.model.set_label(target, label)
        self._sync()

    async def on_key(self, event: events.Key) -> None:
        if self.editing_label:
            return
        char = event.character
        if event.key == "shift+l" or char == "L":
            event.stop()
            await self.action_edit_label()
            return
        if not char or not char.isprintable() or len(char) != 1:
            return
        event.stop()
        searching = bool(self.model.query) or self._search_mode
        if not searching:
            if char in "fcy":
                self.action_act({"f": "fork", "c": "clone", "y": "copy"}[char])  # type: ignore[arg-type]
                return
            if char == "/":
                self._search_mode = True
                self._sync(rows_changed=False)
                return
            if char == " ":
                return
        self.model.type_text(char)
        self._sync()


BranchSummaryChoice = Literal["none", "summarize"] | tuple[Literal["custom"], str]


class BranchSummaryChoiceScreen(ModalScreen[BranchSummaryChoice | None]):
    """pi's "Summarize branch?" question after choosing where to continue; None when cancelled (Esc)."""

    DEFAULT_CSS = """
    BranchSummaryChoiceScreen { align: center middle; }
    BranchSummaryChoiceScreen #choice-box {
        width: 60;
        height: auto;
        border: round $pi-border-accent;
        background: $background;
        padding: 0 1;
    }
    BranchSummaryChoiceScreen #choice-title { text-style: bold; color: $pi-text; }
    BranchSummaryChoiceScreen OptionList { height: auto; border: none; background: $background; }
    BranchSummaryChoiceScreen #choice-custom { display: none; }
    BranchSummaryChoiceScreen #choice-custom.editing { display: block; }
    BranchSummaryChoiceScreen #choice-hint { color: $pi-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,ctrl+c", "cancel", show=False, priority=True)]

    OPTIONS: ClassVar[list[tuple[str, str]]] = [
        ("none", "No summary"),
        ("summarize", "Summarize"),
        ("custom", "Summarize with custom prompt"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Static("Summarize branch?", id="choice-title")
            yield OptionList(*[Option(label, id=key) for key, label in self.OPTIONS], id="choice-list")
            with Vertical(id="choice-custom"):
                yield Static("Focus for the summary (enter to confirm, esc to go back):", id="choice-hint")
                yield Input(id="choice-input")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = 0
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        key = event.option.id
        if key == "custom":
            self.query_one("#choice-custom").add_class("editing")
            self.query_one("#choice-input", Input).focus()
        elif key in ("none", "summarize"):
            self.dismiss(key)  # type: ignore[arg-type]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(("custom", event.value.strip()))

    def action_cancel(self) -> None:
        custom = self.query_one("#choice-custom")
        if custom.has_class("editing"):
            custom.remove_class("editing")
            self.query_one(OptionList).focus()
        else:
            self.dismiss(None)
