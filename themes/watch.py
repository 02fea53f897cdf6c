"""Hot reload (mtime polling) and first-run default theme detection; pure pieces the TUI drives."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .loader import ThemeSpec, ThemeWarning, load_theme_file
from .registry import base_spec
from .tokens import relative_luminance, xterm_to_hex


class ThemeWatcher:
    """Polls one theme file. Call `check()` on an interval: it returns the reloaded theme when the
    file changed and still parses, else None. A file that is mid-edit (invalid JSON) is left alone
    (the warning is kept in `last_warnings`), and the previous theme stays active."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.last_warnings: list[ThemeWarning] = []
        self._stamp = self._read_stamp()

    def _read_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    @property
    def deleted(self) -> bool:
        """True when the file no longer exists (pi then falls back to the dark theme)."""
        return self._stamp is None

    def check(self) -> ThemeSpec | None:
        stamp = self._read_stamp()
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        if stamp is None:
            return None
        spec, self.last_warnings = load_theme_file(self.path, base_spec())
        return spec


def detect_default_theme(env: Mapping[str, str]) -> str:
    """First-run default: "light" when COLORFGBG ("fg;bg" or "fg;default;bg") names a light background
    colour, else "dark". pi splits the palette at index 8; here the colour's luminance decides, so 7
    (light grey) is light, bright blue (12) is dark, and 256-colour indices work too."""
    parts = env.get("COLORFGBG", "").split(";")
    if len(parts) < 2:
        return "dark"
    try:
        bg = int(parts[-1])
    except ValueError:
        return "dark"
    if not 0 <= bg <= 255:
        return "dark"
    return "light" if relative_luminance(xterm_to_hex(bg)) >= 0.179 else "dark"
