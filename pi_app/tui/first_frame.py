"""What the app draws before its session exists (phase 1 of the interactive start, see docs/architecture.md).

The first frame — header, an empty chat, the focused editor and a footer — must not wait for the session
(config, extensions, the session file, the provider layer: most of a second of imports and work). It shows
what is cheap to know: the directory, the git branch, the model the user asked for and the theme they chose,
read here from the command line and the global ``settings.json`` without the settings schema. The session's
own values replace them once it is ready; a project's settings (read only once the folder is trusted) may
change them then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.widget import Widget

from pi_app.config_home import agent_dir
from pi_app.tui.header import HeaderData, StartupHeader

THINKING_SUFFIXES = ("off", "minimal", "low", "medium", "high", "xhigh")


@dataclass(frozen=True)
class FirstFrame:
    """The cheap facts the first frame shows."""

    model: str | None = None  # as the user wrote it (``--model``, or settings ``defaultModel``)
    theme: str | None = None  # the ``theme`` setting (global settings only)
    quiet: bool = False  # ``quietStartup``: no startup header


def _global_settings(path: Path) -> dict[str, Any]:
    """The global settings file as plain JSON ({} when missing or broken: the session reports problems)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def model_label(model: str) -> str:
    """``--model provider/id:level`` as the footer shows a model: the id, without a thinking suffix."""
    base, _, level = model.rpartition(":")
    if base and level in THINKING_SUFFIXES:
        model = base
    return model.rsplit("/", 1)[-1] if "/" in model else model


def read_first_frame(model_arg: str | None, *, verbose: bool = False) -> FirstFrame:
    settings = _global_settings(agent_dir() / "settings.json")
    model = model_arg or settings.get("defaultModel")
    theme = settings.get("theme")
    quiet = bool(settings.get("quietStartup")) and not verbose
    return FirstFrame(
        model=model_label(model) if isinstance(model, str) and model else None,
        theme=theme if isinstance(theme, str) and theme else None,
        quiet=quiet,
    )


class StartingChat(Widget):
    """Where the chat will be: the startup header (without the session's resources) until it is ready."""

    DEFAULT_CSS = """
    StartingChat { height: 1fr; padding: 0 1 0 0; background: $background; }
    """

    def __init__(self, version: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.version = version

    def compose(self) -> ComposeResult:
        if self.version is not None:
            yield StartupHeader(HeaderData(version=self.version))
