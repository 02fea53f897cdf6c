"""Extensions that ship with pi, addressed as ``builtin:<name>``.

They load by default after every other extension. ``-ne`` skips them like any discovered extension,
``-e builtin:<name>`` loads one explicitly, and the ``extensions`` setting's ``-builtin:<name>`` turns one
off (``+builtin:<name>`` / ``builtin:<name>`` turn it back on in a later settings scope). Only names and
paths live here: nothing below is imported until the extension itself loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

# name -> module path (the package with ``register(pi)``)
BUILTINS: dict[str, str] = {
    "mcp": "pi_app.extensions.builtin.mcp",
}

PREFIX = "builtin:"


def builtin_path(name: str) -> str | None:
    """The entry file (``__init__.py``) of the built-in ``name``, or None for an unknown name."""
    module = BUILTINS.get(name)
    if module is None:
        return None
    return str(Path(__file__).parent.joinpath(*module.split(".")[3:], "__init__.py").resolve())


def parse_ref(ref: str) -> tuple[str, bool] | None:
    """``builtin:x`` / ``+builtin:x`` -> ("x", True), ``-builtin:x`` -> ("x", False); None otherwise."""
    enabled = not ref.startswith("-")
    bare = ref[1:] if ref[:1] in "+-" else ref
    if not bare.startswith(PREFIX):
        return None
    return bare[len(PREFIX) :], enabled


def enabled_builtins(setting_entries: Iterable[str], disabled: Iterable[str] = ()) -> list[str]:
    """The built-ins loaded by default: every one, minus those the ``extensions`` setting turns off
    (later entries win, so project settings listed after global ones override them) and ``disabled``
    (``--no-mcp``)."""
    state = dict.fromkeys(BUILTINS, True)
    for entry in setting_entries:
        ref = parse_ref(entry) if isinstance(entry, str) else None
        if ref is not None and ref[0] in state:
            state[ref[0]] = ref[1]
    off = set(disabled)
    return [name for name, on in state.items() if on and name not in off]
