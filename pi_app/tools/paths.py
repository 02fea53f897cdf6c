"""Path arguments as pi interprets them: ``@`` prefix dropped, unicode spaces normalised, ``~`` expanded,
relative paths resolved against the tool's cwd."""

from __future__ import annotations

import os
import re
import unicodedata

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)


def expand_path(file_path: str) -> str:
    if file_path.startswith("@"):
        file_path = file_path[1:]
    file_path = _UNICODE_SPACES.sub(" ", file_path)
    if file_path == "~":
        return os.path.expanduser("~")
    if file_path.startswith("~/"):
        return os.path.expanduser("~") + file_path[1:]
    return file_path


def resolve_to_cwd(file_path: str, cwd: str) -> str:
    expanded = expand_path(file_path)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(os.path.join(cwd, expanded))


def resolve_read_path(file_path: str, cwd: str) -> str:
    """Like :func:`resolve_to_cwd`, but when the file is missing try the spellings macOS uses in
    screenshot names (narrow NBSP before AM/PM, NFD, curly apostrophe)."""
    resolved = resolve_to_cwd(file_path, cwd)
    if os.path.lexists(resolved):
        return resolved
    nfd = unicodedata.normalize("NFD", resolved)
    candidates = (
        _AM_PM.sub(lambda m: f"\u202f{m.group(1)}.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    )
    for candidate in candidates:
        if candidate != resolved and os.path.lexists(candidate):
            return candidate
    return resolved
