"""The sidebar: the whole session tree flattened into rows, indented only where the tree forks.

Deep trees (forks nested more than INDENT_CAP levels) follow /tree's spine layout: the active path at no
indent, each side branch right after its fork point as a folded ``<details>`` stub ("└⊞ 48 entries · …",
readable and openable without JavaScript), indentation inside capped at INDENT_CAP levels with the real depth
shown as a marker (``12›``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_app.ai.text import text_of

from ..jsontext import dumps
from ..store.context import build_tree, labels_of
from .render import Entry, esc, shorten_path

SETTINGS_TYPES = ("label", "custom", "model_change", "thinking_level_change")


INDENT_CAP = 8  # as /tree: indent levels drawn at most


@dataclass
class TreeRow:
    """One row of the export's sidebar tree: an entry, its depth and label, and folded-branch markers."""

    entry: Entry
    depth: int  # the real indent level
    label: str | None
    on_active_path: bool
    stub_size: int = 0  # > 0: a folded side branch of this many entries starts at this row
    stub_closes: bool = False  # the side branch that holds this row ends after it


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
    if not any(contains.values()) or max((r.depth for r in rows), default=0) <= INDENT_CAP:
        return rows
    sizes: dict[str, int] = {}
    for node in reversed(order):
        sizes[node.entry["id"]] = 1 + sum(sizes[c.entry["id"]] for c in node.children)
    return _spine_rows(roots, contains, active_ids, sizes)


def _spine_rows(
    roots: list[Any], contains: dict[str, bool], active_ids: set[str], sizes: dict[str, int]
) -> list[TreeRow]:
    """The spine layout: path nodes at depth 0, each side branch (a stub) listed right after its fork."""
    rows: list[TreeRow] = []

    def side(root: Any) -> None:
        start = len(rows)
        work = [(root, 1)]
        while work:
            node, depth = work.pop()
            rows.append(TreeRow(node.entry, depth, node.label, False))
            child_depth = depth + 1 if len(node.children) > 1 else depth
            work.extend((c, child_depth) for c in reversed(node.children))
        rows[start].stub_size = sizes[root.entry["id"]]
        rows[-1].stub_closes = True

    spine = [r for r in roots if contains[r.entry["id"]]]
    for r in roots:
        if not contains[r.entry["id"]]:
            side(r)
    node = spine[0] if spine else None
    while node is not None:
        rows.append(TreeRow(node.entry, 0, node.label, node.entry["id"] in active_ids))
        nxt = None
        for c in node.children:
            if contains[c.entry["id"]]:
                nxt = c
            else:
                side(c)
        node = nxt
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
    """The sidebar's ``<nav>``: one link per entry in tree order (parents first), which the page script
    filters and re-indents; ``data-layout`` says whether the deep-tree spine layout was used."""
    flat = flatten_tree(entries, active_ids)
    layout = "spine" if any(r.stub_size for r in flat) else "plain"
    return (
        f'<nav id="tree" data-layout="{layout}" data-indent-cap="{INDENT_CAP}">\n'
        f"{_tree_rows(entries, flat, leaf_id)}\n</nav>"
    )


def _tree_rows(entries: list[Entry], flat: list[TreeRow], leaf_id: str | None) -> str:
    tool_calls = tool_calls_by_id(entries)
    rows = []
    for row in flat:
        eid = str(row.entry["id"])
        classes = ["tree-node"]
        if row.on_active_path:
            classes.append("active-path")
        if eid == leaf_id:
            classes.append("current")
        if row.entry.get("type") in SETTINGS_TYPES:
            classes.append("tree-setting")
        shown = min(row.depth, INDENT_CAP)
        marker = f'<span class="tree-muted">{row.depth}›</span> ' if row.depth > INDENT_CAP else ""
        pad = f"{0.4 + shown * 1.1:.1f}em"
        if row.stub_size:
            # a folded side branch: the count toggles it, the entry itself still links to its branch
            size = f"{row.stub_size} {'entry' if row.stub_size == 1 else 'entries'}"
            rows.append(
                f'<details class="tree-stub"><summary style="padding-left:{pad};cursor:pointer;'
                f'white-space:nowrap;overflow:hidden;text-overflow:ellipsis">'
                f'<span class="tree-muted tree-stub-size">└⊞ {size} ·</span> '
                f'<a class="{" ".join(classes)}" href="?leafId={esc(eid)}" data-id="{esc(eid)}" '
                f'style="display:inline;padding:0">{node_html(row.entry, row.label, tool_calls)}</a></summary>'
            )
        else:
            rows.append(
                f'<a class="{" ".join(classes)}" href="?leafId={esc(eid)}" data-id="{esc(eid)}" '
                f'style="padding-left:{pad}">{marker}{node_html(row.entry, row.label, tool_calls)}</a>'
            )
        if row.stub_closes:
            rows.append("</details>")
    return "\n".join(rows)
