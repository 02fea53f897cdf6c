"""A custom tool that streams its progress: ``line_count`` counts the lines of the files matching a glob.

Shows the three parts of a tool most extensions need:

- parameters as a pydantic model (``execute`` receives a validated instance; the model sees its JSON
  Schema, field descriptions included);
- ``on_update`` partial results while it works (the UI shows them live; ``tool_execution_update`` events
  carry them in json and rpc modes);
- custom ``details`` next to the text the model reads (kept in the session for renderers and scripts).

It checks the abort signal between files, so Esc stops it.

    pi -e examples/extensions/progress_tool.py -p "How many lines of Python are in src/?"
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pi_app.ai.abort import AbortSignal
from pi_app.extensions import AgentToolResult, ExtensionAPI, ExtensionContext, ToolError


class LineCountParams(BaseModel):
    pattern: str = Field(description='Glob relative to the working directory, e.g. "src/**/*.py"')
    max_files: int = Field(default=500, ge=1, le=10_000, description="Stop after this many files")
    update_every: int = Field(default=10, ge=1, description="Send a progress update every N files")


def _progress(done: int, total: int, lines: int, current: str | None) -> dict[str, Any]:
    # the same shape for partial and final results, so a renderer needs one code path
    return {"done": done, "total": total, "lines": lines, "current": current, "largest": []}


def _count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 16), b""))


def register(pi: ExtensionAPI) -> None:
    async def execute(
        tool_call_id: str,
        params: LineCountParams,
        signal: AbortSignal | None,
        on_update: Callable[[AgentToolResult], None] | None,
        ctx: ExtensionContext,
    ) -> AgentToolResult:
        root = Path(ctx.cwd)
        files = sorted(p for p in root.glob(params.pattern) if p.is_file())[: params.max_files]
        if not files:
            raise ToolError(f"No files match {params.pattern}")
        counts: list[tuple[str, int]] = []
        total_lines = 0
        for i, path in enumerate(files, 1):
            if signal is not None and signal.aborted:
                raise ToolError(f"Cancelled after {i - 1} of {len(files)} files")
            rel = os.path.relpath(path, root)
            try:
                n = _count_lines(path)
            except OSError as exc:
                raise ToolError(f"{rel}: {exc.strerror or exc}") from None
            counts.append((rel, n))
            total_lines += n
            if on_update is not None and (i % params.update_every == 0 or i == len(files)):
                on_update(
                    AgentToolResult.text(
                        f"Counted {i}/{len(files)} files ({total_lines} lines so far)",
                        details=_progress(i, len(files), total_lines, rel),
                    )
                )
        largest = sorted(counts, key=lambda c: -c[1])[:5]
        details = _progress(len(files), len(files), total_lines, None)
        details["largest"] = [{"path": p, "lines": n} for p, n in largest]
        summary = "\n".join(f"  {n:>7}  {p}" for p, n in largest)
        return AgentToolResult.text(
            f"{total_lines} lines in {len(files)} files matching {params.pattern}.\nLargest:\n{summary}",
            details=details,
        )

    pi.register_tool(
        name="line_count",
        label="Line count",
        description="Count the lines of the files matching a glob pattern, reporting progress as it goes.",
        parameters=LineCountParams,
        execute=execute,
        prompt_snippet="Count lines of files matching a glob",
        prompt_guidelines=["Use line_count to measure code size instead of running wc through bash."],
    )
