"""The startup header: name and version, key hints, loaded context files / skills / prompt templates.

Collapsed (the default) it is a few lines; ctrl+o (the global expand toggle) shows every hint and path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from widgets.footer_format import shorten_home

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession

KEY_HINTS: list[tuple[str, str]] = [
    ("escape", "to interrupt"),
    ("ctrl+c", "to clear"),
    ("ctrl+c twice", "to exit"),
    ("ctrl+d", "to exit (empty)"),
    ("ctrl+z", "to suspend"),
    ("ctrl+k", "to delete to end"),
    ("shift+tab", "to cycle thinking level"),
    ("ctrl+p/shift+ctrl+p", "to cycle models"),
    ("ctrl+l", "to select model"),
    ("ctrl+o", "to expand tools"),
    ("ctrl+t", "to expand thinking"),
    ("/", "for commands"),
    ("!", "to run bash"),
    ("!!", "to run bash (no context)"),
    ("alt+enter", "to queue follow-up"),
    ("alt+up", "to edit all queued messages"),
]
COLLAPSED_HINTS = 6


@dataclass
class HeaderData:
    """What the startup header shows: name and version, loaded context files, skills and templates, warnings."""

    name: str = "pi"
    version: str = ""
    context_files: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)  # names
    templates: list[str] = field(default_factory=list)  # names, shown as /name
    warnings: list[str] = field(default_factory=list)


def header_from_session(session: AgentSession, version: str, home: str | None = None) -> HeaderData:
    return HeaderData(
        version=version,
        context_files=[shorten_home(f.path, home) for f in session.context_files],
        skills=[s.name for s in session.skills],
        templates=[t.name for t in session.prompt_templates],
        warnings=list(session.resource_warnings),
    )


def _hint(key: str, text: str) -> Content:
    return Content.assemble(Content.styled(key, "$pi-dim"), " ", Content.styled(text, "$pi-muted"))


def _section(title: str, items: Sequence[str], expanded: bool, inline_limit: int = 8) -> list[Content]:
    head = Content.styled(f"[{title}]", "$pi-md-heading")
    if expanded:
        return [head, *(Content.styled(f"  {item}", "$pi-dim") for item in items)]
    shown = ", ".join(items[:inline_limit])
    more = f" (+{len(items) - inline_limit} more)" if len(items) > inline_limit else ""
    return [Content.assemble(head, " ", Content.styled(shown + more, "$pi-dim"))]


def header_lines(data: HeaderData, expanded: bool) -> list[Content]:
    logo = Content.assemble(
        Content.styled(data.name, "bold $pi-accent"), Content.styled(f" v{data.version}", "$pi-dim")
    )
    lines = [logo]
    hints = KEY_HINTS if expanded else KEY_HINTS[:COLLAPSED_HINTS]
    if expanded:
        lines.extend(_hint(k, t) for k, t in hints)
    else:
        row = Content(" · ").join(_hint(k, t) for k, t in hints)
        lines.append(Content.assemble(row, Content.styled(" · ctrl+o for more", "$pi-dim")))
    if data.context_files:
        lines.append(Content(""))
        lines.extend(_section("Context", data.context_files, expanded))
    if data.skills:
        lines.extend(_section("Skills", data.skills, expanded))
    if data.templates:
        lines.extend(_section("Prompts", [f"/{t}" for t in data.templates], expanded))
    for warning in data.warnings:
        lines.append(Content.styled(warning, "$pi-warning"))
    return lines


class StartupHeader(Static):
    DEFAULT_CSS = """
    StartupHeader { padding: 0 1; margin: 1 0 0 0; height: auto; }
    """

    expanded: var[bool] = var(False)

    def __init__(self, data: HeaderData, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data = data

    def on_mount(self) -> None:
        self._paint()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._paint()

    def _paint(self) -> None:
        self.update(Content("\n").join(header_lines(self.data, self.expanded)))
