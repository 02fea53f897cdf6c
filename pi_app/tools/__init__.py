"""pi's built-in coding tools: read, bash, edit, write (active by default) and grep, find, ls.

tools = create_coding_tools(cwd, ToolOptions(bash_timeout=None))
everything = create_all_tools(cwd)          # {"read": ReadTool, ...}
"""

from __future__ import annotations

from pi_app.agent.tool import AgentTool
from pi_app.tools.bash import BashTool
from pi_app.tools.edit import EditTool
from pi_app.tools.find import FindTool
from pi_app.tools.grep import GrepTool
from pi_app.tools.ls import LsTool
from pi_app.tools.options import OutputLimits, ToolOptions
from pi_app.tools.read import ReadTool
from pi_app.tools.write import WriteTool

TOOL_CLASSES: dict[str, type[AgentTool]] = {
    "read": ReadTool,
    "bash": BashTool,
    "edit": EditTool,
    "write": WriteTool,
    "grep": GrepTool,
    "find": FindTool,
    "ls": LsTool,
}
ALL_TOOL_NAMES: tuple[str, ...] = tuple(TOOL_CLASSES)
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES: tuple[str, ...] = ("read", "grep", "find", "ls")


def create_tool(name: str, cwd: str, options: ToolOptions | None = None) -> AgentTool:
    try:
        cls = TOOL_CLASSES[name]
    except KeyError:
        raise ValueError(f"Unknown tool: {name}. Available: {', '.join(ALL_TOOL_NAMES)}") from None
    return cls(cwd, options or ToolOptions())  # type: ignore[call-arg]


def create_all_tools(cwd: str, options: ToolOptions | None = None) -> dict[str, AgentTool]:
    opts = options or ToolOptions()
    return {name: create_tool(name, cwd, opts) for name in ALL_TOOL_NAMES}


def create_coding_tools(
    cwd: str, options: ToolOptions | None = None, names: tuple[str, ...] | list[str] = DEFAULT_TOOL_NAMES
) -> list[AgentTool]:
    """The active tool set (default: read, bash, edit, write), in the order given."""
    opts = options or ToolOptions()
    return [create_tool(name, cwd, opts) for name in names]


def create_read_only_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    return create_coding_tools(cwd, options, READ_ONLY_TOOL_NAMES)


__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "OutputLimits",
    "ReadTool",
    "ToolOptions",
    "WriteTool",
    "create_all_tools",
    "create_coding_tools",
    "create_read_only_tools",
    "create_tool",
]
