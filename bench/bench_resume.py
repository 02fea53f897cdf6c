"""Resume a big session and answer one prompt: ``pi --session FILE -p hi`` (issues 14 and 15).

Linear sessions of 5,000 and 50,000 entries (every entry on the active path, all of it sent to the model)
and a ~100 MB session (large tool results, abandoned side branches), over openai-completions against the
loopback server. Prints the median wall time, the time per entry beyond a ``--no-session -p hi`` run,
peak RSS and RSS / file size; the per-entry figure uses CPU time (steady on a busy machine). Targets: time per entry at 50k within 1.5x of 5k; peak RSS <= 4x the file.

    .venv/bin/python bench/bench_resume.py [-n RUNS] [--big-mb 100] [--profile] [--against DIR]

``--profile`` writes a cProfile of one 50k run and prints where its time goes. ``--against DIR`` also
runs the source tree at DIR (``git archive main | tar -x -C DIR``, say) on the same sessions, run for run
interleaved with ours, and prints its figures under ours: on a shared machine only side-by-side numbers
compare. Numbers are printed, never asserted in tests (tests/perf checks the structure: calls and bytes
per entry).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.runner import MODEL_ARGS, median, our_cmd, our_env, timed  # noqa: E402
from tests.loopback.openai_wire import chat_text_stream  # noqa: E402
from tests.loopback.server import LoopbackServer  # noqa: E402
from tests.perf.session_gen import linear_session  # noqa: E402


def _resume_runs(
    session: Path, work: Path, envs: list[dict[str, str]], cwd, server, runs: int
) -> list[tuple[float, float, int]]:
    """(median wall s, median CPU s, median peak RSS) per env, the envs' runs interleaved."""
    times: list[list[float]] = [[] for _ in envs]
    cpu: list[list[float]] = [[] for _ in envs]
    rss: list[list[float]] = [[] for _ in envs]
    for _ in range(runs):
        for i, env in enumerate(envs):
            copy = work / "resume.jsonl"
            shutil.copy(session, copy)  # each run appends its answer: start from the same file every time
            server.add(chat_text_stream("hello"))
            r = timed(our_cmd("--session", str(copy), "-p", "hi", *MODEL_ARGS), env, cwd)
            if r.returncode != 0 or r.stdout != "hello\n":
                raise SystemExit(f"resume failed ({r.returncode}): {r.stderr[-2000:]}")
            times[i].append(r.seconds)
            cpu[i].append(r.cpu)
            rss[i].append(r.max_rss)
    return [(median(t), median(c), int(median(m))) for t, c, m in zip(times, cpu, rss, strict=True)]


def _against_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    """``env`` running the pi_app of another source tree (bytecode compiled first, as for ours)."""
    dirs = [str(tree / d) for d in ("pi_app", "widgets", "themes") if (tree / d).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=False, capture_output=True)
    return {**env, "PYTHONPATH": str(tree)}


def _profile(session: Path, work: Path, env, cwd, server) -> None:
    import pstats

    copy = work / "resume.jsonl"
    shutil.copy(session, copy)
    server.add(chat_text_stream("hello"))
    out = work / "resume.prof"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "pi_app"]
    r = timed([*cmd, "--session", str(copy), "-p", "hi", *MODEL_ARGS], env, cwd)
    if r.returncode != 0:
        raise SystemExit(r.stderr[-2000:])
    print(f"\nprofile of one {session.name} run ({r.seconds:.2f} s under cProfile), by own time:")
    pstats.Stats(str(out)).sort_stats("tottime").print_stats(20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--sizes", default="5000,50000")
    parser.add_argument("--big-mb", type=int, default=100, help="size of the big-file case (0: skip)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--against", type=Path, metavar="DIR", help="another source tree, run interleaved")
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]

    with LoopbackServer() as server, tempfile.TemporaryDirectory(prefix="pi-bench-resume-") as tmp:
        work = Path(tmp)
        pienv, env = our_env(work, server.url)
        cwd = pienv.project
        envs = [env] if opts.against is None else [env, _against_env(env, opts.against.resolve())]
        base: list[list[float]] = [[] for _ in envs]
        base_cpu: list[list[float]] = [[] for _ in envs]
        for _ in range(opts.runs):
            for i, e in enumerate(envs):
                server.add(chat_text_stream("hello"))
                r = timed(our_cmd("--no-session", "-p", "hi", *MODEL_ARGS), e, cwd)
                base[i].append(r.seconds)
                base_cpu[i].append(r.cpu)
        c0s = [median(c) for c in base_cpu]
        for i, (t0, c0) in enumerate(zip(map(median, base), c0s, strict=True)):
            tag = "" if i == 0 else f"  [{opts.against}]"
            print(f"--no-session -p hi (baseline)          median {t0:6.2f} s  cpu {c0:6.2f} s{tag}")
        c0 = c0s[0]

        per_entry: dict[int, float] = {}
        for n in sizes:
            session = work / f"linear-{n}.jsonl"
            linear_session(session, n)
            mb = session.stat().st_size / 1e6
            figures = _resume_runs(session, work, envs, cwd, server, opts.runs)
            for i, (t, cpu, rss) in enumerate(figures):
                # CPU time, not wall time: per entry the difference is small and the machine may be busy
                if i == 0:
                    per_entry[n] = (cpu - c0) / n
                print(
                    f"--session {n:>6}-entry ({mb:5.1f} MB) -p hi  median {t:6.2f} s  cpu {cpu:6.2f} s"
                    f"  {(cpu - c0s[i]) / n * 1e6:6.1f} us cpu/entry beyond baseline"
                    f"  peak RSS {rss / 1e6:6.0f} MB ({rss / 1e6 / mb:4.1f}x file)"
                    + ("" if i == 0 else f"  [{opts.against}]")
                )
        if len(sizes) >= 2:
            lo, hi = min(sizes), max(sizes)
            ratio = per_entry[hi] / per_entry[lo] if per_entry[lo] > 0 else float("inf")
            verdict = "ok" if ratio <= 1.5 else "MISSED"
            print(f"time per entry {hi} vs {lo}: {ratio:.2f}x (target <= 1.5x) {verdict}")

        if opts.big_mb:
            big = work / "big.jsonl"
            # ~2 KB of tool output per 3 entries and an abandoned branch every 10 path entries
            n = opts.big_mb * 1_000_000 // 2_150
            linear_session(big, n, pad_bytes=5_000, branch_every=10)
            mb = big.stat().st_size / 1e6
            figures = _resume_runs(big, work, envs, cwd, server, max(1, opts.runs // 2))
            for i, (t, cpu, rss) in enumerate(figures):
                ratio = rss / 1e6 / mb
                verdict = "ok" if ratio <= 4 else "MISSED"
                print(
                    f"--session big ({mb:5.0f} MB, {n} entries) -p hi  median {t:6.2f} s  cpu {cpu:6.2f} s"
                    f"  peak RSS {rss / 1e6:6.0f} MB = {ratio:.2f}x file (target <= 4x) {verdict}"
                    + ("" if i == 0 else f"  [{opts.against}]")
                )

        if opts.profile:
            _profile(work / f"linear-{max(sizes)}.jsonl", work, env, cwd, server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
