"""How the interactive app is set up: what the command line asked for, display overrides for deterministic
tests, injected services."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_app.tui.clipboard import Clipboard

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.extensions.runner import ExtensionRunner
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.trust import TrustDecision

TAIL_MESSAGES = 100  # messages mounted when a session opens; earlier ones load on demand
DOUBLE_PRESS_S = 0.5  # Esc / Ctrl+C double-press window


@dataclass
class TuiOptions:
    """How the interactive app starts: what the command line asked for, test overrides, injected services."""

    # From the command line: messages sent once the app is up (the first with its @file images); ``resume``
    # opens the session picker first (``pi -r``; cancelling it quits); ``themes`` are the ``--theme`` values
    # (paths to load, or a theme name for this run); ``warnings`` are startup warnings shown in the chat.
    initial_message: str | None = None
    initial_images: list[ImageContent] | None = None
    initial_messages: list[str] = field(default_factory=list)
    resume: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    warnings: list[str] = field(default_factory=list)
    # The startup project-trust decision; undecided ("ask"), the trust screen comes first.
    trust: TrustDecision | None = None
    # Shown instead of the real cwd/home/version (snapshots must not depend on the machine).
    cwd_display: str | None = None
    home: str | None = None
    version: str | None = None
    git_branch: str | None = None
    # test_mode: no spinner, no cursor blink, no ticking clocks, no background imports.
    test_mode: bool = False
    clipboard: Clipboard | None = None
    clock: Callable[[], float] = time.monotonic
    theme: str | None = None  # overrides the settings theme
    tail_messages: int = TAIL_MESSAGES
    warm_imports: bool = True
    # The loaded extensions (None: none found); the app binds them with its own ctx.ui.
    extensions: ExtensionRunner | None = None


@dataclass
class SessionStart:
    """What a starting app's starter returns: the built session and the app's final options (the command
    line's messages, startup warnings, the trust decision, the loaded extensions)."""

    session: AgentSession
    options: TuiOptions


SessionStarter = Callable[[], Awaitable[SessionStart]]
