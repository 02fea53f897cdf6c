"""Timings for the coding tools (run by hand: python bench/bench_tools.py). Not part of the test suite.

- grep over a generated 50,000-file tree, with ripgrep and with the pure-Python fallback
- find over the same tree
- edit on a 5 MB file (single edit and a 3-edit call), plus a failed edit that computes the closest match
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time

from pi_app.agent.tool import ToolError
from pi_app.tools import ToolOptions
from pi_app.tools.edit import EditTool
from pi_app.tools.find import FindTool
from pi_app.tools.grep import GrepTool


def make_tree(root: str, dirs: int = 500, per_dir: int = 100) -> None:
    for i in range(dirs):
        d = os.path.join(root, f"pkg{i}")
        os.makedirs(d)
        for j in range(per_dir):
            with open(os.path.join(d, f"mod{j}.py"), "w") as fh:
                fh.write(
                    f"def f{j}():\n    return {i * per_dir + j}\n"
                    + ("# TODO marker\n" if j % 97 == 0 else "")
                )


async def timed(label: str, coro) -> None:
    t0 = time.perf_counter()
    try:
        result = await coro
        summary = result.content[0].text.split("\n\n[")[-1][:80] if result.content else ""
    except ToolError as exc:
        summary = "error: " + str(exc).splitlines()[0][:60]
    print(f"{label:<45} {time.perf_counter() - t0:8.3f} s   {summary!r}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        t0 = time.perf_counter()
        make_tree(root)
        print(f"{'generate 50,000 files':<45} {time.perf_counter() - t0:8.3f} s")
        for name, opts in (("rg", ToolOptions()), ("python", ToolOptions(rg_path=""))):
            grep = GrepTool(root, opts)
            await timed(
                f"grep TODO, limit 1000 [{name}]", grep.execute("b", {"pattern": "TODO", "limit": 1000})
            )
            await timed(f"grep no match [{name}]", grep.execute("b", {"pattern": "zzz_never"}))
            await timed(
                f"find *.py limit 100000 [{name}]",
                FindTool(root, opts).execute("b", {"pattern": "*.py", "limit": 100000}),
            )

        path = os.path.join(root, "big.txt")
        lines = [f"line {i}: some ordinary text for the benchmark" for i in range(110_000)]
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        print(f"{'5 MB file size':<45} {os.path.getsize(path) / 1e6:8.2f} MB")
        edit = EditTool(root)
        await timed(
            "edit 1 block in 5 MB file",
            edit.execute(
                "b", {"path": "big.txt", "edits": [{"oldText": "line 55000:", "newText": "LINE 55000:"}]}
            ),
        )
        edits = [{"oldText": f"line {n}:", "newText": f"LINE {n}:"} for n in (10, 60_000, 109_999)]
        await timed(
            "edit 3 far-apart blocks in 5 MB file", edit.execute("b", {"path": "big.txt", "edits": edits})
        )
        await timed(
            "failed edit with closest-match search",
            edit.execute(
                "b",
                {"path": "big.txt", "edits": [{"oldText": "line 7777: some ordinery text", "newText": "x"}]},
            ),
        )


if __name__ == "__main__":
    asyncio.run(main())
