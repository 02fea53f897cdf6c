"""Options the session layer passes to the tool factory (settings are wired in later, not read here)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_app.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, GREP_MAX_LINE_LENGTH

if TYPE_CHECKING:
    from pi_app.tools.images import ResizeLimits


@dataclass(frozen=True)
class OutputLimits:
    """How much tool output is kept: at most ``max_lines`` lines and ``max_bytes`` bytes."""

    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES


@dataclass
class ToolOptions:
    """What the built-in tools are created with: output limits, shell settings, image handling, rg."""

    #: Default limits for every tool; ``tool_limits`` overrides them per tool name ("read", "bash", ...).
    limits: OutputLimits = field(default_factory=OutputLimits)
    tool_limits: dict[str, OutputLimits] = field(default_factory=dict)
    grep_max_line_length: int = GREP_MAX_LINE_LENGTH
    #: Seconds; used when the model gives no ``timeout``. None = no timeout.
    bash_timeout: float | None = None
    #: Prepended to every command with a newline (pi's ``shellCommandPrefix``).
    shell_command_prefix: str | None = None
    #: pi's ``shellPath`` setting; None = /bin/bash, then bash on PATH, then sh.
    shell_path: str | None = None
    #: pi's ``images.autoResize``: shrink images to 2000x2000 / 4.5 MiB before they are sent (tools/images.py).
    auto_resize_images: bool = True
    #: The current model's image resize profile (``inputLimits.images.resize``); None = pi's defaults.
    image_limits: Callable[[], ResizeLimits] | None = None
    #: Prepended to PATH for bash (pi puts ``~/.pi/agent/bin`` there). None = derive from the environment.
    bin_dir: str | None = None
    #: pi-python's ``bash.keepBackgroundProcesses``: let processes a command started in the background outlive
    #: the app (by default they are ended when it exits).
    keep_background_processes: bool = False
    #: Path to ``rg``; None = look next to the interpreter, then on PATH. "" = never use rg (pure Python).
    rg_path: str | None = None

    def limits_for(self, tool: str) -> OutputLimits:
        return self.tool_limits.get(tool, self.limits)

    def resolved_bin_dir(self) -> str:
        if self.bin_dir is not None:
            return self.bin_dir
        agent_dir = os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(
            os.path.expanduser("~"), ".pi", "agent"
        )
        return os.path.join(os.path.expanduser(agent_dir), "bin")
