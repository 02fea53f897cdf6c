"""Where pi keeps its configuration: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``, and ``<cwd>/.pi``."""

from __future__ import annotations

import os
from pathlib import Path

from pi_app.config_home import CONFIG_DIR_NAME as CONFIG_DIR_NAME
from pi_app.config_home import ENV_AGENT_DIR as ENV_AGENT_DIR
from pi_app.config_home import agent_dir as agent_dir


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
