"""Which files a stretch of conversation read or changed, carried forward through summaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FileOps:
    """The paths a stretch of conversation read, wrote and edited (from tool calls and earlier summaries)."""

    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_from_message(self, message: Any) -> None:
        if getattr(message, "role", None) != "assistant":
            return
        for block in message.content:
            if block.type != "toolCall":
                continue
            path = block.arguments.get("path") if isinstance(block.arguments, dict) else None
            if not isinstance(path, str) or not path:
                continue
            if block.name == "read":
                self.read.add(path)
            elif block.name == "write":
                self.written.add(path)
            elif block.name == "edit":
                self.edited.add(path)

    def add_from_details(self, details: Any) -> None:
        """Fold in a previous summary's ``details`` ({readFiles, modifiedFiles})."""
        if not isinstance(details, dict):
            return
        for f in details.get("readFiles") or ():
            if isinstance(f, str):
                self.read.add(f)
        for f in details.get("modifiedFiles") or ():
            if isinstance(f, str):
                self.edited.add(f)

    def lists(self) -> tuple[list[str], list[str]]:
        """(read-only files, modified files), both sorted."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""
