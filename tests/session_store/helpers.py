"""Shared helpers: fixture paths and a checker that reads a file the way pi's loader does."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sessions"
ID_RE = re.compile(r"^([0-9a-f]{8}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
KNOWN = {
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
}


def copy_fixture(name: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / name
    shutil.copy(FIXTURES / name, target)
    return target


def pi_check(path: Path) -> list[dict]:
    """Assert the file is what pi 0.73 expects of a v3 file; returns the entry dicts (header excluded).

    Every line is JSON ending in a newline, line 1 is a v3 header, ids are unique, every parentId names an
    earlier entry (append-only), known entry types carry their required fields.
    """
    text = path.read_text("utf-8")
    assert text.endswith("\n"), "file must end with a newline"
    lines = text.split("\n")[:-1]
    header = json.loads(lines[0])
    assert header["type"] == "session" and header["version"] == 3 and isinstance(header["id"], str)
    assert ISO_RE.match(header["timestamp"]) and isinstance(header["cwd"], str)
    seen: set[str] = set()
    entries = []
    for line in lines[1:]:
        e = json.loads(line)
        assert ID_RE.match(e["id"]), e["id"]
        assert e["id"] not in seen, f"duplicate id {e['id']}"
        assert "parentId" in e
        assert e["parentId"] is None or e["parentId"] in seen, f"parent {e['parentId']} not earlier"
        assert ISO_RE.match(e["timestamp"])
        required = {
            "message": ["message"],
            "thinking_level_change": ["thinkingLevel"],
            "model_change": ["provider", "modelId"],
            "compaction": ["summary", "firstKeptEntryId", "tokensBefore"],
            "branch_summary": ["fromId", "summary"],
            "custom": ["customType"],
            "custom_message": ["customType", "content", "display"],
            "label": ["targetId"],
            "session_info": [],
        }.get(e["type"], [])
        for key in required:
            assert key in e, f"{e['type']} misses {key}"
        if e["type"] == "message":
            assert isinstance(e["message"]["timestamp"], int)
        seen.add(e["id"])
        entries.append(e)
    return entries
