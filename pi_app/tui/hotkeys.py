"""``/hotkeys``: pi's curated shortcut list, generated from the bindings in effect.

Sections as pi's: the app's actions, the editor's, the transcript's and the session tree's. Keys come from
the live binding tables (keybindings.json applied through the keymap, the editor's dispatched keys as the
editor holds them); only actions with a pi meaning are listed, never Textual's internal TextArea bindings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingsMap, BindingType
from textual.dom import DOMNode

from pi_app.tui.keybindings import UNBOUND

# The editor's keys pi lists, by pi id (TextArea's other bindings — cut, select line, … — are not pi's).
EDITOR_ROWS: tuple[tuple[str, str], ...] = (
    ("tui.editor.cursorWordLeft", "Move cursor word left"),
    ("tui.editor.cursorWordRight", "Move cursor word right"),
    ("tui.editor.cursorLineStart", "Move to line start"),
    ("tui.editor.cursorLineEnd", "Move to line end"),
    ("tui.editor.deleteWordBackward", "Delete word backward"),
    ("tui.editor.deleteWordForward", "Delete word forward"),
    ("tui.editor.deleteToLineStart", "Delete to line start"),
    ("tui.editor.deleteToLineEnd", "Delete to line end"),
    ("tui.editor.undo", "Undo"),
)
# Dispatched by the editor itself (its key -> action table is what counts).
EDITOR_DISPATCHED: tuple[tuple[str, str], ...] = (
    ("submit", "Send message"),
    ("newline", "New line"),
    ("follow_up", "Queue follow-up message (while the agent works)"),
    ("complete", "Complete path / command"),
)
# The session tree browser (/tree), by action.
TREE_ROWS: tuple[tuple[str, str], ...] = (
    ("move(-1)", "Move up"),
    ("move(1)", "Move down"),
    ("page(-1)", "Page up"),
    ("page(1)", "Page down"),
    ("fold_or_up", "Fold branch / go to parent"),
    ("unfold_or_down", "Unfold branch / go to child"),
    ("act('continue')", "Continue from the selected entry"),
    ("edit_label", "Edit label"),
    ("filter_key('ctrl+d')", "Filter: default"),
    ("filter_key('ctrl+t')", "Filter: hide tool results"),
    ("filter_key('ctrl+u')", "Filter: user messages only"),
    ("filter_key('ctrl+l')", "Filter: labeled only"),
    ("filter_key('ctrl+a')", "Filter: all entries"),
    ("filter_key('ctrl+o')", "Cycle filter"),
    ("cancel", "Close"),
)
TRANSCRIPT_ACTIONS = frozenset({"select_messages"})


@dataclass(frozen=True)
class Section:
    """One titled group of /hotkeys: (keys, description) rows."""

    title: str
    rows: list[tuple[str, str]]  # (keys as shown, description)


def key_label(key: str) -> str:
    """pi's spelling of a Textual key name (``ctrl+shift+p``, ``alt+enter``, ``pageUp``)."""
    named = {"pageup": "pageUp", "pagedown": "pageDown", "escape": "escape"}
    return "+".join(named.get(part, part) for part in key.split("+"))


def _own_bindings(node_type: type[DOMNode]) -> list[BindingType]:
    """The bindings a class declares itself (not its bases': TextArea's are Textual's, not pi's)."""
    return list(node_type.__dict__.get("BINDINGS", []))


def _by_action(bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> dict[str, list[Binding]]:
    """Action -> its bindings, with ``keymap`` applied (binding id -> keys) and unbound keys dropped."""
    table = BindingsMap(bindings)
    if keymap:
        table.apply_keymap(dict(keymap))
    out: dict[str, list[Binding]] = {}
    for key, bs in table.key_to_bindings.items():
        if key == UNBOUND:
            continue
        for b in bs:
            out.setdefault(b.action, []).append(b)
    return out


def _arrives(key: str, taken: frozenset[str] = frozenset()) -> bool:
    """Terminals do not send ``super`` (⌘) keys, and a key the app holds as a priority binding never
    reaches the widget: neither is listed."""
    return "super+" not in key and key not in taken


def _keys(bindings: list[Binding], taken: frozenset[str] = frozenset()) -> str:
    return " / ".join(dict.fromkeys(key_label(b.key) for b in bindings if _arrives(b.key, taken)))


def build_sections(
    app_type: type[DOMNode],
    editor_type: type[DOMNode],
    editor_key_actions: Mapping[str, str],
    keymap: Mapping[str, str],
    transcript_bindings: Iterable[BindingType] = (),
    tree_bindings: Iterable[BindingType] = (),
    unreachable: frozenset[str] = frozenset(),
) -> list[Section]:
    """``unreachable``: keys this terminal cannot send (e.g. Shift+Enter in tmux without extended-keys)."""
    app_rows: list[tuple[str, str]] = []
    transcript_rows: list[tuple[str, str]] = []
    app_actions = _by_action(_own_bindings(app_type), keymap)
    taken = frozenset(b.key for bs in app_actions.values() for b in bs if b.priority)
    gone = unreachable
    for action, bindings in app_actions.items():
        described = [b for b in bindings if b.description]
        if not described:
            continue
        ident = described[0].id or ""
        target = transcript_rows if action in TRANSCRIPT_ACTIONS or "altScreen" in ident else app_rows
        if shown := _keys(described, gone):
            target.append((shown, described[0].description))
    for action, bindings in _by_action(transcript_bindings, keymap).items():
        described = [b for b in bindings if b.description]
        if described:
            note = " (while selecting)" if action.startswith("selection_") else ""
            if shown := _keys(described, gone):
                transcript_rows.append((shown, described[0].description + note))

    editor_rows: list[tuple[str, str]] = []
    for action, description in EDITOR_DISPATCHED:
        keys = [
            key_label(k) for k, a in editor_key_actions.items() if a == action and _arrives(k, taken | gone)
        ]
        if keys:
            editor_rows.append((" / ".join(keys), description))
    editing = BindingsMap(_declared_with_ids(editor_type))
    if keymap:
        editing.apply_keymap(dict(keymap))
    by_id: dict[str, list[Binding]] = {}
    for key, bs in editing.key_to_bindings.items():
        for b in bs:
            if b.id and key != UNBOUND:
                by_id.setdefault(b.id, []).append(b)
    for ident, description in EDITOR_ROWS:
        shown = _keys(by_id.get(ident, []), taken | gone)
        if shown:
            editor_rows.append((shown, description))

    tree = _by_action(tree_bindings, {})
    tree_rows = [(_keys(tree[action]), text) for action, text in TREE_ROWS if action in tree]
    sections = [
        Section("Application", app_rows),
        Section("Editor", editor_rows),
        Section("Transcript", transcript_rows),
        Section("Session tree (/tree)", tree_rows),
    ]
    return [s for s in sections if s.rows]


def _declared_with_ids(node_type: type[DOMNode]) -> list[BindingType]:
    """Bindings the class and its bases declare that carry a pi id (the editor gives TextArea's ids)."""
    out: list[BindingType] = []
    for base in reversed(node_type.__mro__):
        for b in base.__dict__.get("BINDINGS", []):
            if isinstance(b, Binding) and b.id:
                out.append(b)
    return out


def format_sections(sections: list[Section]) -> str:
    lines = ["Keyboard Shortcuts"]
    for section in sections:
        width = max((len(k) for k, _ in section.rows), default=0)
        lines += ["", section.title]
        lines += [f"  {k:<{width}}  {d}" for k, d in section.rows]
    return "\n".join(lines)
