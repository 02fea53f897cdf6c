"""User key bindings from pi's ``keybindings.json`` (spec §7.2; pi's docs/keybindings.md).

The file maps a pi action id to a key or a list of keys; both the snapshot ids (``cycleThinkingLevel``) and the
newer namespaced ids (``app.thinking.cycle``) are accepted. Loading is pure: bad input becomes a warning that
names the file and the entry, and the defaults stay.

The app's and the editor's bindings carry pi's namespaced ids (``Binding(id=...)``); :func:`apply_bindings`
turns the file into a Textual keymap for ``App.set_keymap``. Textual's keymap replaces a binding's keys but
cannot take them all away, so pi's ``[]`` (unbound) maps the binding to :data:`UNBOUND`, a key name no terminal
sends; actions pi ships without a key are declared on that name too. The editor's submit/follow-up/newline/
complete keys are dispatched by the editor itself ahead of typed text, so they are also handed to it.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingsMap, BindingType
from textual.dom import DOMNode
from textual.keys import KEY_NAME_REPLACEMENTS

from pi_app.tui.key_actions import SELECTION_ACTIONS, UNBOUND

EXTENSION_ID_PREFIX = "ext."

# pi's snapshot id → its newer namespaced id (both spellings are valid in keybindings.json).
NAMESPACED_IDS: dict[str, str] = {
    "cursorUp": "tui.editor.cursorUp",
    "cursorDown": "tui.editor.cursorDown",
    "cursorLeft": "tui.editor.cursorLeft",
    "cursorRight": "tui.editor.cursorRight",
    "cursorWordLeft": "tui.editor.cursorWordLeft",
    "cursorWordRight": "tui.editor.cursorWordRight",
    "cursorLineStart": "tui.editor.cursorLineStart",
    "cursorLineEnd": "tui.editor.cursorLineEnd",
    "jumpForward": "tui.editor.jumpForward",
    "jumpBackward": "tui.editor.jumpBackward",
    "pageUp": "tui.editor.pageUp",
    "pageDown": "tui.editor.pageDown",
    "deleteCharBackward": "tui.editor.deleteCharBackward",
    "deleteCharForward": "tui.editor.deleteCharForward",
    "deleteWordBackward": "tui.editor.deleteWordBackward",
    "deleteWordForward": "tui.editor.deleteWordForward",
    "deleteToLineStart": "tui.editor.deleteToLineStart",
    "deleteToLineEnd": "tui.editor.deleteToLineEnd",
    "yank": "tui.editor.yank",
    "yankPop": "tui.editor.yankPop",
    "undo": "tui.editor.undo",
    "newLine": "tui.input.newLine",
    "submit": "tui.input.submit",
    "tab": "tui.input.tab",
    "copy": "tui.input.copy",
    "selectUp": "tui.select.up",
    "selectDown": "tui.select.down",
    "selectPageUp": "tui.select.pageUp",
    "selectPageDown": "tui.select.pageDown",
    "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel",
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "suspend": "app.suspend",
    "cycleThinkingLevel": "app.thinking.cycle",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "selectModel": "app.model.select",
    "expandTools": "app.tools.expand",
    "toggleThinking": "app.thinking.toggle",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "externalEditor": "app.editor.external",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "pasteImage": "app.clipboard.pasteImage",
    "newSession": "app.session.new",
    "tree": "app.session.tree",
    "fork": "app.session.fork",
    "resume": "app.session.resume",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
    "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}
_SNAPSHOT_IDS = {v: k for k, v in NAMESPACED_IDS.items()}
# Ids pi introduced with namespaces only (no snapshot spelling): they are their own canonical id.
NAMESPACED_ONLY: frozenset[str] = frozenset(
    {
        "app.message.copy",
        *(
            f"tui.altScreen.{name}"
            for name in (
                "pageUp",
                "pageDown",
                "halfPageUp",
                "halfPageDown",
                "lineUp",
                "lineDown",
                "previousPrompt",
                "nextPrompt",
                "top",
                "bottom",
                "search",
                "searchNext",
                "searchPrevious",
                "searchClose",
            )
        ),
    }
)


if TYPE_CHECKING:
    from textual.app import App

    from widgets.editor import PromptEditor


@dataclass(frozen=True)
class Target:
    """Where a pi action lives here: the app's or the editor's bindings, and the Textual action string."""

    owner: str  # "app" | "editor" | "search" (the transcript search bar)
    action: str
    description: str


# The pi actions this app implements (keyed by snapshot id). Ids pi knows but that are not listed here are
# accepted silently; their keys stay as they are.
TARGETS: dict[str, tuple[Target, ...]] = {
    "interrupt": (
        Target("app", "interrupt", "Interrupt / restore queued messages"),
        Target("editor", "close_completion", "Close"),
    ),
    "clear": (Target("app", "clear", "Clear editor (twice: exit)"),),
    "exit": (Target("app", "exit_empty", "Exit (empty editor)"),),
    "suspend": (Target("app", "suspend", "Suspend"),),
    "externalEditor": (Target("app", "external_editor", "Edit the prompt in $VISUAL / $EDITOR"),),
    "cycleThinkingLevel": (Target("app", "cycle_thinking", "Cycle thinking level"),),
    "cycleModelForward": (Target("app", "cycle_model('forward')", "Next model"),),
    "cycleModelBackward": (Target("app", "cycle_model('backward')", "Previous model"),),
    "selectModel": (Target("app", "select_model", "Select model"),),
    "expandTools": (Target("app", "toggle_tools", "Expand/collapse tool output"),),
    "toggleThinking": (Target("app", "toggle_thinking", "Show/hide thinking blocks"),),
    "dequeue": (Target("app", "dequeue", "Edit all queued messages"),),
    "newSession": (Target("app", "slash_command('new')", "Start a new session"),),
    "tree": (Target("app", "slash_command('tree')", "Open the session tree"),),
    "fork": (Target("app", "slash_command('fork')", "Fork the session"),),
    "resume": (Target("app", "slash_command('resume')", "Resume a session"),),
    "submit": (Target("editor", "submit", "Submit"),),
    "followUp": (Target("editor", "follow_up", "Queue follow-up"),),
    "newLine": (Target("editor", "newline", "Newline"),),
    "tab": (Target("editor", "complete", "Complete"),),
    # Text editing keys are the TextArea's own bindings.
    "cursorUp": (Target("editor", "cursor_up", ""),),
    "cursorDown": (Target("editor", "cursor_down", ""),),
    "cursorLeft": (Target("editor", "cursor_left", ""),),
    "cursorRight": (Target("editor", "cursor_right", ""),),
    "cursorWordLeft": (Target("editor", "cursor_word_left", ""),),
    "cursorWordRight": (Target("editor", "cursor_word_right", ""),),
    "cursorLineStart": (Target("editor", "cursor_line_start", ""),),
    "cursorLineEnd": (Target("editor", "cursor_line_end", ""),),
    "pageUp": (Target("editor", "cursor_page_up", ""),),
    "pageDown": (Target("editor", "cursor_page_down", ""),),
    "deleteCharBackward": (Target("editor", "delete_left", ""),),
    "deleteCharForward": (Target("editor", "delete_right", ""),),
    "deleteWordBackward": (Target("editor", "delete_word_left", ""),),
    "deleteWordForward": (Target("editor", "delete_word_right", ""),),
    "deleteToLineStart": (Target("editor", "delete_to_start_of_line", ""),),
    "deleteToLineEnd": (Target("editor", "delete_to_end_of_line_or_delete_line", ""),),
    "undo": (Target("editor", "undo", ""),),
    "app.message.copy": (
        Target("app", "select_messages", "Select a message (c/enter: copy it, b: a code block)"),
    ),
    **{
        f"tui.altScreen.{name}": (Target("app", f"transcript('{move}')", ""),)
        for name, move in (
            ("pageUp", "page_up"),
            ("pageDown", "page_down"),
            ("halfPageUp", "half_page_up"),
            ("halfPageDown", "half_page_down"),
            ("lineUp", "line_up"),
            ("lineDown", "line_down"),
            ("previousPrompt", "previous_prompt"),
            ("nextPrompt", "next_prompt"),
            ("top", "top"),
            ("bottom", "bottom"),
            ("search", "search"),
        )
    },
    # the search bar's own keys (widgets.transcript_search)
    "tui.altScreen.searchNext": (Target("search", "step(1)", ""),),
    "tui.altScreen.searchPrevious": (Target("search", "step(-1)", ""),),
    "tui.altScreen.searchClose": (Target("search", "close", ""),),
}
# Editor actions dispatched from PromptEditor._on_key (ahead of typed text) rather than through bindings.
_EDITOR_DISPATCHED = frozenset({"submit", "follow_up", "newline", "complete"})

_MODIFIERS = ("alt", "ctrl", "shift")  # Textual writes modifiers in this (sorted) order
_NAMED_KEYS = {
    "escape": "escape",
    "esc": "escape",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "space": "space",
    "backspace": "backspace",
    "delete": "delete",
    "insert": "insert",
    "clear": "clear",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pagedown": "pagedown",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 13)},
}
_SYMBOLS = set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?")


def _symbol_key(char: str) -> str:
    """Textual's key name for a printable symbol, as its key events spell it: the Unicode name in lower case
    with ``_`` for spaces and dashes, shortened by Textual's public ``KEY_NAME_REPLACEMENTS`` (``-`` -> ``minus``)."""
    name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


def translate_key(key: str) -> str:
    """pi's ``modifier+key`` syntax → the Textual key name (``ctrl+shift+p``, ``alt+enter``, ``ctrl+minus``).

    Raises ValueError for a string pi's key format does not allow.
    """
    text = key.strip()
    if not text:
        raise ValueError("empty key")
    if text.endswith("+"):  # the plus key itself: "+" or "ctrl++"
        head = text[:-1]
        if head and not head.endswith("+"):
            raise ValueError(f"missing key after {head!r} in {key!r}")
        parts, base = (head[:-1].split("+") if head else []), "+"
    else:
        *parts, base = text.split("+")
    modifiers: set[str] = set()
    for part in parts:
        name = part.lower()
        if name not in _MODIFIERS or name in modifiers:
            raise ValueError(f"unknown or repeated modifier {part!r} in {key!r}")
        modifiers.add(name)
    lowered = base.lower()
    if lowered in _NAMED_KEYS:
        name = _NAMED_KEYS[lowered]
    elif len(base) == 1 and (base.isascii() and base.isalnum()):
        name = lowered
    elif len(base) == 1 and base in _SYMBOLS:
        name = _symbol_key(base)
    else:
        raise ValueError(f"unknown key {base!r} in {key!r}")
    return "+".join([m for m in _MODIFIERS if m in modifiers] + [name])


def canonical_id(action_id: str) -> str | None:
    """The snapshot id for either spelling (the namespaced id for ids that have no other), or None when pi
    has no such action."""
    if action_id in NAMESPACED_IDS or action_id in NAMESPACED_ONLY:
        return action_id
    return _SNAPSHOT_IDS.get(action_id)


def namespaced_id(action_id: str) -> str:
    """pi's namespaced id (the binding id) of a canonical id."""
    return NAMESPACED_IDS.get(action_id, action_id)


def parse_keybindings(data: Any, source: str) -> tuple[dict[str, list[str]], list[str]]:
    """A parsed keybindings.json object → (snapshot id → Textual keys, warnings). Bad entries are skipped."""
    if not isinstance(data, dict):
        return {}, [f"Ignoring {source}: expected a JSON object mapping actions to keys"]
    result: dict[str, list[str]] = {}
    warnings: list[str] = []
    for action_id, value in data.items():
        if action_id.startswith(EXTENSION_ID_PREFIX):
            continue  # extension shortcuts: read by pi_app.tui.extension_ui, which knows them
        canonical = canonical_id(action_id)
        if canonical is None:
            warnings.append(f"{source}: unknown action {action_id!r} ignored")
            continue
        raw = [value] if isinstance(value, str) else value
        if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
            warnings.append(f"{source}: {action_id!r} must be a key or a list of keys; default kept")
            continue
        try:
            keys = [translate_key(k) for k in raw]
        except ValueError as exc:
            warnings.append(f"{source}: {action_id!r}: {exc}; default kept")
            continue
        # The namespaced spelling wins when a file has both (it is the newer one).
        if canonical in result and action_id == canonical:
            continue
        result[canonical] = list(dict.fromkeys(keys))
    return result, warnings


def load_keybindings(path: Path) -> tuple[dict[str, list[str]], list[str]]:
    """Read ``keybindings.json``; a missing file is no bindings, an unreadable one a warning."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"Could not read {path}: {exc.strerror or exc}"]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, [f"Ignoring {path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"]
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, [f"Ignoring {path}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"]
    except RecursionError:
        return {}, [f"Ignoring {path}: invalid JSON (nested too deeply)"]
    return parse_keybindings(parsed, str(path))


def keymap_of(overrides: dict[str, list[str]]) -> dict[str, str]:
    """Snapshot id -> keys as a Textual keymap: binding id (pi's namespaced id) -> comma-separated keys."""
    return {
        namespaced_id(action_id): ",".join(keys) if keys else UNBOUND
        for action_id, keys in overrides.items()
        if action_id in TARGETS
    }


def apply_bindings(
    app: App[Any], editor: PromptEditor, overrides: dict[str, list[str]], source: str = "keybindings.json"
) -> list[str]:
    """Make ``overrides`` the app's keymap (entries not in it keep their declared keys) and give the editor its
    dispatched keys. Returns a warning for each configured key that another app key already holds (one of the
    two would never fire)."""
    keymap = keymap_of(overrides)
    app.set_keymap(keymap)
    editor.reset_action_keys()
    for action_id, keys in overrides.items():
        for target in TARGETS.get(action_id, ()):
            if target.owner == "editor" and target.action in _EDITOR_DISPATCHED:
                editor.set_action_keys(target.action, keys)
    return _conflicts(type(app), keymap, overrides, source)


def declared_bindings(node_type: type[DOMNode]) -> dict[str, list[Binding]]:
    """Key -> bindings a widget or app class declares (its ``BINDINGS`` and its bases', the subclass winning
    per key, as Textual merges them)."""
    merged: dict[str, list[Binding]] = {}
    for base in reversed(node_type.__mro__):
        declared: list[BindingType] = base.__dict__.get("BINDINGS", [])
        merged.update(BindingsMap(declared).key_to_bindings)
    return merged


def effective_bindings(node_type: type[DOMNode], keymap: dict[str, str]) -> dict[str, list[Binding]]:
    """The declared bindings with ``keymap`` applied (what Textual dispatches), minus unbound ones."""
    bindings = BindingsMap.from_keys(declared_bindings(node_type))
    if keymap:
        bindings.apply_keymap(keymap)
    return {key: list(bs) for key, bs in bindings.key_to_bindings.items() if key != UNBOUND}


def _conflicts(
    app_type: type[DOMNode], keymap: dict[str, str], overrides: dict[str, list[str]], source: str
) -> list[str]:
    bindings = effective_bindings(app_type, keymap)
    warnings: list[str] = []
    reported: set[str] = set()
    for action_id, keys in overrides.items():
        own = {t.action for t in TARGETS.get(action_id, ())}
        if not own:
            continue
        for key in keys:
            others = [
                b
                for b in bindings.get(key, [])
                if b.priority and b.action not in own and b.action.split("(")[0] not in SELECTION_ACTIONS
            ]
            if others and key not in reported:
                reported.add(key)
                names = ", ".join(sorted({b.description or b.action for b in others}))
                warnings.append(f"{source}: {key!r} of {action_id!r} is also bound to {names}")
    return warnings
