"""Input typed while the agent runs: steering and follow-up texts, mirrored into the agent's queues."""

from __future__ import annotations

from pi_app.agent import Agent
from pi_app.ai.types import ImageContent, TextContent, UserMessage
from pi_app.session.session_events import QueueUpdateEvent


class InputQueue:
    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def __len__(self) -> int:
        return len(self.steering) + len(self.follow_up)

    def add(self, text: str, images: list[ImageContent] | None, follow_up: bool) -> None:
        message = UserMessage(content=[TextContent(text=text), *(images or [])])
        if follow_up:
            self.follow_up.append(text)
            self._agent.follow_up(message)
        else:
            self.steering.append(text)
            self._agent.steer(message)

    def take(self, text: str) -> bool:
        """The agent delivered a message with ``text``: drop it from the queue that held it."""
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                return True
        return False

    def clear(self) -> tuple[list[str], list[str]]:
        steering, follow_up = self.steering, self.follow_up
        self.steering, self.follow_up = [], []
        self._agent.clear_all_queues()
        return steering, follow_up

    def update_event(self) -> QueueUpdateEvent:
        return QueueUpdateEvent(list(self.steering), list(self.follow_up))
