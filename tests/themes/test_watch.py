"""Hot reload by mtime polling."""

from __future__ import annotations

import json
import os
from pathlib import Path

import themes


def _write(path: Path, heading: str, stamp: int) -> None:
    data = json.loads((Path(themes.__file__).parent / "dark.json").read_text())
    data["name"] = "mine"
    data["colors"]["mdHeading"] = heading
    path.write_text(json.dumps(data))
    os.utime(path, ns=(stamp, stamp))  # explicit mtimes: no sleeping, no filesystem-granularity flakes


def test_watcher_reloads_on_change(tmp_path):
    path = tmp_path / "mine.json"
    _write(path, "#111111", 1_000_000_000)
    watcher = themes.ThemeWatcher(path)
    assert watcher.check() is None  # unchanged

    _write(path, "#222222", 2_000_000_000)
    spec = watcher.check()
    assert spec is not None and spec.colors["mdHeading"] == "#222222"
    assert themes.to_textual_theme(spec).variables["pi-md-heading"] == "#222222"
    assert watcher.check() is None  # reported once

    # Mid-edit garbage: nothing to apply, the warning is kept, the old theme stays.
    path.write_text('{"name": "mine", "colors": {')
    os.utime(path, ns=(3_000_000_000, 3_000_000_000))
    assert watcher.check() is None
    assert "invalid JSON" in watcher.last_warnings[0].message

    _write(path, "#333333", 4_000_000_000)
    spec = watcher.check()
    assert spec is not None and spec.colors["mdHeading"] == "#333333"

    path.unlink()
    assert watcher.check() is None and watcher.deleted
