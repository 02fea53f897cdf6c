"""Running the installed ``pi`` as a subprocess against the loopback server, with an isolated home."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the console script next to this interpreter (the venv's ``pi``), else ``python -m pi_app``
_PI = shutil.which("pi", path=os.path.dirname(sys.executable))
PI_CMD: list[str] = [_PI] if _PI else [sys.executable, "-m", "pi_app"]

API_PATHS = {
    "openai-completions": "/v1",
    "openai-responses": "/v1",
    "anthropic-messages": "",
    "google-generative-ai": "/v1beta",
}


@dataclass
class PiEnv:
    """A temp HOME with ``.pi/agent`` and a project directory to run ``pi`` in."""

    home: Path
    project: Path

    @property
    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and k not in ("PI_FAUX_SCRIPT", "PI_CODING_AGENT_SESSION_DIR")
        }
        env.update(HOME=str(self.home), PI_CODING_AGENT_DIR=str(self.agent_dir), PI_OFFLINE="1")
        env.pop("ANTHROPIC_OAUTH_TOKEN", None)
        env.update(extra)
        return env

    def write_models(
        self, base_url: str, api: str = "openai-completions", *, reasoning: bool = False
    ) -> None:
        """A ``loop`` provider whose one model ``loop-model`` talks ``api`` to ``base_url``."""
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        config = {
            "providers": {
                "loop": {
                    "baseUrl": base_url + API_PATHS[api],
                    "api": api,
                    "apiKey": "test-key",
                    "models": [
                        {
                            "id": "loop-model",
                            "name": "Loop Model",
                            "reasoning": reasoning,
                            "contextWindow": 128000,
                        }
                    ],
                }
            }
        }
        (self.agent_dir / "models.json").write_text(json.dumps(config), encoding="utf-8")

    def run(
        self, *args: str, input: str | bytes | None = None, timeout: float = 60, **env: str
    ) -> subprocess.CompletedProcess[str]:
        data = input.encode() if isinstance(input, str) else input
        proc = subprocess.run(
            [*PI_CMD, *args],
            cwd=self.project,
            env=self.env(**env),
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )
        return subprocess.CompletedProcess(
            proc.args,
            proc.returncode,
            proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"),
        )

    def call(
        self, *args: str, input: str | bytes | None = None, timeout: float = 60, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """``pi`` as a function in this process: what :meth:`run` does, without a new interpreter.

        Same argv, environment (exactly :meth:`env`), working directory and stdin, stdout and stderr captured
        as bytes and decoded as ``run`` does. ~1 s cheaper per call than a process (no interpreter start, no
        provider SDK import), so it is for tests about what ``pi`` does with its flags and files; the tests
        about the process itself (exit on signals, pipes, the console script, startup imports) use ``run``.
        The faux provider starts empty and re-reads ``PI_FAUX_SCRIPT``, as in a fresh process. An exception
        escapes as itself (a subprocess would print a traceback and exit 1), so it fails the test loudly; so
        does a run longer than ``timeout`` (a SIGALRM interrupts it: call from the main thread only), even
        where ``pi`` turns the interruption into an error line. The bound is for hangs, not speed: a loaded
        machine importing a provider SDK in this process must not fail it.
        """
        from pi_app.ai.providers.faux import FAUX
        from pi_app.cli import main

        data = input.encode() if isinstance(input, str) else input
        stdout, stderr = io.BytesIO(), io.BytesIO()
        FAUX.reset()
        streams = (
            io.TextIOWrapper(io.BytesIO(data or b""), encoding="utf-8"),
            io.TextIOWrapper(stdout, encoding="utf-8", write_through=True),
            io.TextIOWrapper(stderr, encoding="utf-8", write_through=True),
        )
        with _process_state(self.project, self.env(**env)), _time_limit(timeout, args) as expired:
            sys.stdin, sys.stdout, sys.stderr = streams
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        if expired:
            raise CallTimeout(f"pi {' '.join(args)} did not finish within {timeout} s")
        for stream in streams:
            stream.flush()
            stream.detach()  # a wrapper closes its buffer when collected; the bytes are still to be read
        FAUX.reset()
        return subprocess.CompletedProcess(
            ["pi", *args],
            code,
            stdout.getvalue().decode("utf-8", "replace"),
            stderr.getvalue().decode("utf-8", "replace"),
        )

    def popen(self, *args: str, **env: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*PI_CMD, *args],
            cwd=self.project,
            env=self.env(**env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )


@contextlib.contextmanager
def _process_state(cwd: Path, environ: dict[str, str]) -> Iterator[None]:
    """What a process of its own would not share with the test: environment, cwd, std streams and the
    SIGTERM/SIGHUP handlers ``pi`` installs; all put back afterwards."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_signals = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for sig, handler in saved_signals.items():
            if handler is not None:  # None: installed outside Python, never replaced by pi either
                signal.signal(sig, handler)


class CallTimeout(Exception):
    """An in-process ``pi`` run took longer than its ``timeout`` (what ``subprocess.TimeoutExpired`` is to run)."""


@contextlib.contextmanager
def _time_limit(seconds: float, args: tuple[str, ...]) -> Iterator[list[bool]]:
    """Interrupt the block after ``seconds``; the yielded list is non-empty once that happened."""
    fired: list[bool] = []

    def expire(signum: int, frame: object) -> None:
        fired.append(True)
        raise CallTimeout(f"pi {' '.join(args)} did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def make_env(tmp_path: Path) -> PiEnv:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return PiEnv(home, project)


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line.strip()]
