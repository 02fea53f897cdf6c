"""Fixtures for the daily-use TUI tests (issue 17): the app over a real AgentSession on the faux provider."""

from __future__ import annotations

from tests.tui.conftest import project

__all__ = ["project"]
