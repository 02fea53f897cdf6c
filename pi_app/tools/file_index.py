"""The project's file list for ``@`` completion: built once off the event loop, searched fuzzily.

Files come from ``rg --files`` (honours .gitignore, includes hidden files, skips .git), or the pure-Python
walk when rg is missing. Directories are derived from the file paths so ``@src/`` completes too.
"""

from __future__ import annotations

import os
import subprocess
import threading

from pi_app.tools.search import locate_rg, walk_files

MAX_FILES = 200_000


def _list_files(root: str, limit: int) -> list[str]:
    rg = locate_rg()
    if rg:
        try:
            out = subprocess.run(
                [rg, "--files", "--hidden", "--no-require-git", "--color=never", "--glob", "!.git"],
                cwd=root,
                capture_output=True,
                timeout=30,
                check=False,
            ).stdout
            return sorted(out.decode("utf-8", "replace").splitlines()[:limit])
        except (OSError, subprocess.TimeoutExpired):
            pass
    files: list[str] = []
    for path in walk_files(root, should_stop=lambda: len(files) >= limit):
        files.append(os.path.relpath(path, root).replace(os.sep, "/"))
    return sorted(files)


def fuzzy_score(query: str, candidate: str) -> float | None:
    """Higher is better; None when ``query`` is not a subsequence of ``candidate`` (case-insensitive).

    Matches in the file name beat matches in the directories, consecutive letters beat scattered ones,
    and shorter paths win ties."""
    q = query.lower()
    c = candidate.lower()
    if not q:
        return 0.0 - len(c) / 1000
    name_start = c.rstrip("/").rfind("/") + 1
    score = 0.0
    pos = 0
    prev = -2
    for ch in q:
        found = c.find(ch, pos)
        if found < 0:
            return None
        score += 1.0
        if found == prev + 1:
            score += 2.0  # consecutive
        if found >= name_start:
            score += 1.5  # in the file name
        if found == 0 or c[found - 1] in "/._-":
            score += 1.0  # at a word start
        prev = found
        pos = found + 1
    if q in c[name_start:]:
        score += 5.0
    return score - len(c) / 1000


class FileIndex:
    def __init__(self, root: str, limit: int = MAX_FILES) -> None:
        self.root = root
        self.limit = limit
        self._files: list[str] = []
        self._dirs: list[str] = []
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def start(self) -> FileIndex:
        """Build in a daemon thread (the UI never waits for it)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._build, name="pi-file-index", daemon=True)
            self._thread.start()
        return self

    def build_now(self) -> FileIndex:
        self._build()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def _build(self) -> None:
        files = _list_files(self.root, self.limit)
        dirs: set[str] = set()
        for f in files:
            parts = f.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]) + "/")
        self._files, self._dirs = files, sorted(dirs)
        self._ready.set()

    def search(self, query: str, limit: int = 20) -> list[str]:
        """Best matches for ``query`` among directories (with a trailing /) and files."""
        scored: list[tuple[float, str]] = []
        for path in self._dirs + self._files:
            s = fuzzy_score(query, path)
            if s is not None:
                scored.append((s, path))
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [p for _, p in scored[:limit]]
