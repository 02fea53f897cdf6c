"""The ``ls`` tool: one directory's entries, sorted case-insensitively, directories marked with ``/``."""

from __future__ import annotations

import os
import stat
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortSignal
from pi_app.tools.common import check_abort, opt_int, opt_str
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_to_cwd
from pi_app.tools.truncate import format_size, truncate_head

DEFAULT_LIMIT = 500


class LsTool(AgentTool):
    name = "ls"
    label = "ls"
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Directory to list (default: working directory)"},
            "limit": {"type": "number", "description": "Maximum number of entries (default 500)"},
        },
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()
        lim = self.options.limits_for("ls")
        self.description = (
            "List the entries of a directory in alphabetical order, dotfiles included; directory names end "
            f"with '/'. At most {DEFAULT_LIMIT} entries by default and {lim.max_bytes // 1024}KB of output."
        )

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        dir_path = resolve_to_cwd(opt_str(params, "path") or ".", self.cwd)
        limit = opt_int(params, "limit")
        limit = DEFAULT_LIMIT if limit is None else limit
        check_abort(signal)
        if not os.path.exists(dir_path):
            raise ToolError(f"Path not found: {dir_path}")
        if not os.path.isdir(dir_path):
            raise ToolError(f"Not a directory: {dir_path}")
        try:
            names = os.listdir(dir_path)
        except OSError as exc:
            raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from None
        names.sort(key=lambda n: (n.lower(), n))

        results: list[str] = []
        limit_reached = False
        for name in names:
            if len(results) >= limit:
                limit_reached = True
                break
            try:
                st = os.stat(os.path.join(dir_path, name))
            except OSError:
                continue  # cannot stat (e.g. a dangling symlink): pi leaves it out
            is_dir = stat.S_ISDIR(st.st_mode)
            results.append(name + ("/" if is_dir else ""))
        check_abort(signal)
        if not results:
            return AgentToolResult.text("(empty directory)")

        lim = self.options.limits_for("ls")
        tr = truncate_head("\n".join(results), max_lines=2**53, max_bytes=lim.max_bytes)
        text = tr.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
            details["entryLimitReached"] = limit
        if tr.truncated:
            notices.append(f"{format_size(lim.max_bytes)} limit reached")
            details["truncation"] = tr.to_json()
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return AgentToolResult.text(text, details or None)
