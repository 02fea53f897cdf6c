"""Write a branchy session file for trying /tree by hand (or for bench_tree.py).

    python bench/gen_branchy_session.py OUT.jsonl [--entries 10000] [--every 50] [--back N]
    python bench/gen_branchy_session.py OUT.jsonl --comb 2000

A user who goes back and branches: every ``--every`` entries the last ``--back`` (default half of it) are
abandoned and the conversation continues from before them, so the active path forks that often and the forks
nest ``entries / every`` deep. ``--comb N`` writes one N-entry spine with a one-entry stub at every entry.
Open it with ``pi --session OUT.jsonl`` and type ``/tree``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tree.helpers import branchy_session, comb_session  # noqa: E402


def write_session(path: Path, entries: list[dict[str, object]], cwd: str = "/") -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": path.stem,
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": cwd,
    }
    with path.open("x", encoding="utf-8") as out:  # never overwrite an existing file
        for e in (header, *entries):
            out.write(json.dumps(e, separators=(",", ":")) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--back", type=int, default=None)
    ap.add_argument("--comb", type=int, default=0, metavar="N")
    ap.add_argument("--cwd", default=str(Path.cwd()))
    args = ap.parse_args(argv)
    entries = comb_session(args.comb) if args.comb else branchy_session(args.entries, args.every, args.back)
    try:
        write_session(args.out, entries, args.cwd)
    except FileExistsError:
        print(f"{args.out}: already exists (not overwritten)", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {len(entries)} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
