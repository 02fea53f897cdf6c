"""Shared pieces of the subprocess benchmarks: an isolated home for ours (and for pi 1.6), a loopback
openai-completions server, and one timed run with its peak RSS (``wait4``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.modes.harness import PI_CMD, PiEnv, make_env  # noqa: E402

MODEL_ARGS = ["--model", "loop/loop-model"]


@dataclass
class Run:
    seconds: float
    max_rss: int  # bytes
    cpu: float  # user + system seconds of the process (steadier than wall time on a busy machine)
    returncode: int
    stdout: str
    stderr: str


def timed(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> Run:
    """Wall time and peak RSS of one process (its own, not the sum of its children's)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(
            seconds,
            usage.ru_maxrss * 1024,
            usage.ru_utime + usage.ru_stime,
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def our_env(tmp: Path, server_url: str) -> tuple[PiEnv, dict[str, str]]:
    """Our pi with a ``loop`` provider on the loopback server; bytecode cached as a user's install has it."""
    pienv = make_env(tmp)
    pienv.write_models(server_url)
    env = pienv.env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *(str(ROOT / d) for d in ("pi_app", "widgets", "themes"))],
        check=False,
        capture_output=True,
    )
    return pienv, env


def our_cmd(*args: str) -> list[str]:
    return [*PI_CMD, *args]


def pi16_home(tmp: Path, pi_bin: str, server_url: str) -> dict[str, str]:
    """An isolated HOME for pi 1.6 (settings of its install copied, our models.json), as the notes say."""
    install = Path(pi_bin).resolve().parent.parent
    agent = tmp / "pi16home" / ".pi" / "agent"
    agent.mkdir(parents=True)
    src = install / "home" / ".pi" / "agent"
    for name in ("settings.json",):
        if (src / name).exists():
            shutil.copy(src / name, agent / name)
    if (src / "bin").is_dir():
        shutil.copytree(src / "bin", agent / "bin")
    models = {
        "providers": {
            "loop": {
                "baseUrl": server_url + "/v1",
                "api": "openai-completions",
                "apiKey": "test-key",
                "models": [
                    {"id": "loop-model", "name": "Loop Model", "reasoning": False, "contextWindow": 128000}
                ],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    env.update(HOME=str(tmp / "pi16home"), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0")
    return env


def median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
