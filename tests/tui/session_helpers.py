"""A branched fixture session in the project's session folder, and small waiting helpers for Pilot tests."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_app.session.store import SessionManager
from pi_app.session.store.paths import default_session_dir
from tests.tui.conftest import make_session
from tests.waits import HANG_GUARD_S, POLL_S

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "branched.jsonl"
# branched.jsonl: a11ce001 model → a11ce002 thinking → b0b00001 user "Add a --verbose flag to the CLI"
#   → b0b00002 assistant "Which argument parser do you want?"
#       ├─ b0b00003 user "Use argparse" → b0b00004 assistant "Done with argparse."
#       └─ 5b5b5b01 branch_summary → b0b00005 user "Use click instead" → b0b00006 assistant
#          "Switched to click." → 1abe1001 label(b0b00001 = "start")   ← leaf
FIRST_USER = "Add a --verbose flag to the CLI"


def branched_copy(project: Path, name: str = "2025-11-10T14-02-11-009Z_branched.jsonl") -> Path:
    folder = default_session_dir(str(project))
    target = folder / name
    shutil.copyfile(FIXTURE, target)
    return target


async def branched_session(project: Path, **kwargs: Any) -> Any:
    path = branched_copy(project)
    return await make_session(project, session=SessionManager.open(path), **kwargs)


async def wait_for(
    pilot: Any, predicate: Callable[[], Any], what: str, timeout: float = HANG_GUARD_S
) -> None:
    """Let the app run until ``predicate`` holds; fail with ``what`` only after the hang guard."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:g} s for {what}")
        await pilot.pause(POLL_S)


async def run_command(app: Any, pilot: Any, text: str) -> None:
    app.submit(text)
    await pilot.pause()


def user_texts(app: Any) -> list[str]:
    from widgets.messages import UserMessageView

    return [u.text for u in app.query(UserMessageView)]


def statuses(app: Any) -> list[str]:
    from widgets.notices import Notice

    return [getattr(w, "text", "") for w in app.chat.items if isinstance(w, Notice)]
