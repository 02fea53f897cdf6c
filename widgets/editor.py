"""The prompt editor: a TextArea with pi's submit/newline keys, history, paste markers and completion."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import TextArea

from widgets.completion import CompletionMenu, CompletionProvider
from widgets.history import History
from widgets.paste import PasteStore, is_large_paste

if TYPE_CHECKING:  # the app's first frame draws this editor before the ai layer (pydantic) is imported
    from pi_app.ai.types import ImageContent

THINKING_CLASSES = {
    f"-thinking-{level}" for level in ("off", "minimal", "low", "medium", "high", "xhigh", "max")
}


# TextArea actions pi lets keybindings.json remap -> pi's action id.
EDITING_IDS: dict[str, str] = {
    "cursor_up": "tui.editor.cursorUp",
    "cursor_down": "tui.editor.cursorDown",
    "cursor_left": "tui.editor.cursorLeft",
    "cursor_right": "tui.editor.cursorRight",
    "cursor_word_left": "tui.editor.cursorWordLeft",
    "cursor_word_right": "tui.editor.cursorWordRight",
    "cursor_line_start": "tui.editor.cursorLineStart",
    "cursor_line_end": "tui.editor.cursorLineEnd",
    "cursor_page_up": "tui.editor.pageUp",
    "cursor_page_down": "tui.editor.pageDown",
    "delete_left": "tui.editor.deleteCharBackward",
    "delete_right": "tui.editor.deleteCharForward",
    "delete_word_left": "tui.editor.deleteWordBackward",
    "delete_word_right": "tui.editor.deleteWordForward",
    "delete_to_start_of_line": "tui.editor.deleteToLineStart",
    "delete_to_end_of_line_or_delete_line": "tui.editor.deleteToLineEnd",
    "undo": "tui.editor.undo",
}


class PromptEditor(TextArea):
    DEFAULT_CSS = """
    PromptEditor, PromptEditor:focus {
        height: auto;
        min-height: 3;
        max-height: 12;
        background: $background;
        border: round $pi-thinking-off;
        padding: 0 1;
    }
    PromptEditor.-thinking-minimal, PromptEditor.-thinking-minimal:focus { border: round $pi-thinking-minimal; }
    PromptEditor.-thinking-low, PromptEditor.-thinking-low:focus { border: round $pi-thinking-low; }
    PromptEditor.-thinking-medium, PromptEditor.-thinking-medium:focus { border: round $pi-thinking-medium; }
    PromptEditor.-thinking-high, PromptEditor.-thinking-high:focus { border: round $pi-thinking-high; }
    PromptEditor.-thinking-xhigh, PromptEditor.-thinking-xhigh:focus { border: round $pi-thinking-xhigh; }
    PromptEditor.-thinking-max, PromptEditor.-thinking-max:focus { border: round $pi-thinking-xhigh; }
    PromptEditor.-bash, PromptEditor.-bash:focus { border: round $pi-bash-mode; }
    PromptEditor > .text-area--cursor-line { background: transparent; }
    """

    # Listed for /hotkeys; the text-dependent ones are dispatched from _on_key (see there), so they are
    # not priority bindings. The ids are pi's action ids: keybindings.json remaps them through the app's
    # keymap (pi_app.tui.keybindings). The editing keys are TextArea's, given ids here.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Submit", show=False, id="tui.input.submit"),
        Binding("alt+enter", "follow_up", "Queue follow-up", show=False, id="app.message.followUp"),
        Binding("shift+enter,ctrl+j", "newline", "Newline", show=False, id="tui.input.newLine"),
        Binding("tab", "complete", "Complete", show=False, id="tui.input.tab"),
        Binding("escape", "close_completion", "Close", show=False, priority=True, id="app.interrupt"),
        # TextArea's own editing keys, as they are, with pi's ids
        *(
            dataclasses.replace(b, id=EDITING_IDS[b.action])
            for b in TextArea.BINDINGS
            if isinstance(b, Binding) and b.action in EDITING_IDS
        ),
    ]
    _KEY_ACTIONS = {
        "enter": "submit",
        "alt+enter": "follow_up",
        "shift+enter": "newline",
        "ctrl+j": "newline",
        "tab": "complete",
    }

    class Submitted(Message):
        """Enter: the prompt text with paste markers expanded, and the images attached to it (Ctrl+V)."""

        def __init__(self, editor: PromptEditor, text: str, images: list[ImageContent] | None = None) -> None:
            super().__init__()
            self.editor = editor
            self.text = text
            self.images = images or []

    class FollowUp(Submitted):
        """Alt+Enter: queue as a follow-up."""

    thinking_level: reactive[str] = reactive("off")

    def __init__(
        self,
        history: History | None = None,
        completion: CompletionProvider | None = None,
        menu: CompletionMenu | None = None,
        blink: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.prompt_history = history or History()
        self.completion = completion
        self.menu = menu
        self.pastes = PasteStore()
        # Ctrl+V: where a clipboard image comes from (the app sets it) and the images attached so far, by
        # their marker in the text; a marker the user deletes drops its image.
        self.image_source: Callable[[], ImageContent | str | None] | None = None
        self.attachments: dict[str, ImageContent] = {}
        # Per instance so the user's keybindings.json can remap them (see set_action_keys).
        self.key_actions: dict[str, str] = dict(self._KEY_ACTIONS)
        if not blink:
            self.cursor_blink = False
        self.add_class("-thinking-off")

    # ------------------------------------------------------------------ appearance
    def watch_thinking_level(self, level: str) -> None:
        for cls in THINKING_CLASSES:
            self.remove_class(cls)
        self.add_class(f"-thinking-{level if f'-thinking-{level}' in THINKING_CLASSES else 'off'}")

    @property
    def bash_mode(self) -> bool:
        return self.text.startswith("!")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.set_class(self.bash_mode, "-bash")
        self._refresh_completion(force=False)

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if self.menu is not None and self.menu.is_open:
            self._refresh_completion(force=False)

    # ------------------------------------------------------------------ submit / newline
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_completion":
            return self.menu is not None and self.menu.is_open
        return True

    def _take_text(self) -> str | None:
        text = self.pastes.expand(self.text)
        if not text.strip():
            return None
        self.prompt_history.add(text)
        self.pastes.clear()
        self.clear()
        return text

    def _take_images(self, text: str) -> tuple[str, list[ImageContent]]:
        """(the text without image markers, the images whose markers were still there)."""
        images = [image for marker, image in self.attachments.items() if marker in text]
        for marker in self.attachments:
            text = text.replace(marker, "")
        self.attachments = {}
        return text.strip() if images else text, images

    def attach_image(self, image: ImageContent) -> str:
        """Add ``image`` to the prompt at the cursor as a ``[Image #N]`` marker; returns the marker."""
        marker = f"[Image #{len(self.attachments) + 1}]"
        self.attachments[marker] = image
        self.insert(marker)
        return marker

    def action_paste(self) -> None:
        """Ctrl+V: an image on the system clipboard is attached (as pi); anything else pastes as text."""
        found = self.image_source() if self.image_source is not None else None
        if found is not None and not isinstance(found, str):
            self.attach_image(found)
            return
        if isinstance(found, str):  # an image that could not be used: say why rather than paste nothing
            self.notify(found, severity="warning")
            return
        super().action_paste()

    def action_submit(self) -> None:
        if self.menu is not None and self.menu.is_open:
            self._catch_up_completion()
        if self.menu is not None and self.menu.is_open:
            self._accept_completion()
            # A chosen slash command runs at once (as in pi); a chosen file path just goes in the text.
            if not (self.text.startswith("/") and "\n" not in self.text):
                return
            self.load_text(self.text.rstrip())
        text = self._take_text()
        if text is not None:
            self.post_message(self.Submitted(self, *self._take_images(text)))

    def action_follow_up(self) -> None:
        text = self._take_text()
        if text is not None:
            self.post_message(self.FollowUp(self, *self._take_images(text)))

    def action_newline(self) -> None:
        self.insert("\n")

    def reset_action_keys(self) -> None:
        """Back to the default keys of submit, follow_up, newline and complete."""
        self.key_actions = dict(self._KEY_ACTIONS)

    def set_action_keys(self, action: str, keys: list[str]) -> None:
        """Handle ``action`` (submit, follow_up, newline, complete) on exactly ``keys`` (Textual key names)."""
        self.key_actions = {k: a for k, a in self.key_actions.items() if a != action}
        for key in keys:
            self.key_actions[key] = action

    # ------------------------------------------------------------------ history
    def action_cursor_up(self, select: bool = False) -> None:
        if self.menu is not None and self.menu.is_open:
            self.menu.move(-1)
            return
        first_row = self.cursor_location[0] == 0
        if not select and (not self.text or (self.prompt_history.browsing and first_row)):
            entry = self.prompt_history.previous(self.text)
            if entry is not None:
                self._load(entry)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self.menu is not None and self.menu.is_open:
            self.menu.move(1)
            return
        last_row = self.cursor_location[0] == self.document.line_count - 1
        if not select and self.prompt_history.browsing and last_row:
            entry = self.prompt_history.next()
            if entry is not None:
                self._load(entry)
            return
        super().action_cursor_down(select)

    def _load(self, text: str) -> None:
        with self.prevent(TextArea.Changed):
            self.load_text(text)
        self.set_class(self.bash_mode, "-bash")
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        # Priority bindings run as soon as the app receives a key, ahead of characters still queued for
        # this editor; when "text⏎" arrives in one terminal read, Enter would submit before the text was
        # inserted. Handling these keys here keeps them in order with the typing.
        action = self.key_actions.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            getattr(self, f"action_{action}")()
            return
        if event.key in ("tab", "shift+tab"):  # unbound by the user: do nothing rather than move the focus
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    # ------------------------------------------------------------------ paste
    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if is_large_paste(text):
            event.stop()
            event.prevent_default()
            self.insert(self.pastes.add(text))
        # Small pastes fall through to TextArea's own handler (Textual calls it after this one).

    # ------------------------------------------------------------------ completion
    def _line_before_cursor(self) -> tuple[str, bool]:
        row, col = self.cursor_location
        return self.document.get_line(row)[:col], row == 0

    def _refresh_completion(self, force: bool) -> None:
        if self.menu is None or self.completion is None:
            return
        before, first_line = self._line_before_cursor()
        result = self.completion.get_completions(before, first_line, force)
        if result is None or not result.items:
            self.menu.hide()
        else:
            self.menu.show(result)

    def _catch_up_completion(self) -> None:
        """Bring the menu up to the text before Enter acts on it: keys that arrived in the same terminal
        read as the Enter ("/tree⏎" typed fast or pasted) are in the text, but the menu updates on the
        Changed messages queued behind them, so it may still list what "/" offered. An up-to-date menu is
        left as it is (its highlighted row is the user's choice)."""
        if self.menu is None or self.completion is None:
            return
        before, first_line = self._line_before_cursor()
        fresh = self.completion.get_completions(before, first_line, False)
        shown = self.menu.completions
        if fresh is None or not fresh.items:
            self.menu.hide()
        elif (
            shown is None
            or fresh.prefix != shown.prefix
            or [i.value for i in fresh.items] != [i.value for i in shown.items]
        ):
            self.menu.show(fresh)

    def action_complete(self) -> None:
        if self.menu is not None and self.menu.is_open:
            self._accept_completion()
            return
        if self.completion is None:
            return
        before, first_line = self._line_before_cursor()
        result = self.completion.get_completions(before, first_line, True)
        if result is None or not result.items:
            return
        if len(result.items) == 1 or self.menu is None:
            self._apply(result.prefix, result.items[0].value)
        else:
            self.menu.show(result)

    def action_close_completion(self) -> None:
        if self.menu is not None:
            self.menu.hide()

    def _accept_completion(self) -> None:
        assert self.menu is not None and self.menu.completions is not None
        item = self.menu.selected()
        prefix = self.menu.completions.prefix
        self.menu.hide()
        if item is not None:
            self._apply(prefix, item.value)

    def _apply(self, prefix: str, value: str) -> None:
        row, col = self.cursor_location
        suffix = "" if value.endswith("/") else " "
        with self.prevent(TextArea.Changed):
            self.replace(value + suffix, (row, col - len(prefix)), (row, col))
        self.set_class(self.bash_mode, "-bash")
        if self.menu is not None:
            self.menu.hide()
