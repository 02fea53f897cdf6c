"""Where pi keeps its configuration: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``, and ``<cwd>/.pi``."""

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


def settings_path() -> Path:
    return agent_dir() / "settings.json"


def auth_path() -> Path:
    return agent_dir() / "auth.json"


def models_path() -> Path:
    return agent_dir() / "models.json"


def project_config_dir(cwd: str | os.PathLike[str] | None = None) -> Path:
    return Path(cwd if cwd is not None else os.getcwd()) / CONFIG_DIR_NAME


def project_settings_path(cwd: str | os.PathLike[str] | None = None) -> Path:
    return project_config_dir(cwd) / "settings.json"
