"""The ``write`` tool: create or overwrite a file (see fsutil.write_file), creating parent directories."""

from __future__ import annotations

import os
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate
from pi_app.ai.abort import AbortSignal
from pi_app.tools.common import check_abort, node_error, req_str
from pi_app.tools.fsutil import file_mutation_lock, write_file
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_to_cwd


def js_length(text: str) -> int:
    """JavaScript ``string.length`` (UTF-16 code units), which is what pi reports as "bytes"."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class WriteTool(AgentTool):
    name = "write"
    label = "write"
    description = (
        "Create a file or replace the whole content of an existing one. Missing parent directories are "
        "created. Prefer edit for changing part of a file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File to write, absolute or relative to the working directory",
            },
            "content": {"type": "string", "description": "The complete new content of the file"},
        },
        "required": ["path", "content"],
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        path = req_str(params, "path")
        content = req_str(params, "content")
        abs_path = resolve_to_cwd(path, self.cwd)
        check_abort(signal)
        async with file_mutation_lock(abs_path):
            check_abort(signal)
            parent = os.path.dirname(abs_path)
            try:
                os.makedirs(parent, exist_ok=True)
            except OSError as exc:
                raise node_error(exc, "mkdir", parent) from None
            check_abort(signal)
            try:
                write_file(abs_path, content.encode("utf-8", "replace"))
            except OSError as exc:
                raise node_error(exc, "open", abs_path) from None
        return AgentToolResult.text(f"Successfully wrote {js_length(content)} bytes to {path}")
