"""Running the installed ``pi`` as a subprocess against the loopback server, with an isolated home."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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
        self, *args: str, input: str | bytes | None = None, timeout: float = 30, **env: str
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

    def popen(self, *args: str, **env: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*PI_CMD, *args],
            cwd=self.project,
            env=self.env(**env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )


def make_env(tmp_path: Path) -> PiEnv:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return PiEnv(home, project)


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line.strip()]
