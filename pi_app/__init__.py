"""pi for Python: a terminal coding agent."""

__version__ = "0.1.0"
APP_NAME = "pi"
