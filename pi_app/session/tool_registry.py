"""The tools a session can activate: the built-ins, made once and reused when reactivated (they share the
session's tool options), and the extra ones (SDK custom tools, extension tools) by name. An extra tool with a
built-in's name overrides that built-in. Which of them are active is the agent's state, not kept here."""

from __future__ import annotations

from pi_app.agent import AgentTool
from pi_app.tools import ALL_TOOL_NAMES, create_tool
from pi_app.tools.options import ToolOptions


class ToolRegistry:
    def __init__(self, cwd: str, options: ToolOptions, initial: list[AgentTool]) -> None:
        self._cwd = cwd
        self._options = options
        self._builtin: dict[str, AgentTool] = {}
        self._extra: dict[str, AgentTool] = {t.name: t for t in initial if t.name not in ALL_TOOL_NAMES}

    def all(self, active: list[AgentTool]) -> list[AgentTool]:
        """Every tool that can be activated: the built-ins (the ``active`` ones as they are), then the extras."""
        builtins = self._builtin
        for tool in active:
            if tool.name in ALL_TOOL_NAMES and tool.name not in self._extra:
                builtins.setdefault(tool.name, tool)
        out = [
            builtins.get(n) or builtins.setdefault(n, create_tool(n, self._cwd, self._options))
            for n in ALL_TOOL_NAMES
            if n not in self._extra  # an extension tool overrides a built-in
        ]
        return out + list(self._extra.values())

    def add(self, tool: AgentTool) -> None:
        """Register ``tool``, replacing one of the same name (built-in or not)."""
        self._extra[tool.name] = tool

    def remove(self, name: str) -> bool:
        """Forget an extra tool; False when there was none of that name (built-ins stay)."""
        return self._extra.pop(name, None) is not None

    def choose(self, names: list[str], active: list[AgentTool]) -> list[AgentTool]:
        """The tools named, in order, each once; unknown names are left out."""
        by_name = {t.name: t for t in self.all(active)}
        return [tool for name in dict.fromkeys(names) if (tool := by_name.get(name)) is not None]
