"""Session store benchmarks: a 50,000-entry (~27 MB) branched session and listing 2,000 session files.

Run: ``python bench/bench_session_store.py``. Budgets: open + context rebuild < 0.5 s with peak memory
< 300 MB; warm listing of 2,000 files < 0.2 s. Exits non-zero when a budget is missed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENTRIES = 50_000
LIST_FILES = 2_000
BUDGET_CONTEXT_S = 0.5
BUDGET_MEMORY_MB = 300
BUDGET_WARM_LIST_S = 0.2


def _iso(ms: int) -> str:
    t = time.gmtime(ms // 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{ms % 1000:03d}Z"


def _usage() -> dict:
    cost = {"input": 0.0012, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0015}
    return {"input": 900, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 920, "cost": cost}


def generate_session(path: Path, n: int = ENTRIES, seed: int = 7) -> None:
    """A pi-format session with a branch every ~150 entries and a compaction every ~2,000."""
    rnd = random.Random(seed)
    words = "the quick brown fox jumps over a lazy dog while refactoring module code tests".split()
    ms = 1_762_766_102_114
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "019a6f2e-0000-7000-8000-00000000bench",
            "timestamp": _iso(ms),
            "cwd": "/bench",
        }
    ]
    ids: list[str] = []
    leaf: str | None = None
    since_compaction: list[str] = []

    def add(entry: dict) -> None:
        nonlocal leaf, ms
        ms += 1000
        eid = f"{len(ids):08x}"
        lines.append({"type": entry.pop("type"), "id": eid, "parentId": leaf, "timestamp": _iso(ms), **entry})
        ids.append(eid)
        leaf = eid
        since_compaction.append(eid)

    add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
    add({"type": "thinking_level_change", "thinkingLevel": "medium"})
    while len(ids) < n:
        r = rnd.random()
        text = " ".join(rnd.choices(words, k=rnd.randint(25, 80)))
        if r < 0.006 and len(ids) > 20:
            leaf = ids[rnd.randint(len(ids) - 150 if len(ids) > 150 else 2, len(ids) - 1)]
            add({"type": "branch_summary", "fromId": leaf, "summary": "Explored: " + text})
        elif r < 0.0075 and len(since_compaction) > 50:
            keep = since_compaction[-10]
            add(
                {
                    "type": "compaction",
                    "summary": "## Goal\n" + text * 3,
                    "firstKeptEntryId": keep,
                    "tokensBefore": 150_000,
                    "details": {"readFiles": ["a.py"], "modifiedFiles": []},
                }
            )
            since_compaction[:] = since_compaction[-10:]
        else:
            add(
                {
                    "type": "message",
                    "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms},
                }
            )
            call = f"toolu_{len(ids):06d}"
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "thinking", "thinking": text[:120], "thinkingSignature": "sig"},
                            {
                                "type": "toolCall",
                                "id": call,
                                "name": "read",
                                "arguments": {"path": "src/m.py"},
                            },
                        ],
                        "api": "anthropic-messages",
                        "provider": "anthropic",
                        "model": "claude-sonnet-4-5",
                        "usage": _usage(),
                        "stopReason": "toolUse",
                        "timestamp": ms,
                    },
                }
            )
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "toolResult",
                        "toolCallId": call,
                        "toolName": "read",
                        "content": [{"type": "text", "text": text}],
                        "isError": False,
                        "timestamp": ms,
                    },
                }
            )
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines[: n + 1]:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")


def bench_context(path: Path) -> dict:
    from pi_app.session.store import SessionManager

    t0 = time.perf_counter()
    mgr = SessionManager.open(path)
    t1 = time.perf_counter()
    ctx = mgr.build_session_context()
    t2 = time.perf_counter()
    typed = ctx.messages
    t3 = time.perf_counter()
    mid = mgr.raw_entries()[len(mgr.raw_entries()) // 2]["id"]
    t4 = time.perf_counter()
    other = mgr.build_session_context(mid)
    t5 = time.perf_counter()
    return {
        "entries": len(mgr.raw_entries()),
        "open_s": t1 - t0,
        "context_s": t2 - t1,
        "typed_messages_s": t3 - t2,
        "context_messages": len(typed),
        "rebuild_other_leaf_s": t5 - t4,
        "other_leaf_messages": len(other.raw_messages),
        "warnings": len(mgr.warnings),
    }


def _child_memory(path: Path) -> float:
    """Peak traced Python memory (MB) of a fresh process that opens the file and builds the typed context.

    (ru_maxrss would be useless here: Linux carries the parent's high-water mark across fork+exec.)
    """
    code = (
        "import sys, tracemalloc\n"
        "from pi_app.session.store import SessionManager\n"
        "tracemalloc.start()\n"
        "m = SessionManager.open(sys.argv[1]); c = m.build_session_context(); c.messages\n"
        "print(tracemalloc.get_traced_memory()[1] / 1e6)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def generate_listing(root: Path, count: int = LIST_FILES) -> None:
    from pi_app.session.store.paths import encode_cwd

    for i in range(count):
        d = root / "sessions" / encode_cwd(f"/proj/{i % 20}")
        d.mkdir(parents=True, exist_ok=True)
        ms = 1_762_766_102_114 + i * 60_000
        sid = f"019a6f2e-{i:04x}-7000-8000-000000000000"
        rows = [{"type": "session", "version": 3, "id": sid, "timestamp": _iso(ms), "cwd": f"/proj/{i % 20}"}]
        prev = None
        for j in range(12):
            role = "user" if j % 2 == 0 else "assistant"
            msg = {
                "role": role,
                "content": [{"type": "text", "text": f"message {j} of session {i} " * 20}],
                "timestamp": ms + j,
            }
            if role == "assistant":
                msg.update(api="x", provider="p", model="m", usage=_usage(), stopReason="stop")
            eid = f"{j:08x}"
            rows.append(
                {"type": "message", "id": eid, "parentId": prev, "timestamp": _iso(ms + j), "message": msg}
            )
            prev = eid
        (d / f"{_iso(ms).replace(':', '-').replace('.', '-')}_{sid}.jsonl").write_text(
            "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
        )


def bench_listing(agent: Path) -> dict:
    from pi_app.session.store import list_all_sessions, list_sessions
    from pi_app.session.store.listing import CACHE_FILE_NAME

    (agent / CACHE_FILE_NAME).unlink(missing_ok=True)
    t0 = time.perf_counter()
    cold = list_all_sessions()
    t1 = time.perf_counter()
    warm = list_all_sessions()
    t2 = time.perf_counter()
    one = list_sessions("/proj/3")
    t3 = time.perf_counter()
    return {
        "files": len(cold),
        "cold_s": t1 - t0,
        "warm_s": t2 - t1,
        "warm_one_cwd_s": t3 - t2,
        "one_cwd_files": len(one),
        "same": [s.path for s in cold] == [s.path for s in warm],
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "agent"
        os.environ["PI_CODING_AGENT_DIR"] = str(agent)
        big = Path(tmp) / "big.jsonl"
        generate_session(big)
        size_mb = big.stat().st_size / 1e6
        runs = [bench_context(big) for _ in range(3)]  # best of 3: the machine is shared
        mem = _child_memory(big)
        generate_listing(agent)
        lst = bench_listing(agent)
    best = min(runs, key=lambda r: r["open_s"] + r["context_s"])
    load_and_build = best["open_s"] + best["context_s"]
    print(f"session file: {best['entries']} entries, {size_mb:.1f} MB")
    for k, v in best.items():
        print(f"  {k}: {v:.3f}" if isinstance(v, float) else f"  {k}: {v}")
    print(f"  open + build context: {load_and_build:.3f} s (budget {BUDGET_CONTEXT_S} s)")
    print(f"  peak traced memory incl. typed messages: {mem:.0f} MB (budget {BUDGET_MEMORY_MB} MB)")
    print(
        f"listing {lst['files']} files: cold {lst['cold_s']:.3f} s, warm {lst['warm_s']:.3f} s "
        f"(budget {BUDGET_WARM_LIST_S} s), one cwd warm {lst['warm_one_cwd_s']:.3f} s ({lst['one_cwd_files']} files)"
    )
    ok = load_and_build < BUDGET_CONTEXT_S and mem < BUDGET_MEMORY_MB and lst["warm_s"] < BUDGET_WARM_LIST_S
    ok = ok and lst["same"] and lst["files"] == LIST_FILES
    print("OK" if ok else "BUDGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
