"""``pi --session FILE -p`` on a long session encodes its request on two cores (issue 15): a real print run,
in a fresh interpreter (no threads of other tests, so the fork is the one a user's run makes), sends the
same request as a run that encodes it in one pass, and reports an unusable stored message of the child's
part once, with its file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fresh_interpreter import run_fresh
from tests.modes import scripts
from tests.modes.harness import make_env
from tests.perf.session_gen import linear_session, make_bad_line

SCRIPT = """
import sys
from pi_app.ai.providers import openai_completions_request as completions_request
from pi_app.ai.providers import split_build
from pi_app.cli import main

split_build.SPLIT_AT = int(sys.argv[2])
real = completions_request.encode_split
results = []

def spy(*args):
    results.append(real(*args))
    return results[-1]

completions_request.encode_split = spy
code = main(["--session", sys.argv[1], "-p", "hi", "--model", "loop/loop-model"])
print("exit", code, "split", [r is not None for r in results])
"""

N = 1_500


def _run(env: Any, loopback: Any, path: Path, split_at: int) -> tuple[list[str], str, bytes]:
    loopback.add(scripts.text("openai-completions", "hello"))
    done = run_fresh(SCRIPT, str(path), str(split_at), cwd=env.project, env=env.env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines(), done.stderr, loopback.requests[-1].body


def test_a_print_run_on_a_long_session_splits_its_request_and_sends_the_same_one(
    tmp_path: Path, loopback: Any
) -> None:
    env = make_env(tmp_path)
    env.write_models(loopback.url, "openai-completions")
    path = tmp_path / "big.jsonl"
    linear_session(path, N, cwd=str(env.project))
    bad_id, bad_line = make_bad_line(path, 10)
    warning = f"{path.resolve()}:{bad_line}: skipped unusable message entry {bad_id}"

    original = path.read_bytes()  # each run appends its turn: both start from the same file

    out, err, one_pass = _run(env, loopback, path, 10**9)
    assert out == ["hello", "exit 0 split [False]"]
    assert err.count(warning) == 1

    path.write_bytes(original)
    out, err, split = _run(env, loopback, path, 500)
    assert out == ["hello", "exit 0 split [True]"]
    assert err.count(warning) == 1  # found by the child, reported by the run itself
    assert split == one_pass  # the request's bytes
