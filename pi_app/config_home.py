"""Where pi's global configuration lives: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``.

A module of its own (no package ``__init__`` to run) so the app's first frame can find ``settings.json``
and ``keybindings.json`` without importing the session layer; ``pi_app.session.config.paths`` re-exports it.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR_NAME = ".pi"
ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"


def agent_dir() -> Path:
    """The global config directory; a leading ``~`` in the environment variable is expanded."""
    env = os.environ.get(ENV_AGENT_DIR)
    if env:
        if env == "~" or env.startswith("~/"):
            return Path(str(Path.home()) + env[1:])
        return Path(env)
    return Path.home() / CONFIG_DIR_NAME / "agent"
