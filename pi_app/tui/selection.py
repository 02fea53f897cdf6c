"""Keyboard message selection as the app sees it: ctrl+up starts it on the conversation, Esc ends it and gives
the keys back to the editor. The cursor, its keys and what gets copied are the Conversation's
(:mod:`widgets.conversation`).
"""

from __future__ import annotations

from widgets.conversation import Conversation
from widgets.editor import PromptEditor


class MessageSelection:
    def __init__(self, conversation: Conversation, editor: PromptEditor) -> None:
        self.conversation = conversation
        self.editor = editor

    @property
    def active(self) -> bool:
        return self.conversation.selecting

    def start(self) -> None:
        self.conversation.start_selection()

    def selected_text(self) -> str | None:
        return self.conversation.selected_text()

    def stop(self) -> None:
        if self.conversation.selecting:
            self.conversation.stop_selection()
            self.editor.focus()
