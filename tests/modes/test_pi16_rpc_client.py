"""Our ``pi --mode rpc`` driven by pi 1.6's own ``RpcClient`` (its npm package), through a node shim.

Runs when pi 1.6 and a node >= 22 are installed (``PI16_DIR``, default ``~/.cache/pi16``, as
/work/shared/reference/pi-1.6-notes.md installs them); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.modes import scripts
from tests.modes.harness import PI_CMD, make_env

PI16 = Path(os.environ.get("PI16_DIR", os.path.expanduser("~/.cache/pi16")))
PACKAGE = PI16 / "node_modules" / "@earendil-works" / "pi-coding-agent"
HERE = Path(__file__).resolve().parent / "pi16_client"
API = "openai-completions"


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
    NODE is None or not (PACKAGE / "dist" / "modes" / "rpc" / "rpc-client.js").exists(),
    reason="needs pi 1.6's npm package and node >= 22 (see pi-1.6-notes.md)",
)


def _run_client(tmp_path: Path, loopback: Any) -> dict[str, dict[str, Any]]:
    env = make_env(tmp_path)
    env.write_models(loopback.url, API, reasoning=True)
    # small enough that two short exchanges leave something to compact
    (env.agent_dir / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 5}}))
    loopback.add(
        scripts.text(API, "Hello from loop."),
        scripts.text(API, "Second answer."),
        scripts.text(API, "SUMMARY-ONE"),
        scripts.text(API, "SUMMARY-TWO"),
    )
    assert NODE is not None
    extra = {
        "PATH": f"{Path(NODE).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # the client spawns "node"
        "OUR_PI_CMD": json.dumps(PI_CMD),
        "PI16_PACKAGE": str(PACKAGE),
        "PROJECT_DIR": str(env.project),
    }
    proc = subprocess.run(
        [NODE, str(HERE / "drive.mjs")],
        cwd=env.project,
        env=env.env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {s["step"]: s for s in steps}


def test_pi16_rpc_client_drives_our_rpc_mode(tmp_path, loopback):
    steps = _run_client(tmp_path, loopback)
    failed = {name: s["error"] for name, s in steps.items() if not s["ok"]}
    assert failed == {}

    assert steps["getState"]["value"]["model"]["id"] == "loop-model"
    types = steps["eventTypes"]["value"]
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    assert steps["promptThenWaitForIdle"]["value"] == "started"
    assert steps["getAvailableThinkingLevels"]["value"][0] == "off"

    entries = steps["getEntries"]["value"]
    ids = [e["id"] for e in entries["entries"]]
    assert entries["leafId"] == ids[-1]
    assert [e["id"] for e in steps["getEntriesSince"]["value"]["entries"]] == ids[1:]
    tree = steps["getTree"]["value"]
    assert tree["tree"] and set(tree["tree"][0]) >= {"entry", "children"}

    assert steps["clearQueue"]["value"] == {"steering": [], "followUp": []}
    assert steps["bash"]["value"]["output"].strip() == "from-bash"
    assert steps["getLastAssistantText"]["value"] == "Hello from loop."
    compacted = steps["compact"]["value"]
    assert compacted["summary"].startswith("SUMMARY") and isinstance(compacted["estimatedTokensAfter"], int)
