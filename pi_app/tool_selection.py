"""Which tools are active under pi's tool flags (``--tools``, ``-xt``, ``-nt``, ``-nbt``): at startup over the
built-ins (:func:`resolve_tools`) and for a tool that appears later, an extension's or an MCP server's
(:func:`tool_selected`). Pure; no pydantic, so ``pi --help`` stays fast."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

BUILTIN_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")


@dataclass
class ToolSelection:
    """The tool flags as given: ``-t`` is an allowlist (``allow``) or only ``+name``/``-name`` changes to
    the defaults (``add``/``remove``); ``-xt`` patterns are removed last; ``-nt``/``-nbt`` empty the base."""

    allow: list[str] | None = None
    add: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    no_tools: bool = False
    no_builtin_tools: bool = False


def _pattern(entry: str) -> re.Pattern[str]:
    """``*`` matches any characters; nothing else is special."""
    return re.compile("^" + ".*".join(re.escape(part) for part in entry.split("*")) + "$")


MCP_RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})


def tool_selected(sel: ToolSelection, name: str) -> bool:
    """Whether a tool that appears after startup (an extension's, an MCP server's) may be active under the
    tool flags, as pi: ``-nt`` none; an allowlist names or matches it — except that MCP tools (``mcp__*`` and
    the resource tools) are kept until an entry starts with ``mcp__``; ``-xt`` patterns and ``-name`` drop it."""
    if sel.no_tools:
        return False
    is_mcp = name.startswith("mcp__") or name in MCP_RESOURCE_TOOLS
    if sel.allow is not None and (not is_mcp or any(e.startswith("mcp__") for e in sel.allow)):
        if not any(_pattern(e).match(name) for e in sel.allow):
            return False
    if name in sel.remove or any(_pattern(e).match(name) for e in sel.exclude):
        return False
    return True


def resolve_tools(
    sel: ToolSelection, base: Sequence[str] = DEFAULT_TOOLS, available: Sequence[str] = BUILTIN_TOOLS
) -> tuple[list[str], list[str]]:
    """The enabled tool names for ``sel`` on top of ``base`` (the defaults, or a resumed session's tools),
    and warnings for names that match no available tool."""
    warnings: list[str] = []
    known = list(available)

    def unknown(name: str) -> None:
        warnings.append(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(known)}')

    start = [] if sel.no_tools or sel.no_builtin_tools else [t for t in base if t in known]
    if sel.allow is not None:
        names: list[str] = []
        for entry in sel.allow:
            matches = [t for t in known if _pattern(entry).match(t)] if "*" in entry else [entry]
            if "*" not in entry and entry not in known:
                unknown(entry)
                continue
            names += [m for m in matches if m not in names]
    else:
        names = list(start)
        for name in sel.add:
            if name not in known:
                unknown(name)
            elif name not in names:
                names.append(name)
        names = [t for t in names if t not in sel.remove]
    if sel.exclude:
        patterns = [_pattern(e) for e in sel.exclude]
        names = [t for t in names if not any(p.match(t) for p in patterns)]
    return names, warnings
