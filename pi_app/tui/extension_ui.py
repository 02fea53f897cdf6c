"""``ctx.ui`` in the interactive app: extension dialogs as modal screens, notices in the chat, widgets in
their slots (each behind an error boundary naming its extension), custom entries in the conversation and
autocomplete providers stacked on the editor's own."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pi_app.ai.abort import AbortSignal
from pi_app.extensions.definitions import ShortcutDefinition
from pi_app.extensions.types import (
    AutocompleteFactory,
    AutocompleteItem,
    AutocompleteProvider,
    AutocompleteSuggestions,
    NotifyLevel,
)
from pi_app.tui.keybindings import EXTENSION_ID_PREFIX, translate_key
from widgets.completion import CompletionItem, CompletionProvider, Completions
from widgets.custom_render import CustomRenderers, ExtensionBoundary, ToolRenderers
from widgets.extension_slots import ExtensionStatus, ExtensionWidgetArea
from widgets.notices import ErrorNotice, Notice

if TYPE_CHECKING:
    from pi_app.extensions.runner import ExtensionRunner
    from pi_app.tui.context import AppContext

log = logging.getLogger(__name__)


class ExtensionDialog(ModalScreen[Any]):
    """A title, an optional message, then a list to choose from, a one-line input or a text area."""

    DEFAULT_CSS = """
    ExtensionDialog { align: center middle; background: $background 40%; }
    ExtensionDialog > Vertical {
        width: 70%; max-width: 100; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ExtensionDialog .title { text-style: bold; color: $accent; }
    ExtensionDialog .message { color: $text-muted; margin-bottom: 1; }
    ExtensionDialog .countdown { color: $text-muted; height: auto; display: none; }
    ExtensionDialog.-timed .countdown { display: block; }
    ExtensionDialog OptionList { height: auto; max-height: 16; border: none; }
    ExtensionDialog Input { border: tall $accent; height: 3; }
    ExtensionDialog TextArea { height: 10; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Done", show=False)]
    AUTO_FOCUS = "OptionList, Input, TextArea"  # not the app's "#editor": the dialog's own field

    def __init__(
        self,
        title: str,
        message: str = "",
        *,
        options: Sequence[str] | None = None,
        placeholder: str = "",
        prefill: str | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        self.timeout = timeout
        self._left = 0
        self.title_text, self.message, self.options = title, message, options
        self.placeholder, self.prefill = placeholder, prefill

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title", markup=False)
            yield Static("", classes="countdown", markup=False)
            if self.message:
                yield Static(self.message, classes="message", markup=False)
            if self.options is not None:
                yield OptionList(*[Option(o, id=str(i)) for i, o in enumerate(self.options)])
            elif self.prefill is not None:
                yield TextArea(self.prefill)
            else:
                yield Input(placeholder=self.placeholder)

    def on_mount(self) -> None:
        if self.timeout is not None:  # show the seconds left before the dialog answers by itself
            self.add_class("-timed")
            self._left = int(self.timeout + 0.999)
            self._show_left()
            self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        self._left = max(self._left - 1, 0)
        self._show_left()

    def _show_left(self) -> None:
        self.query_one(".countdown", Static).update(f"(closes in {self._left}s)")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        assert self.options is not None
        self.dismiss(self.options[int(event.option.id or 0)])

    @on(Input.Submitted)
    def _entered(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_save(self) -> None:
        if self.prefill is not None:
            self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExtensionSlots(Protocol):
    """The app's places for extension UI (PiApp has them)."""

    extension_status: ExtensionStatus
    widgets_above: ExtensionWidgetArea
    widgets_below: ExtensionWidgetArea
    header_area: ExtensionWidgetArea  # above the conversation (set_header)

    @property
    def footer(self) -> Widget: ...

    @property
    def header(self) -> Widget | None: ...  # pi's startup header, when shown

    def set_app_title(self, title: str) -> None: ...


@dataclass
class _Shared:
    """What every extension's view of the app's UI shares."""

    title: str = "pi"
    footer: Widget | None = None  # an extension's replacement footer (in its boundary)


class TuiExtensionUI:
    def __init__(
        self, app: AppContext, host: ExtensionSlots, owner: str = "extension", shared: _Shared | None = None
    ) -> None:
        self.app = app
        self.host = host
        self.owner = owner  # the extension acting (named by error lines)
        self._shared = shared or _Shared()

    def for_extension(self, name: str) -> TuiExtensionUI:
        return TuiExtensionUI(self.app, self.host, name, self._shared)

    def _run(self, work: Coroutine[Any, Any, Any]) -> None:
        self.app.run_worker(work, group="extension-ui", exit_on_error=False)

    async def _ask(
        self, screen: Screen[Any], timeout: float | None, signal: AbortSignal | None = None
    ) -> Any:
        """Push ``screen`` and wait for its result; a timeout or ``signal`` closes it with None."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def done(value: Any) -> None:
            if not answer.done():
                answer.set_result(value)

        def close() -> None:
            done(None)
            if screen.is_active:
                screen.dismiss(None)

        self.app.push_screen(screen, done)
        remove = signal.add_listener(lambda: loop.call_soon(close)) if signal is not None else None
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            close()
            return None
        finally:
            if remove is not None:
                remove()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        result = await self._ask(
            ExtensionDialog(title, options=list(options), timeout=timeout), timeout, signal
        )
        return result if isinstance(result, str) else None

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        dialog = ExtensionDialog(title, message, options=["Yes", "No"], timeout=timeout)
        return await self._ask(dialog, timeout, signal) == "Yes"

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        result = await self._ask(
            ExtensionDialog(title, placeholder=placeholder, timeout=timeout), timeout, signal
        )
        return result if isinstance(result, str) else None

    async def editor(self, title: str, prefill: str = "") -> str | None:
        result = await self._ask(
            ExtensionDialog(title, "Ctrl+S to finish, Esc to cancel", prefill=prefill), None
        )
        return result if isinstance(result, str) else None

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        notice = (
            ErrorNotice(message)
            if level == "error"
            else Notice(message, kind="warning" if level == "warning" else "info")
        )
        self._run(self.app.chat.add(notice))

    def set_status(self, key: str, text: str | None) -> None:
        self.host.extension_status.set_entry(key, text)

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        """A Textual widget, lines of text or Rich renderables; ``None`` removes it."""
        area = (
            self.host.widgets_below
            if placement in ("below_editor", "belowEditor")
            else self.host.widgets_above
        )
        self._run(area.set_entry(key, content, self.owner))

    def set_footer(self, widget: Widget | None) -> None:
        """Replace the footer with ``widget``; None restores pi's own."""
        self._run(self._swap_footer(widget))

    async def _swap_footer(self, widget: Widget | None) -> None:
        footer = self.host.footer
        shared = self._shared
        if shared.footer is not None:
            await shared.footer.remove()
            shared.footer = None
        footer.display = widget is None
        if widget is not None:
            shared.footer = ExtensionBoundary(self.owner, widget)
            parent = footer.parent
            assert isinstance(parent, Widget)  # the screen
            await parent.mount(shared.footer, after=footer)

    async def clear_extension_ui(self) -> None:
        """The extensions are being unloaded (``/reload``, a session switch): their widgets, status
        entries, header, footer and title go; pi's own header and footer come back."""
        host = self.host
        for area in (host.widgets_above, host.widgets_below, host.header_area):
            for key in area.keys:
                await area.set_entry(key, None)
        for key in host.extension_status.entries:
            host.extension_status.set_entry(key, None)
        await self._swap_footer(None)
        if (startup := host.header) is not None:
            startup.display = True
        if self._shared.title != _Shared.title:
            self._shared.title = _Shared.title
            host.set_app_title(_Shared.title)

    def set_header(self, widget: Widget | list[str] | None) -> None:
        """Show ``widget`` (or lines) above the conversation instead of pi's startup header; None restores it."""
        self._run(self._swap_header(widget))

    async def _swap_header(self, widget: Widget | list[str] | None) -> None:
        await self.host.header_area.set_entry("header", widget, self.owner)
        startup = self.host.header
        if startup is not None:
            startup.display = widget is None

    def show_entry(self, entry: Any) -> None:
        """A custom entry just appended: drawn at the end of the conversation by its extension's renderer."""
        self._run(self.app.chat.add_entry(entry))

    def add_autocomplete_provider(self, factory: AutocompleteFactory) -> None:
        """The runtime has recorded ``factory``: rebuild the editor's completion with it on top."""
        self.app.refresh_completions()

    async def custom(self, screen: Screen[Any], *, timeout: float | None = None) -> Any:
        """Push an extension's own Textual screen; its ``dismiss(value)`` is the result."""
        return await self._ask(screen, timeout)

    def set_title(self, title: str) -> None:
        """The app's title (``App.title``). Textual has no public way to write the terminal's title (OSC 2),
        so the terminal window keeps its own."""
        self._shared.title = title
        self.host.set_app_title(title)

    def set_editor_text(self, text: str) -> None:
        self.app.editor.load_text(text)

    def get_editor_text(self) -> str:
        return self.app.editor.text


def stack_completions(
    base: CompletionProvider, factories: Sequence[tuple[str, AutocompleteFactory]]
) -> CompletionProvider:
    """The editor's provider (slash commands, ``@`` files, Tab paths) with each extension's ``factory(current)``
    stacked on it, in the order added."""
    provider: CompletionProvider = base
    for owner, factory in factories:
        try:
            provider = _AsEditorProvider(owner, factory(_AsExtensionProvider(provider)), provider)
        except Exception:
            log.warning("autocomplete provider of %s failed to build", owner, exc_info=True)
    return provider


class _AsExtensionProvider:
    """The editor's provider as an extension sees it (``current`` in pi's terms)."""

    def __init__(self, inner: CompletionProvider) -> None:
        self.inner = inner

    def get_suggestions(
        self, lines: list[str], cursor_line: int, cursor_col: int, force: bool
    ) -> AutocompleteSuggestions | None:
        line = lines[cursor_line] if cursor_line < len(lines) else ""
        found = self.inner.get_completions(line[:cursor_col], cursor_line == 0, force)
        if found is None:
            return None
        items = [AutocompleteItem(i.value, i.label, i.description) for i in found.items]
        return AutocompleteSuggestions(found.prefix, items)


class _AsEditorProvider:
    """An extension's provider as the editor asks it; one that raises falls back to the provider below."""

    def __init__(self, owner: str, provider: AutocompleteProvider, below: CompletionProvider) -> None:
        self.owner, self.provider, self.below = owner, provider, below

    def get_completions(
        self, line_before_cursor: str, at_line_start: bool, force: bool
    ) -> Completions | None:
        # The editor hands over the line left of the cursor; that is the only line pi's providers read.
        try:
            found = self.provider.get_suggestions([line_before_cursor], 0, len(line_before_cursor), force)
        except Exception:
            log.warning("autocomplete provider of %s failed", self.owner, exc_info=True)
            return self.below.get_completions(line_before_cursor, at_line_start, force)
        if found is None or not found.items:
            return None
        items = [CompletionItem(i.value, i.label or i.value, i.description) for i in found.items]
        return Completions(items, found.prefix)


def extension_renderers(runner: ExtensionRunner) -> CustomRenderers:
    """The conversation's lookups into what the loaded extensions render themselves."""

    def tool(name: str) -> ToolRenderers | None:
        found = runner.tool_renderers(name)
        if found is None:
            return None
        owner, definition = found
        return ToolRenderers(owner, definition.render_call, definition.render_result)

    def entries_by_message() -> dict[int, list[Any]]:
        if not runner.has_entry_renderers():
            return {}
        return entries_after_messages(runner)

    def markdown(text: str, message_type: str, streaming: bool) -> str:
        return runner.transform_markdown(text, message_type, streaming)

    return CustomRenderers(
        tool=tool,
        message=runner.message_renderer,
        entry=runner.entry_renderer,
        entries_by_message=entries_by_message,
        markdown=markdown,
    )


def entries_after_messages(runner: ExtensionRunner) -> dict[int, list[Any]]:
    """The custom entries on the session's branch that an extension draws, keyed by the index (in the
    displayed messages) of the message they follow; -1: before the first (compacted away, or first)."""
    manager = runner.require_session().session_manager
    context = manager.build_session_context(context_edits=False)
    position = {entry_id: i for i, entry_id in enumerate(context.entry_ids)}
    out: dict[int, list[Any]] = {}
    last = -1
    for raw in manager.get_branch():
        entry_id = raw["id"]
        if entry_id in position:
            last = max(last, position[entry_id])
        elif raw.get("type") == "custom" and runner.entry_renderer(str(raw.get("customType"))) is not None:
            entry = manager.get_entry(entry_id)
            if entry is not None:
                out.setdefault(last, []).append(entry)
    return out


# ====================================================================== extension shortcuts and keybindings.json
@dataclass(frozen=True)
class BoundShortcut:
    """An extension shortcut with the keys it answers to (keybindings.json's, else the registered key)."""

    extension: str
    shortcut: ShortcutDefinition
    keys: tuple[str, ...]

    @property
    def id(self) -> str:
        return shortcut_id(self.extension, self.shortcut)


def shortcut_id(extension: str, shortcut: ShortcutDefinition) -> str:
    return f"{EXTENSION_ID_PREFIX}{extension}.{shortcut.name or shortcut.key}"


def extension_key_overrides(path: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The ``ext.*`` entries of keybindings.json → (id → Textual keys, warnings naming the file and entry).
    An unreadable or invalid file gives nothing here (the app's own loader reports it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}, []
    if not isinstance(data, dict):
        return {}, []
    out: dict[str, list[str]] = {}
    warnings: list[str] = []
    for entry_id, value in data.items():
        if not entry_id.startswith(EXTENSION_ID_PREFIX):
            continue
        raw = [value] if isinstance(value, str) else value
        if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
            warnings.append(f"{path}: {entry_id!r} must be a key or a list of keys; default kept")
            continue
        try:
            out[entry_id] = list(dict.fromkeys(translate_key(k) for k in raw))
        except ValueError as exc:
            warnings.append(f"{path}: {entry_id!r}: {exc}; default kept")
    return out, warnings


def bound_shortcuts(runner: ExtensionRunner, overrides: dict[str, list[str]]) -> list[BoundShortcut]:
    out = []
    for extension, shortcut in runner.shortcuts():
        keys = overrides.get(shortcut_id(extension, shortcut))
        if keys is None:
            try:
                keys = [translate_key(shortcut.key)]  # pi's key syntax; Textual's names pass unchanged
            except ValueError:
                keys = [shortcut.key]
        out.append(BoundShortcut(extension, shortcut, tuple(keys)))
    return out


def shortcut_clashes(bound: Sequence[BoundShortcut], used: dict[str, str]) -> list[str]:
    """Warnings for extension shortcuts on keys the app or editor uses (``used``: key → what) or that an
    earlier extension shortcut took; the earlier holder keeps the key."""
    taken = dict(used)
    out = []
    for b in bound:
        for key in b.keys:
            if key in taken:
                out.append(
                    f"Extension shortcut {key} ({b.extension}) is already bound to {taken[key]!r}; "
                    f'the earlier binding wins (remap it in keybindings.json as "{b.id}")'
                )
            else:
                taken[key] = f"{b.extension}: {b.shortcut.description or b.id}"
    return out
