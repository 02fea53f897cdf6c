"""Pluggable completion for the editor: ``/`` commands, ``@`` files, Tab path completion."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class CompletionItem:
    """One suggestion in the editor's completion list; ``value`` replaces the typed prefix."""

    value: str  # replaces the prefix
    label: str
    description: str = ""


@dataclass(frozen=True)
class Completions:
    """A provider's suggestions, and the text before the cursor that the chosen one replaces."""

    items: list[CompletionItem]
    prefix: str  # the text before the cursor that ``value`` replaces


class CompletionProvider(Protocol):
    def get_completions(
        self, line_before_cursor: str, at_line_start: bool, force: bool
    ) -> Completions | None:
        """Suggestions for the text left of the cursor; ``force`` is Tab (path completion)."""
        ...


@dataclass(frozen=True)
class SlashCommand:
    """A ``/`` command the editor offers for completion, with its description."""

    name: str
    description: str = ""


class DefaultCompletionProvider:
    """Slash commands at the start of the first line, ``@path`` fuzzy-ish file search, Tab paths."""

    def __init__(
        self,
        commands: list[SlashCommand],
        cwd: str | Path,
        max_items: int = 20,
        file_index: Any = None,
        arguments: Callable[[str, str], list[str]] | None = None,
    ) -> None:
        self.commands = commands
        # (command name, argument prefix) -> argument values: extension commands' completions
        self.arguments = arguments
        self.cwd = Path(cwd)
        self.max_items = max_items
        # A FileIndex (pi_app.tools.file_index) for fuzzy ``@`` search over the whole project; until it is
        # ready (or without one) ``@`` lists the typed directory.
        self.file_index = file_index

    def get_completions(
        self, line_before_cursor: str, at_line_start: bool, force: bool
    ) -> Completions | None:
        if at_line_start and line_before_cursor.startswith("/") and " " not in line_before_cursor:
            query = line_before_cursor[1:].lower()
            items = [
                CompletionItem(f"/{c.name}", f"/{c.name}", c.description)
                for c in self.commands
                if c.name.lower().startswith(query)
            ]
            return Completions(items[: self.max_items], line_before_cursor) if items else None
        if at_line_start and line_before_cursor.startswith("/") and self.arguments is not None:
            name, _, prefix = line_before_cursor[1:].partition(" ")
            values = self.arguments(name, prefix)
            items = [CompletionItem(v, v) for v in values[: self.max_items]]
            return Completions(items, prefix) if items else None
        word = line_before_cursor.split(" ")[-1] if line_before_cursor else ""
        if word.startswith("@"):
            index = self.file_index
            if index is not None and index.ready and word[1:]:
                found = index.search(word[1:], self.max_items)
                items = [CompletionItem("@" + path, path) for path in found]
            else:
                items = self._files(word[1:], at=True)
            return Completions(items, word) if items else None
        if force:
            items = self._files(word, at=False)
            return Completions(items, word) if items else None
        return None

    def _files(self, query: str, at: bool) -> list[CompletionItem]:
        directory, _, stem = query.rpartition("/")
        base = (self.cwd / directory) if directory else self.cwd
        try:
            names = sorted(os.listdir(os.path.expanduser(str(base))))
        except OSError:
            return []
        dirs: list[CompletionItem] = []
        files: list[CompletionItem] = []
        for name in names:
            if name == ".git" or not name.lower().startswith(stem.lower()):
                continue
            rel = f"{directory}/{name}" if directory else name
            is_dir = (base / name).is_dir()
            shown = rel + ("/" if is_dir else "")
            (dirs if is_dir else files).append(CompletionItem(("@" if at else "") + shown, shown))
        return (dirs + files)[: self.max_items]  # directories first, like pi


class CompletionMenu(OptionList):
    """The dropdown under the editor."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 10;
        border: none;
        padding: 0 1;
        background: $background;
    }
    CompletionMenu.-visible { display: block; }
    CompletionMenu > .option-list--option-highlighted { background: $pi-selected-bg; }
    """
    can_focus = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.completions: Completions | None = None

    @property
    def is_open(self) -> bool:
        return self.completions is not None

    def show(self, completions: Completions) -> None:
        self.completions = completions
        options = []
        for item in completions.items:
            label = Content(item.label)
            if item.description:
                label = Content.assemble(label, "  ", Content.styled(item.description, "$pi-muted"))
            options.append(Option(label))
        self.set_options(options)
        self.highlighted = 0
        self.add_class("-visible")

    def hide(self) -> None:
        self.completions = None
        self.remove_class("-visible")
        self.clear_options()

    def move(self, delta: int) -> None:
        if self.completions and self.completions.items:
            count = len(self.completions.items)
            self.highlighted = ((self.highlighted or 0) + delta) % count

    def selected(self) -> CompletionItem | None:
        if not self.completions or self.highlighted is None:
            return None
        return self.completions.items[self.highlighted]
