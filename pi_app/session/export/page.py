"""Assembling the self-contained page: theme CSS, header with stats, tree, messages, embedded JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..jsontext import dumps
from ..store.context import index_entries, labels_of, path_to_root
from .assets import CSS, JS
from .render import Entry, esc, render_entry, tool_results_by_call
from .tree import render_tree


@dataclass
class SessionStats:
    """Counts, token totals, cost and models over every branch of a session, for the export's header."""

    user: int = 0
    assistant: int = 0
    tool_results: int = 0
    custom: int = 0
    compactions: int = 0
    branch_summaries: int = 0
    tool_calls: int = 0
    tokens: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0)
    )
    cost: float = 0.0
    models: list[str] = field(default_factory=list)


def compute_stats(entries: Sequence[Entry]) -> SessionStats:
    """Counts, tokens and cost over the whole tree (every branch), as pi's export header shows them."""
    st = SessionStats()
    for e in entries:
        kind = e.get("type")
        if kind == "compaction":
            st.compactions += 1
        elif kind == "branch_summary":
            st.branch_summaries += 1
        elif kind == "custom_message":
            st.custom += 1
        if kind != "message" or not isinstance(e.get("message"), dict):
            continue
        msg = e["message"]
        role = msg.get("role")
        if role == "user":
            st.user += 1
        elif role == "toolResult":
            st.tool_results += 1
        elif role == "assistant":
            st.assistant += 1
            if msg.get("model"):
                name = f"{msg['provider']}/{msg['model']}" if msg.get("provider") else str(msg["model"])
                if name not in st.models:
                    st.models.append(name)
            usage = _dict_at(msg, "usage")
            for key in st.tokens:
                value = usage.get(key)
                st.tokens[key] += int(value) if isinstance(value, int | float) else 0
            cost = _dict_at(usage, "cost")
            st.cost += sum(float(cost.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))
            content = _list_at(msg, "content")
            st.tool_calls += sum(1 for c in content if isinstance(c, dict) and c.get("type") == "toolCall")
    return st


def _dict_at(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _list_at(obj: Mapping[str, Any], key: str) -> list[Any]:
    value = obj.get(key)
    return value if isinstance(value, list) else []


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def render_header(header: Mapping[str, Any], stats: SessionStats, name: str | None) -> str:
    msg_parts = [
        f"{n} {label}"
        for n, label in (
            (stats.user, "user"),
            (stats.assistant, "assistant"),
            (stats.tool_results, "tool results"),
            (stats.custom, "custom"),
            (stats.compactions, "compactions"),
            (stats.branch_summaries, "branch summaries"),
        )
        if n
    ]
    token_parts = [
        f"{arrow}{format_tokens(stats.tokens[key])}"
        for arrow, key in (("↑", "input"), ("↓", "output"), ("R", "cacheRead"), ("W", "cacheWrite"))
        if stats.tokens[key]
    ]
    rows = [
        ("Name", name),
        ("Date", header.get("timestamp")),
        ("Directory", header.get("cwd")),
        ("Models", ", ".join(stats.models) or "unknown"),
        ("Messages", ", ".join(msg_parts) or "0"),
        ("Tool Calls", stats.tool_calls),
        ("Tokens", " ".join(token_parts) or "0"),
        ("Cost", f"${stats.cost:.3f}"),
    ]
    info = "".join(
        f'<div class="info-item"><span class="info-label">{label}:</span><span class="info-value">{esc(value)}</span></div>'
        for label, value in rows
        if value is not None and value != ""
    )
    return f'<div class="header"><h1>Session: {esc(header.get("id", "unknown"))}</h1>{info}</div>'


def render_system_and_tools(system_prompt: str | None, tools: Sequence[Mapping[str, Any]] | None) -> str:
    html = ""
    if system_prompt:
        lines = system_prompt.count("\n") + 1
        html += (
            f'<details class="system-prompt"><summary>System Prompt ({lines} lines)</summary>'
            f"<pre>{esc(system_prompt)}</pre></details>"
        )
    if tools:
        items = []
        for tool in tools:
            params = _dict_at(tool, "parameters")
            props = _dict_at(params, "properties")
            required = _list_at(params, "required")
            param_html = "".join(
                f'<div class="tool-param"><span class="tool-param-name">{esc(pname)}</span> '
                f"{esc(prop.get('type', 'any') if isinstance(prop, dict) else 'any')} "
                f"{'required' if pname in required else 'optional'}"
                + (
                    f" — {esc(prop['description'])}"
                    if isinstance(prop, dict) and prop.get("description")
                    else ""
                )
                + "</div>"
                for pname, prop in props.items()
            )
            items.append(
                f'<div class="tool-item"><span class="tool-item-name">{esc(tool.get("name", ""))}</span> - '
                f'<span class="tool-item-desc">{esc(tool.get("description", ""))}</span>{param_html}</div>'
            )
        html += f'<details class="tools-list"><summary>Available Tools ({len(tools)})</summary>{"".join(items)}</details>'
    return html


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "</" (script end) and no "<!--"."""
    text = dumps(data)
    return (
        text.replace("<!--", "\\u003c!--")
        .replace("</", "<\\/")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def theme_css(theme_name: str) -> str:
    from pygments.formatters import HtmlFormatter

    import themes

    colors = dict(themes.token_colors(theme_name))
    colors.update({f"export{k[0].upper()}{k[1:]}": v for k, v in themes.export_colors(theme_name).items()})
    variables = "\n".join(f"  --{k}: {v};" for k, v in colors.items())
    syntax = HtmlFormatter(style=themes.pygments_style(theme_name)).get_style_defs(".hl")
    # Pygments paints its own background: keep the page's instead
    syntax = "\n".join(
        line for line in syntax.splitlines() if not line.startswith((".hl { background", "pre {"))
    )
    return f":root {{\n{variables}\n}}\n{CSS}\n{syntax}\n"


# pi's sidebar filters: (data-filter, label, what it keeps)
FILTERS = (
    ("default", "Default", "Hide settings entries"),
    ("no-tools", "No-tools", "Default minus tool results"),
    ("user-only", "User", "Only user messages"),
    ("labeled-only", "Labeled", "Only labeled entries"),
    ("all", "All", "Show everything"),
)
FILTER_BUTTONS = "".join(
    f'<button type="button" class="filter-btn{" active" if key == "default" else ""}" data-filter="{key}" '
    f'title="{title}" aria-pressed="{"true" if key == "default" else "false"}">{label}</button>'
    for key, label, title in FILTERS
)


def build_page(
    header: Mapping[str, Any],
    entries: list[Entry],
    leaf_id: str | None,
    theme_name: str,
    system_prompt: str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    by_id = index_entries(entries)
    active = path_to_root(by_id, leaf_id)
    active_ids = {e["id"] for e in active}
    results = tool_results_by_call(entries)
    rendered = {e["id"]: html for e in entries if (html := render_entry(e, results))}
    name = next(
        (str(e.get("name")) for e in reversed(entries) if e.get("type") == "session_info" and e.get("name")),
        None,
    )
    payload = {
        "header": dict(header),
        "entries": entries,
        "leafId": leaf_id,
        "systemPrompt": system_prompt,
        "tools": [dict(t) for t in tools] if tools else None,
        "rendered": rendered,
        "labels": labels_of(entries),
    }
    messages = "\n".join(rendered[e["id"]] for e in active if e["id"] in rendered)
    title = f"Session {header.get('id', '')}" + (f" - {name}" if name else "")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{esc(title)}</title>
<style>
{theme_css(theme_name)}
</style>
</head>
<body>
<div id="app">
<aside id="sidebar"><h2>Session tree ({len(entries)} entries) — click an entry to show its branch</h2>
<div id="tree-controls" hidden>
<input type="search" id="tree-search" placeholder="Search..." aria-label="Search the session tree">
<div id="tree-filters" role="group" aria-label="Tree filter">{FILTER_BUTTONS}</div>
</div>
{render_tree(entries, active_ids, leaf_id)}
<div id="tree-status"></div></aside>
<main id="content">
{render_header(header, compute_stats(entries), name)}
{render_system_and_tools(system_prompt, tools)}
<div id="messages">
{messages}
</div>
</main>
</div>
<script id="session-data" type="application/json">{script_json(payload)}</script>
<script>{JS}</script>
</body>
</html>
"""
