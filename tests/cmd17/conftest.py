"""The app tests' fixtures (a project directory with a few files)."""

from tests.tui.conftest import project

__all__ = ["project"]
