"""Queued steering / follow-up messages shown under the chat while the agent works."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

DEQUEUE_HINT = "↳ alt+up to edit all queued messages"


def queue_lines(steering: list[str], follow_up: list[str]) -> list[str]:
    lines = [f"Steering: {t}" for t in steering] + [f"Follow-up: {t}" for t in follow_up]
    if lines:
        lines.append(DEQUEUE_HINT)
    return lines


class QueueArea(Static):
    DEFAULT_CSS = """
    QueueArea { color: $pi-dim; padding: 0 1; height: auto; display: none; }
    QueueArea.-visible { display: block; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def set_queues(self, steering: list[str], follow_up: list[str]) -> None:
        self.steering, self.follow_up = list(steering), list(follow_up)
        lines = queue_lines(self.steering, self.follow_up)
        # Queued text is one line each: newlines would break the list.
        self.update(Content("\n".join(line.replace("\n", " ") for line in lines)))
        self.set_class(bool(lines), "-visible")
