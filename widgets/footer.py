"""pi's footer: cwd/branch/session line, token/cost/context stats with the model on the right."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widget import Widget

from widgets.footer_format import FooterData, format_footer


class PiFooter(Widget):
    DEFAULT_CSS = """
    PiFooter { height: auto; padding: 0 1; color: $pi-dim; }
    """

    def __init__(self, data: FooterData | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data = data or FooterData(cwd="")

    def set_data(self, data: FooterData) -> None:
        self.data = data
        self.refresh(layout=True)

    def lines(self) -> list[Content]:
        return format_footer(self.data, max(self.content_size.width, 1))

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(format_footer(self.data, max(width, 1)))

    def render(self) -> Content:
        return Content("\n").join(self.lines())
