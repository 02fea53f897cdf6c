"""The ``grep`` tool: content search with ripgrep (``rg --json``), or a pure-Python scan without it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortError, AbortSignal
from pi_app.tools.common import check_abort, opt_bool, opt_int, opt_str, req_str
from pi_app.tools.fsutil import NotRegularFileError, check_regular, open_regular
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_to_cwd
from pi_app.tools.search import gitignore_spec, in_git_repo, locate_rg, walk_files
from pi_app.tools.truncate import format_size, truncate_head, truncate_line

if TYPE_CHECKING:
    import pathspec

DEFAULT_LIMIT = 100
_BINARY_SNIFF = 8192


@dataclass
class Match:
    """One matching line: the file, its 1-based line number, and its text."""

    path: str
    line_number: int
    line_text: str | None


def _rg_text(obj: dict[str, Any] | None) -> str | None:
    if not obj:
        return None
    text = obj.get("text")
    if isinstance(text, str):
        return text
    if "bytes" in obj:
        return base64.b64decode(obj["bytes"]).decode("utf-8", "replace")
    return None


class GrepTool(AgentTool):
    name = "grep"
    label = "grep"
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "Regular expression (or plain text with literal=true)",
            },
            "path": {
                "type": "string",
                "description": "Directory or file to search (default: working directory)",
            },
            "glob": {"type": "string", "description": "Only search files matching this glob, e.g. '*.py'"},
            "ignoreCase": {"type": "boolean", "description": "Match regardless of case (default false)"},
            "literal": {"type": "boolean", "description": "Treat pattern as plain text (default false)"},
            "context": {"type": "number", "description": "Lines of context around each match (default 0)"},
            "limit": {"type": "number", "description": "Stop after this many matches (default 100)"},
        },
        "required": ["pattern"],
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()
        lim = self.options.limits_for("grep")
        self.description = (
            "Search inside files for a regular expression (or literal text). Prints matching lines as "
            "path:line: text, skipping files ignored by .gitignore. At most "
            f"{DEFAULT_LIMIT} matches by default and {lim.max_bytes // 1024}KB of output; lines longer than "
            f"{self.options.grep_max_line_length} characters are shortened."
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
        glob = opt_str(params, "glob")
        ignore_case = opt_bool(params, "ignoreCase")
        literal = opt_bool(params, "literal")
        context = max(0, opt_int(params, "context") or 0)
        limit = max(1, opt_int(params, "limit") or DEFAULT_LIMIT)
        check_abort(signal)
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        check_regular(os.stat(search_path), search_path)  # a FIFO or device would block rg or never end
        is_dir = os.path.isdir(search_path)

        rg = locate_rg(self.options.rg_path)
        if rg is not None:
            matches, limit_reached = await self._run_rg(
                rg, pattern, search_path, glob, ignore_case, literal, limit, signal
            )
        else:
            matches, limit_reached = await self._scan(
                pattern, search_path, is_dir, glob, ignore_case, literal, limit, signal
            )
        check_abort(signal)
        if not matches:
            return AgentToolResult.text("No matches found")
        return self._format(matches, search_path, is_dir, context, limit, limit_reached)

    # -------------------------------------------------------------- ripgrep
    async def _run_rg(
        self,
        rg: str,
        pattern: str,
        path: str,
        glob: str | None,
        ignore_case: bool,
        literal: bool,
        limit: int,
        signal: AbortSignal | None,
    ) -> tuple[list[Match], bool]:
        args = ["--json", "--line-number", "--color=never", "--hidden", "--glob", "!.git"]
        if ignore_case:
            args.append("--ignore-case")
        if literal:
            args.append("--fixed-strings")
        # The glob is applied here, not with rg --glob: rg lets a --glob override .gitignore.
        glob_spec = gitignore_spec([glob]) if glob else None
        args += ["--", pattern, path]
        proc = await asyncio.create_subprocess_exec(
            rg,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        matches: list[Match] = []
        limit_reached = False
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        remove = signal.add_listener(lambda: _kill(proc)) if signal is not None else (lambda: None)
        try:
            buf = b""
            while not limit_reached:
                chunk = await proc.stdout.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    ev = _parse_event(raw)
                    if ev is None:
                        continue
                    data = ev.get("data") or {}
                    file_path = _rg_text(data.get("path"))
                    line_no = data.get("line_number")
                    if glob_spec is not None and file_path and not _glob_ok(glob_spec, file_path, path):
                        continue
                    if file_path and isinstance(line_no, int):
                        matches.append(Match(file_path, line_no, _rg_text(data.get("lines"))))
                    if len(matches) >= limit:
                        limit_reached = True
                        _kill(proc)
                        break
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
        if not limit_reached and code not in (0, 1):
            raise ToolError(stderr.strip() or f"ripgrep exited with code {code}")
        return matches, limit_reached

    # -------------------------------------------------------------- pure Python
    async def _scan(
        self,
        pattern: str,
        path: str,
        is_dir: bool,
        glob: str | None,
        ignore_case: bool,
        literal: bool,
        limit: int,
        signal: AbortSignal | None,
    ) -> tuple[list[Match], bool]:
        flags = re.IGNORECASE if ignore_case else 0
        try:
            rx = re.compile(re.escape(pattern) if literal else pattern, flags)
        except re.error as exc:
            raise ToolError(f"regex parse error:\n    {pattern}\nerror: {exc}") from None
        glob_spec = gitignore_spec([glob]) if glob else None

        def stop() -> bool:
            return signal is not None and signal.aborted

        def run() -> tuple[list[Match], bool]:
            matches: list[Match] = []
            if is_dir:
                files = walk_files(path, respect_ignores=in_git_repo(path), should_stop=stop)
            else:
                files = iter([path])
            for file_path in files:
                if glob_spec is not None and not _glob_ok(glob_spec, file_path, path):
                    continue
                try:
                    fd = open_regular(file_path)  # FIFOs, sockets and devices in the tree are skipped
                except (OSError, NotRegularFileError):
                    continue
                with os.fdopen(fd, "rb") as fh:
                    data = fh.read()
                if b"\0" in data[:_BINARY_SNIFF]:
                    continue
                for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
                    if rx.search(line):
                        matches.append(Match(file_path, n, line + "\n"))
                        if len(matches) >= limit:
                            return matches, True
                if stop():
                    break
            return matches, False

        return await asyncio.to_thread(run)

    # -------------------------------------------------------------- output
    def _format(
        self,
        matches: list[Match],
        search_path: str,
        is_dir: bool,
        context: int,
        limit: int,
        limit_reached: bool,
    ) -> AgentToolResult:
        max_len = self.options.grep_max_line_length
        lim = self.options.limits_for("grep")
        lines_truncated = False
        cache: dict[str, list[str]] = {}

        def rel(p: str) -> str:
            if is_dir:
                r = os.path.relpath(p, search_path)
                if r and not r.startswith(".."):
                    return r.replace(os.sep, "/")
            return os.path.basename(p)

        def file_lines(p: str) -> list[str]:
            if p not in cache:
                try:
                    with open(p, encoding="utf-8", errors="replace", newline="") as fh:
                        cache[p] = fh.read().replace("\r\n", "\n").replace("\r", "\n").split("\n")
                except OSError:
                    cache[p] = []
            return cache[p]

        out: list[str] = []
        for m in matches:
            shown = rel(m.path)
            if context == 0 and m.line_text is not None:
                text = m.line_text.replace("\r\n", "\n").replace("\r", "")
                text = text[:-1] if text.endswith("\n") else text
                text, cut = truncate_line(text, max_len)
                lines_truncated |= cut
                out.append(f"{shown}:{m.line_number}: {text}")
                continue
            lines = file_lines(m.path)
            if not lines:
                out.append(f"{shown}:{m.line_number}: (unable to read file)")
                continue
            start = max(1, m.line_number - context) if context else m.line_number
            end = min(len(lines), m.line_number + context) if context else m.line_number
            for n in range(start, end + 1):
                text, cut = truncate_line(
                    (lines[n - 1] if n <= len(lines) else "").replace("\r", ""), max_len
                )
                lines_truncated |= cut
                sep = ":" if n == m.line_number else "-"
                out.append(f"{shown}{sep}{n}{sep} {text}")

        tr = truncate_head("\n".join(out), max_lines=2**53, max_bytes=lim.max_bytes)
        text = tr.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(
                f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["matchLimitReached"] = limit
        if tr.truncated:
            notices.append(f"{format_size(lim.max_bytes)} limit reached")
            details["truncation"] = tr.to_json()
        if lines_truncated:
            notices.append(f"Some lines truncated to {max_len} chars. Use read tool to see full lines")
            details["linesTruncated"] = True
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return AgentToolResult.text(text, details or None)


def _glob_ok(spec: pathspec.GitIgnoreSpec, file_path: str, root: str) -> bool:
    rel = os.path.relpath(file_path, root) if os.path.isdir(root) else os.path.basename(file_path)
    return spec.match_file(rel.replace(os.sep, "/"))


def _parse_event(raw: bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        ev = json.loads(raw)
    except ValueError:
        return None
    return ev if isinstance(ev, dict) and ev.get("type") == "match" else None


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
