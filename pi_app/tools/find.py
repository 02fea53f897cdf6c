"""The ``find`` tool: files (and directories) whose path matches a glob, .gitignore respected.

File lists come from ``rg --files`` (hidden files included, .git excluded) or, without rg, from a
pure-Python walk; the glob is applied here with fd's semantics, which pi's find uses."""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortError, AbortSignal
from pi_app.tools.common import check_abort, opt_int, opt_str, req_str
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_to_cwd
from pi_app.tools.search import fd_glob_matcher, locate_rg, walk_files
from pi_app.tools.truncate import format_size, truncate_head

DEFAULT_LIMIT = 1000


class _Collector:
    """Accepts relative file paths in walk order; keeps matches (files, then their matching parent
    directories with a trailing slash) until the limit."""

    def __init__(self, pattern: str, limit: int) -> None:
        self.match = fd_glob_matcher(pattern)
        self.limit = limit
        self.results: list[str] = []
        self._seen_dirs: set[str] = set()

    @property
    def full(self) -> bool:
        return len(self.results) >= self.limit

    def add(self, rel: str) -> None:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in self._seen_dirs:
                self._seen_dirs.add(d)
                if self.match(d) and not self.full:
                    self.results.append(d + "/")
        if self.match(rel) and not self.full:
            self.results.append(rel)


class FindTool(AgentTool):
    name = "find"
    label = "find"
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "Glob to match, e.g. '*.py', '**/*.json', 'src/**/test_*.py'",
            },
            "path": {"type": "string", "description": "Directory to search (default: working directory)"},
            "limit": {"type": "number", "description": "Maximum number of results (default 1000)"},
        },
        "required": ["pattern"],
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()
        lim = self.options.limits_for("find")
        self.description = (
            "List files whose path matches a glob pattern, relative to the searched directory; files "
            f"ignored by .gitignore are left out. At most {DEFAULT_LIMIT} results by default and "
            f"{lim.max_bytes // 1024}KB of output."
        )

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        pattern = req_str(params, "pattern")
        search_path = resolve_to_cwd(opt_str(params, "path") or ".", self.cwd)
        limit = opt_int(params, "limit") or DEFAULT_LIMIT
        limit = max(1, limit)
        check_abort(signal)
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        collector = _Collector(pattern, limit)
        rg = locate_rg(self.options.rg_path)
        if rg is not None:
            await self._rg_files(rg, search_path, collector, signal)
        else:
            await self._walk(search_path, collector, signal)
        check_abort(signal)
        if not collector.results:
            return AgentToolResult.text("No files found matching pattern")

        lim = self.options.limits_for("find")
        tr = truncate_head("\n".join(collector.results), max_lines=2**53, max_bytes=lim.max_bytes)
        text = tr.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if collector.full:
            notices.append(
                f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["resultLimitReached"] = limit
        if tr.truncated:
            notices.append(f"{format_size(lim.max_bytes)} limit reached")
            details["truncation"] = tr.to_json()
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return AgentToolResult.text(text, details or None)

    async def _rg_files(self, rg: str, root: str, collector: _Collector, signal: AbortSignal | None) -> None:
        args = [
            "--files",
            "--hidden",
            "--no-require-git",
            "--color=never",
            "--sort",
            "path",
            "--glob",
            "!.git",
        ]
        proc = await asyncio.create_subprocess_exec(
            rg,
            *args,
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        remove = signal.add_listener(lambda: _kill(proc)) if signal is not None else (lambda: None)
        try:
            buf = b""
            while not collector.full:
                chunk = await proc.stdout.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    rel = raw.decode("utf-8", "surrogateescape").removeprefix("./")
                    if rel:
                        collector.add(rel.replace(os.sep, "/"))
                    if collector.full:
                        break
            if buf and not collector.full:
                collector.add(buf.decode("utf-8", "surrogateescape").removeprefix("./"))
            if collector.full:
                _kill(proc)
            code = await proc.wait()
            stderr = (await stderr_task).decode("utf-8", "replace")
        finally:
            remove()
            if proc.returncode is None:
                _kill(proc)
                with contextlib.suppress(Exception):
                    await proc.wait()
            stderr_task.cancel()
        if signal is not None and signal.aborted:
            raise AbortError()
        # rg exits 1 when there are no files at all; 2 on (partial) errors such as unreadable dirs.
        if code not in (0, 1) and not collector.results and not collector.full:
            raise ToolError(stderr.strip() or f"rg exited with code {code}")

    async def _walk(self, root: str, collector: _Collector, signal: AbortSignal | None) -> None:

        def stop() -> bool:
            return signal is not None and signal.aborted

        def run() -> None:
            for path in walk_files(root, should_stop=stop):
                collector.add(os.path.relpath(path, root).replace(os.sep, "/"))
                if collector.full or stop():
                    return

        await asyncio.to_thread(run)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
