"""The ``edit`` tool: several disjoint exact-text replacements in one file (written by fsutil.write_file)."""

from __future__ import annotations

import errno
import json
import os
import threading
from typing import Any

from pi_app.agent.tool import AgentTool, AgentToolResult, OnUpdate, ToolError
from pi_app.ai.abort import AbortSignal
from pi_app.tools.common import check_abort, error_code, node_error, req_str
from pi_app.tools.edit_diff import (
    Replacement,
    apply_edits,
    detect_line_ending,
    generate_diff_string,
    normalize_to_lf,
    restore_line_endings,
    strip_bom,
)
from pi_app.tools.fsutil import (
    check_regular,
    check_stop,
    file_mutation_lock,
    open_regular,
    run_off_loop,
    write_file,
)
from pi_app.tools.options import ToolOptions
from pi_app.tools.paths import resolve_to_cwd


def parse_edits(params: dict[str, Any]) -> list[Replacement]:
    edits = params.get("edits")
    if not isinstance(edits, list) or not edits:
        raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
    out: list[Replacement] = []
    for i, e in enumerate(edits):
        if (
            not isinstance(e, dict)
            or not isinstance(e.get("oldText"), str)
            or not isinstance(e.get("newText"), str)
        ):
            raise ToolError(f"Edit tool input is invalid. edits[{i}] must have string oldText and newText.")
        out.append(Replacement(e["oldText"], e["newText"]))
    return out


def _read_for_edit(abs_path: str, shown: str, stop: threading.Event) -> bytes:
    """The file's bytes (in a worker thread); pi's errors for a missing or unwritable file, and FIFOs,
    sockets and devices refused before anything could block or stream forever."""
    try:
        st = os.stat(abs_path)
        if not os.access(abs_path, os.R_OK | os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied")
    except OSError as exc:
        raise ToolError(f"Could not edit file: {shown}. Error code: {error_code(exc)}.") from None
    check_regular(st, abs_path)
    parts: list[bytes] = []
    try:
        fd = open_regular(abs_path, shown=abs_path)
        try:
            while chunk := os.read(fd, 1 << 20):
                check_stop(stop)
                parts.append(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise node_error(exc, "read", None) from None
    return b"".join(parts)


class EditTool(AgentTool):
    name = "edit"
    label = "edit"
    description = (
        "Change a file by replacing exact snippets of text. Put every change to one file in a single call as "
        "entries of edits[]: each oldText is looked up in the original file (not in the result of earlier "
        "entries), must occur exactly once there and must not overlap another entry. Keep each oldText short "
        "but unique; when two changes are close together, make them one entry."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File to change, absolute or relative to the working directory",
            },
            "edits": {
                "type": "array",
                "description": "The replacements; all are matched against the original file and must not overlap",
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string", "description": "Text to replace, unique in the file"},
                        "newText": {"type": "string", "description": "Text to put in its place"},
                    },
                    "required": ["oldText", "newText"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "edits"],
        "additionalProperties": False,
    }

    def __init__(self, cwd: str, options: ToolOptions | None = None) -> None:
        self.cwd = cwd
        self.options = options or ToolOptions()

    def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Accept ``edits`` sent as a JSON string and the older single ``{oldText, newText}`` form."""
        if not isinstance(raw, dict):
            return raw
        args = dict(raw)
        if isinstance(args.get("edits"), str):
            try:
                parsed = json.loads(args["edits"])
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                args["edits"] = parsed
        if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
            edits = list(args["edits"]) if isinstance(args.get("edits"), list) else []
            edits.append({"oldText": args.pop("oldText"), "newText": args.pop("newText")})
            args["edits"] = edits
        return args

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        params = self.prepare_arguments(params)
        path = req_str(params, "path")
        edits = parse_edits(params)
        abs_path = resolve_to_cwd(path, self.cwd)
        check_abort(signal)
        async with file_mutation_lock(abs_path):
            check_abort(signal)
            raw = await run_off_loop(lambda stop: _read_for_edit(abs_path, path, stop), signal)
            check_abort(signal)
            # surrogateescape: bytes that are not UTF-8 survive the round trip untouched
            bom, text = strip_bom(raw.decode("utf-8", "surrogateescape"))
            ending = detect_line_ending(text)
            base, new = apply_edits(normalize_to_lf(text), edits, path)
            check_abort(signal)
            final = bom + restore_line_endings(new, ending)
            try:
                encoded = final.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                encoded = final.encode("utf-8", "replace")
            try:
                write_file(abs_path, encoded)
            except OSError as exc:
                raise node_error(exc, "open", abs_path) from None
        diff, first_changed = generate_diff_string(base, new)
        details: dict[str, Any] = {"diff": diff}
        if first_changed is not None:
            details["firstChangedLine"] = first_changed
        return AgentToolResult.text(f"Successfully replaced {len(edits)} block(s) in {path}.", details)
