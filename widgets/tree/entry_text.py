"""What a session entry looks like in the tree browser: one-line display text, search text, full preview.

Pure functions over entry dicts (or EntryRecords, which answer ``get``/``[]`` the same way). Display follows
pi's tree selector: ``user: <text>``, ``assistant: <text>``, tool results as the call that produced them
(``[read: ~/a.py:1-10]``), ``[compaction: 12k tokens]``, ``[branch summary]: <text>``, ``[model: <id>]``...
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pi_app.ai.text import text_of as text_of  # re-exported for the tree and fork picker
from pi_app.tools.presenters import presenter_for

# One line of text, capped: the list shows a single row per entry and search only needs a prefix.
MAX_LINE = 200
_WS = re.compile(r"[\n\t\r]+")

# Row styles the screen maps to theme colours.
STYLE_USER = "user"
STYLE_ASSISTANT = "assistant"
STYLE_TOOL = "tool"
STYLE_ERROR = "error"
STYLE_SUMMARY = "summary"
STYLE_COMPACTION = "compaction"
STYLE_META = "meta"
STYLE_CUSTOM = "custom"

# Entry types the default filter hides (settings and bookkeeping, not conversation).
SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})


@dataclass(frozen=True, slots=True)
class ToolCallInfo:
    """A tool call's name and arguments, looked up by call id to show its result's row."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DisplayText:
    """How an entry reads as one row of the tree: a role tag, the text, and the row style."""

    tag: str  # "user: ", "assistant: ", "" (bracketed forms carry everything in body)
    body: str
    style: str  # STYLE_* of the tag (and of the body for bracketed forms)
    body_muted: bool = False  # "(aborted)", "(no content)"


def one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


def has_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(
            isinstance(b, dict)
            and b.get("type") == "text"
            and isinstance(b.get("text"), str)
            and b["text"].strip()
            for b in content
        )
    return False


def tool_calls_of(message: dict[str, Any]) -> list[tuple[str, ToolCallInfo]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    calls = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "toolCall":
            args = b.get("arguments")
            calls.append(
                (
                    str(b.get("id", "")),
                    ToolCallInfo(str(b.get("name", "tool")), args if isinstance(args, dict) else {}),
                )
            )
    return calls


def shorten_path(path: str, home: str | None) -> str:
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def format_tool_call(name: str, args: dict[str, Any], home: str | None = None) -> str:
    """pi's bracketed one-line form of a tool call, e.g. ``[read: ~/a.py:5-14]``, ``[bash: ls -la]``; the
    tool's presenter (``pi_app.tools.presenters``) decides, so extension tools read as they register."""
    return presenter_for(name).summary(args, lambda path: shorten_path(path, home))


def is_hidden_assistant(message: dict[str, Any]) -> bool:
    """An assistant turn with only tool calls (its calls show on the tool-result rows)."""
    if has_text(message.get("content")):
        return False
    stop = message.get("stopReason")
    return not (stop and stop not in ("stop", "toolUse"))


def display_text(
    entry: Any, tool_calls: dict[str, ToolCallInfo] | None = None, home: str | None = None
) -> DisplayText:
    kind = entry.get("type")
    if kind == "message":
        msg = entry.get("message")
        msg = msg if isinstance(msg, dict) else {}
        role = msg.get("role")
        if role == "user":
            return DisplayText("user: ", one_line(text_of(msg.get("content"), limit=MAX_LINE)), STYLE_USER)
        if role == "assistant":
            text = one_line(text_of(msg.get("content"), limit=MAX_LINE))
            if text:
                return DisplayText("assistant: ", text, STYLE_ASSISTANT)
            if msg.get("stopReason") == "aborted":
                return DisplayText("assistant: ", "(aborted)", STYLE_ASSISTANT, body_muted=True)
            if msg.get("errorMessage"):
                return DisplayText("assistant: ", one_line(str(msg["errorMessage"]))[:80], STYLE_ERROR)
            calls = tool_calls_of(msg)
            if calls:
                summary = ", ".join(format_tool_call(c.name, c.arguments, home) for _, c in calls)
                return DisplayText("assistant: ", f"→ {summary}", STYLE_ASSISTANT, body_muted=True)
            return DisplayText("assistant: ", "(no content)", STYLE_ASSISTANT, body_muted=True)
        if role == "toolResult":
            call = (tool_calls or {}).get(str(msg.get("toolCallId", "")))
            text = (
                format_tool_call(call.name, call.arguments, home)
                if call
                else f"[{msg.get('toolName') or 'tool'}]"
            )
            return DisplayText("", text, STYLE_ERROR if msg.get("isError") else STYLE_TOOL)
        if role == "bashExecution":
            return DisplayText("", f"[bash]: {one_line(str(msg.get('command') or ''))}", STYLE_META)
        return DisplayText("", f"[{role or 'message'}]", STYLE_META)
    if kind == "custom_message":
        body = one_line(text_of(entry.get("content"), limit=MAX_LINE))
        return DisplayText(f"[{entry.get('customType', 'custom')}]: ", body, STYLE_CUSTOM)
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        k = round(tokens / 1000) if isinstance(tokens, (int, float)) else 0
        return DisplayText("", f"[compaction: {k}k tokens]", STYLE_COMPACTION)
    if kind == "branch_summary":
        return DisplayText(
            "[branch summary]: ", one_line(str(entry.get("summary") or ""))[:MAX_LINE], STYLE_SUMMARY
        )
    if kind == "model_change":
        return DisplayText("", f"[model: {entry.get('modelId', '')}]", STYLE_META)
    if kind == "thinking_level_change":
        return DisplayText("", f"[thinking: {entry.get('thinkingLevel', '')}]", STYLE_META)
    if kind == "custom":
        return DisplayText("", f"[custom: {entry.get('customType', '')}]", STYLE_META)
    if kind == "label":
        return DisplayText("", f"[label: {entry.get('label') or '(cleared)'}]", STYLE_META)
    if kind == "session_info":
        name = entry.get("name")
        return DisplayText("", f"[session name: {name}]" if name else "[session name cleared]", STYLE_META)
    return DisplayText("", f"[{kind}]", STYLE_META)


def search_text(entry: Any, shown: DisplayText, label: str | None) -> str:
    """Lower-cased text search matches against: label, role/type words and the visible text."""
    parts = [label or ""]
    kind = entry.get("type")
    if kind == "message":
        msg = entry.get("message")
        if isinstance(msg, dict):
            parts.append(str(msg.get("role", "")))
    elif kind == "compaction":
        parts.append("compaction")
    elif kind == "branch_summary":
        parts.append("branch summary")
    parts.append(shown.tag)
    parts.append(shown.body)
    return " ".join(parts).lower()


def full_text(entry: Any) -> str:
    """The entry's whole text, for the preview pane and ``y`` (copy)."""
    kind = entry.get("type")
    if kind == "message":
        msg = entry.get("message")
        msg = msg if isinstance(msg, dict) else {}
        role = msg.get("role")
        if role == "bashExecution":
            out = str(msg.get("output") or "")
            return f"$ {msg.get('command', '')}\n{out}".rstrip()
        text = text_of(msg.get("content"))
        if role == "assistant" and not text.strip():
            if msg.get("errorMessage"):
                return str(msg["errorMessage"])
            return "\n".join(format_tool_call(c.name, c.arguments) for _, c in tool_calls_of(msg))
        return text
    if kind == "custom_message":
        return text_of(entry.get("content"))
    if kind in ("compaction", "branch_summary"):
        return str(entry.get("summary") or "")
    if kind == "label":
        return str(entry.get("label") or "")
    if kind == "session_info":
        return str(entry.get("name") or "")
    if kind == "model_change":
        return f"{entry.get('provider', '')}/{entry.get('modelId', '')}"
    if kind == "thinking_level_change":
        return str(entry.get("thinkingLevel", ""))
    if kind == "custom":
        return json.dumps(entry.get("data"), ensure_ascii=False, indent=2)
    return ""


def preview_sections(
    entry: Any, tool_calls: dict[str, ToolCallInfo] | None = None, home: str | None = None
) -> list[tuple[str, str]]:
    """(heading, text) blocks describing one entry in full: message text, thinking, tool calls and results."""
    kind = entry.get("type")
    sections: list[tuple[str, str]] = []
    if kind == "message":
        msg = entry.get("message")
        msg = msg if isinstance(msg, dict) else {}
        role = str(msg.get("role", "message"))
        content = msg.get("content")
        if role == "assistant":
            if isinstance(content, list):
                for b in content:
                    if not isinstance(b, dict):
                        continue
                    if b.get("type") == "thinking" and str(b.get("thinking", "")).strip():
                        sections.append(("thinking", str(b["thinking"])))
                    elif b.get("type") == "text" and str(b.get("text", "")).strip():
                        sections.append(("assistant", str(b["text"])))
                    elif b.get("type") == "toolCall":
                        raw_args = b.get("arguments")
                        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
                        call_line = format_tool_call(str(b.get("name", "tool")), args, home)
                        sections.append(
                            ("tool call", f"{call_line}\n{json.dumps(args, ensure_ascii=False, indent=2)}")
                        )
            elif isinstance(content, str) and content.strip():
                sections.append(("assistant", content))
            if msg.get("errorMessage"):
                sections.append(("error", str(msg["errorMessage"])))
            elif msg.get("stopReason") == "aborted":
                sections.append(("aborted", "Operation aborted"))
            model = msg.get("model")
            if model:
                sections.append(("model", f"{msg.get('provider', '')}/{model}"))
        elif role == "toolResult":
            call = (tool_calls or {}).get(str(msg.get("toolCallId", "")))
            if call:
                sections.append(
                    (
                        "tool call",
                        f"{format_tool_call(call.name, call.arguments, home)}\n"
                        f"{json.dumps(call.arguments, ensure_ascii=False, indent=2)}",
                    )
                )
            heading = "tool error" if msg.get("isError") else f"result of {msg.get('toolName') or 'tool'}"
            sections.append((heading, text_of(content) or "(no text output)"))
        else:
            sections.append((role, full_text(entry) or "(empty)"))
    elif kind == "compaction":
        sections.append((display_text(entry).body, str(entry.get("summary") or "")))
    elif kind == "branch_summary":
        sections.append(("branch summary", str(entry.get("summary") or "")))
    else:
        shown = display_text(entry, tool_calls, home)
        sections.append((shown.tag.rstrip(": ") or kind or "entry", full_text(entry) or shown.body))
    return sections
