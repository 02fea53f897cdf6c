"""``/mcp``: the configured MCP servers with state, tool count, exposure and source; the highlighted
server's tools and, when it failed, its error and the tail of its stderr. ``r`` reconnects it, ``e``
enables or disables it and ``x`` changes its exposure (both saved to the file that defines it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pi_app.extensions.builtin.mcp.status import McpActions, ServerRow
from pi_app.tui.screens.model_select import DIALOG_CSS

_STATE_STYLE = {
    "connected": "$pi-success",
    "failed": "$pi-error",
    "disconnected": "$pi-warning",
    "connecting": "$pi-dim",
    "disabled": "$pi-dim",
}


class McpScreen(ModalScreen[None]):
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="McpScreen")
        + """
    McpScreen #mcp-detail { color: $text; padding: 1 0 0 0; height: auto; max-height: 14; }
    """
    )
    BINDINGS = [
        Binding("escape,ctrl+c", "close", "Close", priority=True),
        Binding("r", "act('reconnect')", "Reconnect"),
        Binding("e", "act('toggle')", "Enable/disable"),
        Binding("x", "act('exposure')", "Exposure"),
    ]

    def __init__(self, actions: McpActions, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.actions = actions
        self.errors: list[str] = []
        self.shown: list[ServerRow] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", classes="title")
            yield OptionList(id="mcp-servers")
            yield Static("", id="mcp-detail", markup=False)
            yield Static(
                "↑↓ inspect · r reconnect · e enable/disable · x exposure · esc close", classes="hint"
            )

    def on_mount(self) -> None:
        self.refresh_rows()
        self.query_one(OptionList).focus()

    def refresh_rows(self) -> None:
        current = self._current()  # the highlight follows the server, not the position
        self.shown = self.actions.rows()
        self.errors = list(self.actions.errors)
        options = self.query_one(OptionList)
        options.clear_options()
        width = max([len(r.name) for r in self.shown] + [4])
        for row in self.shown:
            count = f"{len(row.tools)} tools" if row.state == "connected" else "-"
            options.add_option(
                Option(
                    Content.assemble(
                        f"{row.name:<{width}}  ",
                        Content.styled(f"{row.state:<12}", _STATE_STYLE.get(row.state, "")),
                        f" {count:<9} {row.exposure:<9} ",
                        Content.styled(f"{row.scope} · {row.source}", "$pi-dim"),
                    ),
                    id=row.name,
                )
            )
        for error in self.errors:
            options.add_option(Option(Content.styled(f"config error: {error}", "$pi-error"), disabled=True))
        if not self.shown and not self.errors:
            options.add_option(
                Option("No MCP servers configured (~/.pi/agent/mcp.json, .pi/mcp.json)", disabled=True)
            )
        if self.shown:
            names = [r.name for r in self.shown]
            options.highlighted = names.index(current.name) if current and current.name in names else 0
        self._show_detail()

    def _current(self) -> ServerRow | None:
        index = self.query_one(OptionList).highlighted
        return self.shown[index] if index is not None and index < len(self.shown) else None

    @on(OptionList.OptionHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        row = self._current()
        lines: list[str] = []
        if row is not None:
            lines.append(f"tools: {', '.join(row.tools) if row.tools else '(none)'}")
            if row.error:
                lines.append(f"error: {row.error}")
            lines += [f"stderr: {line}" for line in row.stderr]
        self.query_one("#mcp-detail", Static).update("\n".join(lines))

    def action_act(self, what: str) -> None:
        row = self._current()
        if row is None or (what == "reconnect" and row.state == "disabled"):
            return
        act: dict[str, Callable[[str], Awaitable[None]]] = {
            "reconnect": self.actions.reconnect,
            "toggle": self.actions.toggle_enabled,
            "exposure": self.actions.cycle_exposure,
        }
        self._run(act[what], row.name)

    @work(group="mcp-action", exclusive=True, exit_on_error=False)
    async def _run(self, action: Callable[[str], Awaitable[None]], name: str) -> None:
        try:
            await action(name)
        except (OSError, ValueError) as exc:
            self.notify(str(exc), severity="error")
        if self.is_attached:
            self.refresh_rows()

    def action_close(self) -> None:
        self.dismiss(None)
