"""Bookmarks: ``/bookmark NAME`` notes the current point of the conversation; ``#`` completes bookmark
names in the editor; each bookmark shows in the conversation as a card, live and when the session is
resumed; and a header above the conversation counts them.

Shows the UI hooks beyond dialogs: ``pi.append_entry`` with ``pi.register_entry_renderer`` (a custom entry
drawn in the chat, never sent to the model), ``ctx.ui.add_autocomplete_provider`` (stacked on the editor's
own completion: it delegates to ``current`` when the text is not a ``#name``), ``ctx.ui.set_header`` and a
Markdown transformer that turns ``#name`` in the answers into bold text (display only).

    pi -e examples/extensions/bookmarks.py
    > /bookmark before-refactor
    > go back to #before-refactor and summarise what changed since
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from pi_app.extensions import (
    AutocompleteItem,
    AutocompleteProvider,
    AutocompleteSuggestions,
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
)

ENTRY_TYPE = "bookmark"
_TAG = re.compile(r"(?:^|\s)#([\w-]*)$")


def register(pi: ExtensionAPI) -> None:
    names: list[str] = []

    def reload_names(ctx: ExtensionContext) -> None:
        names.clear()
        for entry in ctx.session_manager.get_branch():
            if entry.get("type") == "custom" and entry.get("customType") == ENTRY_TYPE:
                names.append(str((entry.get("data") or {}).get("name", "")))
        if ctx.has_ui:
            ctx.ui.set_header([f"bookmarks: {len(names)}"] if names else None)

    class Bookmarks:
        def __init__(self, current: AutocompleteProvider) -> None:
            self.current = current

        def get_suggestions(
            self, lines: list[str], cursor_line: int, cursor_col: int, force: bool
        ) -> AutocompleteSuggestions | None:
            match = _TAG.search(lines[cursor_line][:cursor_col])
            if match is None:
                return self.current.get_suggestions(lines, cursor_line, cursor_col, force)
            typed = match.group(1)
            items = [AutocompleteItem(f"#{n}", f"#{n}", "bookmark") for n in names if n.startswith(typed)]
            return AutocompleteSuggestions(f"#{typed}", items)

    provider_added = False  # once: /new, /resume and /fork keep the extension (and its provider)

    def on_start(event: Any, ctx: ExtensionContext) -> None:
        nonlocal provider_added
        reload_names(ctx)
        if ctx.has_ui and not provider_added:
            ctx.ui.add_autocomplete_provider(Bookmarks)
            provider_added = True

    pi.on("session_start", on_start)
    pi.on("session_tree", lambda event, ctx: reload_names(ctx))

    async def bookmark(args: str, ctx: ExtensionCommandContext) -> None:
        name = args.strip().lstrip("#").replace(" ", "-")
        if not name:
            ctx.ui.notify("Usage: /bookmark NAME", "warning")
            return
        pi.append_entry(ENTRY_TYPE, {"name": name})
        reload_names(ctx)

    pi.register_command("bookmark", bookmark, description="Bookmark this point of the conversation")

    def card(entry: Any, expanded: bool) -> Text:
        return Text(f"🔖 #{entry.data.get('name', '?')}", style="bold magenta")

    pi.register_entry_renderer(ENTRY_TYPE, card)

    def bold_tags(markdown: str, context: Any) -> str:
        known = set(names)
        return re.sub(r"#([\w-]+)", lambda m: f"**#{m[1]}**" if m[1] in known else m[0], markdown)

    pi.register_markdown_transformer(bold_tags, message_types=["assistant"])
