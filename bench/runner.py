"""Shared pieces of the subprocess benchmarks: an isolated home for ours (and for pi 1.6), a loopback
openai-completions server, and one timed run with its peak RSS (the process's own high-water mark)."""

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
    """Wall time and peak RSS of one process (its own, not the sum of its children's).

    The peak is the process's own high-water mark (``VmHWM``), read from ``/proc`` while it runs: ``wait4``'s
    ``ru_maxrss`` is never below the peak of the process that started it (Linux carries the parent's mark
    across the vfork and exec), so a bench process that has grown (a loopback server holding request
    bodies) would show as the child's peak. Where ``/proc`` is missing, ``ru_maxrss`` is what there is.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        deadline = started + timeout
        peak = 0
        while True:
            peak = max(peak, _own_peak_rss(proc.pid))
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
            peak or usage.ru_maxrss * 1024,
            usage.ru_utime + usage.ru_stime,
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def _own_peak_rss(pid: int) -> int:
    """The process's resident high-water mark in bytes (``VmHWM``), 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


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
