"""``/mcp``: the configured MCP servers with state, tool count, exposure and source; the highlighted
server's tools and, when it failed, its error and the tail of its stderr. ``r`` reconnects it."""

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

from pi_app.extensions.builtin.mcp.status import ServerRow
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
        Binding("r", "reconnect", "Reconnect"),
    ]

    def __init__(
        self,
        rows: Callable[[], list[ServerRow]],
        reconnect: Callable[[str], Awaitable[None]],
        errors: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._rows = rows
        self._reconnect = reconnect
        self.errors = list(errors or [])
        self.shown: list[ServerRow] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", classes="title")
            yield OptionList(id="mcp-servers")
            yield Static("", id="mcp-detail", markup=False)
            yield Static("↑↓ inspect · r reconnect · esc close", classes="hint")

    def on_mount(self) -> None:
        self.refresh_rows()
        self.query_one(OptionList).focus()

    def refresh_rows(self) -> None:
        self.shown = self._rows()
        options = self.query_one(OptionList)
        highlighted = options.highlighted or 0
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
            options.highlighted = min(highlighted, len(self.shown) - 1)
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

    def action_reconnect(self) -> None:
        row = self._current()
        if row is not None and row.state != "disabled":
            self._reconnect_worker(row.name)

    @work(group="mcp-reconnect", exclusive=True, exit_on_error=False)
    async def _reconnect_worker(self, name: str) -> None:
        await self._reconnect(name)
        if self.is_attached:
            self.refresh_rows()

    def action_close(self) -> None:
        self.dismiss(None)
