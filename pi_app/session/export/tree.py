"""The sidebar: the whole session tree flattened into rows, indented only where the tree forks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_app.ai.text import text_of

from ..jsontext import dumps
from ..store.context import build_tree, labels_of
from .render import Entry, esc, shorten_path

SETTINGS_TYPES = ("label", "custom", "model_change", "thinking_level_change")


@dataclass
class TreeRow:
    entry: Entry
    depth: int
    label: str | None
    on_active_path: bool


def flatten_tree(entries: list[Entry], active_ids: set[str]) -> list[TreeRow]:
    """Depth-first rows; the child holding the active path goes first; a node's children are indented one
    step only when it has more than one (a plain chain stays flat)."""
    labels = labels_of(entries)
    roots = build_tree(entries, labels)
    contains: dict[str, bool] = {}
    # post-order pass (iterative: chains can be thousands deep) to mark subtrees holding the active path
    order: list[Any] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        eid = node.entry["id"]
        contains[eid] = eid in active_ids or any(contains[c.entry["id"]] for c in node.children)

    def ordered(nodes: list[Any]) -> list[Any]:
        return sorted(nodes, key=lambda n: not contains[n.entry["id"]])  # stable: active first

    rows: list[TreeRow] = []
    base = 1 if len(roots) > 1 else 0
    work = [(n, base) for n in reversed(ordered(roots))]
    while work:
        node, depth = work.pop()
        eid = node.entry["id"]
        rows.append(TreeRow(node.entry, depth, node.label, eid in active_ids))
        child_depth = depth + 1 if len(node.children) > 1 else depth
        work.extend((c, child_depth) for c in reversed(ordered(node.children)))
    return rows


def _truncate(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def tool_call_summary(name: str, args: Mapping[str, Any]) -> str:
    path = shorten_path(str(args.get("path") or args.get("file_path") or ""))
    if name in ("read", "write", "edit"):
        return f"[{name}: {path}]"
    if name == "bash":
        cmd = " ".join(str(args.get("command", "")).split())
        return f"[bash: {cmd[:50]}{'...' if len(cmd) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{args.get('pattern', '')}/ in {path or '.'}]"
    if name == "find":
        return f"[find: {args.get('pattern', '')} in {path or '.'}]"
    if name == "ls":
        return f"[ls: {path or '.'}]"
    raw = dumps(dict(args))
    return f"[{name}: {raw[:40]}{'...' if len(raw) > 40 else ''}]"


def node_html(entry: Entry, label: str | None, tool_calls: Mapping[str, Mapping[str, Any]]) -> str:
    """Inner HTML of one tree row (escaped)."""
    prefix = f'<span class="tree-label">[{esc(label)}]</span> ' if label else ""
    kind = entry.get("type")
    if kind == "message":
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        assert isinstance(msg, dict)
        role = msg.get("role")
        if role == "user":
            text = _truncate(text_of(msg.get("content"), "\n"))
            return prefix + f'<span class="tree-role-user">user:</span> {esc(text)}'
        if role == "assistant":
            text = _truncate(text_of(msg.get("content"), "\n"))
            if text:
                body = esc(text)
            elif msg.get("stopReason") == "aborted":
                body = '<span class="tree-muted">(aborted)</span>'
            elif msg.get("errorMessage"):
                body = f'<span class="tree-error">{esc(_truncate(str(msg["errorMessage"])))}</span>'
            else:
                calls = [
                    c for c in msg.get("content") or [] if isinstance(c, dict) and c.get("type") == "toolCall"
                ]
                body = f'<span class="tree-muted">({len(calls)} tool call{"s" if len(calls) != 1 else ""})</span>'
            return prefix + f'<span class="tree-role-assistant">assistant:</span> {body}'
        if role == "toolResult":
            call = tool_calls.get(str(msg.get("toolCallId", "")))
            if call:
                args = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
                summary = tool_call_summary(str(call.get("name", "")), args or {})
            else:
                summary = f"[{msg.get('toolName') or 'tool'}]"
            return prefix + f'<span class="tree-role-tool">{esc(summary)}</span>'
        if role == "bashExecution":
            return (
                prefix
                + f'<span class="tree-role-tool">[bash]:</span> {esc(_truncate(str(msg.get("command", ""))))}'
            )
        return prefix + f'<span class="tree-muted">[{esc(role)}]</span>'
    if kind == "compaction":
        tokens = entry.get("tokensBefore", 0)
        k = round(tokens / 1000) if isinstance(tokens, int | float) else "?"
        return prefix + f'<span class="tree-compaction">[compaction: {k}k tokens]</span>'
    if kind == "branch_summary":
        summary = esc(_truncate(str(entry.get("summary", ""))))
        return prefix + f'<span class="tree-branch-summary">[branch summary]:</span> {summary}'
    if kind == "custom_message":
        content = entry.get("content")
        text = content if isinstance(content, str) else text_of(content, "\n")
        return (
            prefix
            + f'<span class="tree-custom">[{esc(entry.get("customType", ""))}]:</span> {esc(_truncate(text))}'
        )
    if kind == "model_change":
        return prefix + f'<span class="tree-muted">[model: {esc(entry.get("modelId", ""))}]</span>'
    if kind == "thinking_level_change":
        return prefix + f'<span class="tree-muted">[thinking: {esc(entry.get("thinkingLevel", ""))}]</span>'
    if kind == "label":
        target = esc(entry.get("targetId", ""))
        return (
            prefix
            + f'<span class="tree-muted">[label {target}: {esc(entry.get("label") or "cleared")}]</span>'
        )
    if kind == "session_info":
        return prefix + f'<span class="tree-muted">[name: {esc(entry.get("name", ""))}]</span>'
    return prefix + f'<span class="tree-muted">[{esc(kind)}]</span>'


def tool_calls_by_id(entries: list[Entry]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        msg = e.get("message") if e.get("type") == "message" else None
        if isinstance(msg, dict) and msg.get("role") == "assistant" and isinstance(msg.get("content"), list):
            for block in msg["content"]:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    out[str(block.get("id", ""))] = block
    return out


def render_tree(entries: list[Entry], active_ids: set[str], leaf_id: str | None) -> str:
    tool_calls = tool_calls_by_id(entries)
    rows = []
    for row in flatten_tree(entries, active_ids):
        eid = str(row.entry["id"])
        classes = ["tree-node"]
        if row.on_active_path:
            classes.append("active-path")
        if eid == leaf_id:
            classes.append("current")
        if row.entry.get("type") in SETTINGS_TYPES:
            classes.append("tree-setting")
        rows.append(
            f'<a class="{" ".join(classes)}" href="?leafId={esc(eid)}" data-id="{esc(eid)}" '
            f'style="padding-left:{0.4 + row.depth * 1.1:.1f}em">{node_html(row.entry, row.label, tool_calls)}</a>'
        )
    return "\n".join(rows)
