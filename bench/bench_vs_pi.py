"""Side by side with pi 1.6 (issue 15): ours and pi in interleaved runs, each ratio with its target.

Cases: ``--version``; ``--no-session -p hi`` over openai-completions against the loopback server;
``--session FILE -p hi`` on a 50,000-entry session (every entry on the active path). pi 1.6 is found
through ``PI16_BIN`` (the ``bin/pi`` that ../shared/tools/install-pi16.sh writes; see
../shared/reference/pi-1.6-notes.md) and runs with an isolated HOME; without it only our absolute
figures are printed.

    PI16_BIN=~/.cache/pi16/bin/pi .venv/bin/python bench/bench_vs_pi.py [-n RUNS] [--entries 50000]

Runs alternate ours / pi so load on the machine hits both alike; medians are compared. Peak RSS of the
resume is printed against the issue's 4x-file-size target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.runner import MODEL_ARGS, Run, median, our_cmd, our_env, pi16_home, timed  # noqa: E402
from tests.loopback.openai_wire import chat_text_stream  # noqa: E402
from tests.loopback.server import LoopbackServer  # noqa: E402
from tests.perf.session_gen import linear_session  # noqa: E402

# target ratio (ours / pi 1.6) per case; None: no target in issue 15
TARGETS: dict[str, float | None] = {"--version": None, "--no-session -p hi": 0.5, "--session 50k -p hi": 0.5}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=50_000)
    opts = parser.parse_args()
    pi_bin = os.environ.get("PI16_BIN")
    if pi_bin and not os.access(pi_bin, os.X_OK):
        print(f"PI16_BIN={pi_bin} is not executable: printing our figures only")
        pi_bin = None

    with LoopbackServer() as server, tempfile.TemporaryDirectory(prefix="pi-bench-vs-") as tmp:
        work = Path(tmp)
        pienv, env = our_env(work, server.url)
        cwd = pienv.project
        pi_env = pi16_home(work, pi_bin, server.url) if pi_bin else None
        session = work / "linear.jsonl"
        linear_session(session, opts.entries, cwd=str(cwd))
        size = session.stat().st_size

        def resume(cmd: Callable[..., list[str]], e: dict[str, str]) -> Run:
            copy = work / "resume.jsonl"
            shutil.copy(session, copy)
            server.add(chat_text_stream("hello"))
            return timed(cmd("--session", str(copy), "-p", "hi", *MODEL_ARGS), e, cwd)

        def prompt(cmd: Callable[..., list[str]], e: dict[str, str]) -> Run:
            server.add(chat_text_stream("hello"))
            return timed(cmd("--no-session", "-p", "hi", *MODEL_ARGS), e, cwd)

        def version(cmd: Callable[..., list[str]], e: dict[str, str]) -> Run:
            return timed(cmd("--version"), e, cwd)

        def pi_cmd(*args: str) -> list[str]:
            return [pi_bin or "pi", *args]

        cases = {"--version": version, "--no-session -p hi": prompt, "--session 50k -p hi": resume}
        results: dict[str, dict[str, list[Run]]] = {}
        for name, case in cases.items():
            ours: list[Run] = []
            theirs: list[Run] = []
            for _ in range(opts.runs):
                r = case(our_cmd, env)
                if r.returncode != 0:
                    raise SystemExit(f"ours failed on {name}: {r.stderr[-2000:]}")
                ours.append(r)
                if pi_env is not None:
                    r = case(pi_cmd, pi_env)
                    if r.returncode != 0:
                        raise SystemExit(f"pi 1.6 failed on {name}: {r.stderr[-2000:]}")
                    theirs.append(r)
            results[name] = {"ours": ours, "pi": theirs}

        label = f"--session {opts.entries // 1000}k -p hi"
        print(
            f"runs per case: {opts.runs} (interleaved); session: {opts.entries} entries, {size / 1e6:.1f} MB"
        )
        for name, res in results.items():
            ours_t = median([r.seconds for r in res["ours"]])
            shown = label if name.startswith("--session") else name
            line = f"{shown:<22} ours {ours_t:6.2f} s"
            if res["pi"]:
                pi_t = median([r.seconds for r in res["pi"]])
                ratio = ours_t / pi_t
                target = TARGETS[name]
                verdict = "" if target is None else (" ok" if ratio <= target else " MISSED")
                goal = "no target" if target is None else f"target <= {target}x"
                line += f"   pi 1.6 {pi_t:6.2f} s   ratio {ratio:4.2f}x ({goal}){verdict}"
            print(line)
            if name.startswith("--session"):
                rss = median([r.max_rss for r in res["ours"]])
                rss_line = (
                    f"{'':<22} peak RSS ours {rss / 1e6:5.0f} MB = {rss / size:4.1f}x file (target <= 4x)"
                )
                if res["pi"]:
                    pi_rss = median([r.max_rss for r in res["pi"]])
                    rss_line += f"   pi 1.6 {pi_rss / 1e6:5.0f} MB = {pi_rss / size:4.1f}x file"
                print(rss_line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
