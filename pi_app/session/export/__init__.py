"""Session export: one self-contained HTML page (``pi --export``, ``/export``) or a copy of the JSONL file.

The page holds the header and stats, the optional system prompt and tool list, the active branch rendered
server side (readable without JavaScript) and a sidebar with the whole tree. A small script (our own)
re-renders the message column for the branch through whichever tree node is clicked, from the entries
embedded as JSON, and narrows the tree with pi's search box and filters (default / no-tools / user /
labeled / all).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

from ..jsontext import encode_utf8
from ..store.jsonl import load_session_file
from ..store.record import EntryRecord
from .page import build_page, compute_stats, script_json
from .render import markdown, render_entry

APP_NAME = "pi"

__all__ = [
    "build_page",
    "compute_stats",
    "default_export_path",
    "export_session",
    "export_session_html",
    "markdown",
    "render_entry",
    "script_json",
]


def default_export_path(session_file: str) -> str:
    """``pi-session-<basename without .jsonl>.html`` in the current directory, as pi names it."""
    base = os.path.basename(session_file)
    if base.endswith(".jsonl"):
        base = base[: -len(".jsonl")]
    return f"{APP_NAME}-session-{base}.html"


def _tool_info(tool: Any) -> dict[str, Any]:
    """{name, description, parameters} from a dict, a pydantic Tool or an AgentTool."""
    if isinstance(tool, Mapping):
        get = tool.get
    else:

        def get(key: str, default: Any = None) -> Any:
            return getattr(tool, key, default)

    return {
        "name": get("name", ""),
        "description": get("description", ""),
        "parameters": get("parameters") or {},
    }


def export_session_html(
    session_file: str,
    out_path: str | None = None,
    theme_name: str = "dark",
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    leaf_id: str | None = None,
) -> str:
    """Write the HTML export of ``session_file`` and return the path written.

    The displayed branch ends at ``leaf_id`` (default: the file's last entry, where pi resumes). The
    session file is only read (an old format is migrated in memory, never rewritten).
    """
    if not os.path.exists(session_file):
        raise FileNotFoundError(f"File not found: {session_file}")
    loaded = load_session_file(session_file, rewrite_migrated=False)
    if loaded.header is None:
        raise ValueError("Nothing to export yet - start a conversation first")
    # full dicts: the loader hands out lazily parsed records, the page needs every field
    entries: list[dict[str, Any]] = [e.data if isinstance(e, EntryRecord) else e for e in loaded.entries]
    ids = {e["id"] for e in entries}
    if leaf_id is None or leaf_id not in ids:
        leaf_id = entries[-1]["id"] if entries else None
    html = build_page(
        loaded.header,
        entries,
        leaf_id,
        theme_name,
        system_prompt=system_prompt,
        tools=[_tool_info(t) for t in tools] if tools else None,
    )
    target = out_path or default_export_path(session_file)
    # undecodable bytes kept as lone surrogates (an edited file with byte 0xff) show as U+FFFD
    with open(target, "wb") as fh:
        fh.write(encode_utf8(html))
    return target


def export_session(session_file: str, out_path: str | None = None, **html_options: Any) -> str:
    """Export to ``out_path``: a ``.jsonl`` target gets a byte-identical copy, anything else HTML."""
    if out_path and out_path.lower().endswith(".jsonl"):
        if not os.path.exists(session_file):
            raise FileNotFoundError(f"File not found: {session_file}")
        if os.path.abspath(out_path) != os.path.abspath(session_file):
            shutil.copyfile(session_file, out_path)
        return out_path
    return export_session_html(session_file, out_path, **html_options)
