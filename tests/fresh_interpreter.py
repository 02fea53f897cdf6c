"""Run a script in a fresh interpreter: what it imports and builds is its own, not what the test worker
loaded before (the import-cost and lazy-loading checks of issue 15)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def run_fresh(
    script: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -c script args...``, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
