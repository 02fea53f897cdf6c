"""Our offered and clamped thinking levels against pi-ai 1.6's own answers for every model we ship.

Runs pi's package under node (``PI16_DIR``, default ``~/.cache/pi16``, as pi-1.6-notes.md installs it);
skipped when pi 1.6 or a node >= 22 is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_app.ai import models as M

PI16 = Path(os.environ.get("PI16_DIR", os.path.expanduser("~/.cache/pi16")))
PI_AI = PI16 / "node_modules" / "@earendil-works" / "pi-ai"
SCRIPT = Path(__file__).resolve().parent / "pi16" / "thinking_levels.mjs"
LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


def _node() -> str | None:
    node = shutil.which("node", path=str(PI16 / "bin")) or shutil.which("node")
    if node is None:
        return None
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout
        major = int(version.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return node if major >= 22 else None


NODE = _node()
pytestmark = pytest.mark.skipif(
    NODE is None or not (PI_AI / "dist" / "models.generated.js").exists(),
    reason="needs pi 1.6's npm package and node >= 22 (see pi-1.6-notes.md)",
)


def test_levels_and_clamping_match_pi16_for_every_shipped_model():
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(SCRIPT), str(PI_AI)], capture_output=True, text=True, timeout=120, check=True
    )
    theirs = json.loads(proc.stdout)
    ours = M.builtin_models_shared()
    assert len(ours) > 1000
    mismatches = []
    for model in ours:
        answer = theirs[f"{model.provider}/{model.id}"]
        if M.available_thinking_levels(model) != answer["levels"]:
            mismatches.append((model.provider, model.id, "levels"))
        for level in LEVELS:
            if M.clamp_thinking_level(model, level) != answer["clamp"][level]:
                mismatches.append((model.provider, model.id, level))
    assert mismatches == []
