"""Prompt history: last 100 submissions, consecutive duplicates skipped, optional JSONL persistence."""

from __future__ import annotations

import json
from pathlib import Path

MAX_ENTRIES = 100


class History:
    """Newest entry last. Browsing: ``previous()`` walks older, ``next()`` newer, then back to the draft."""

    def __init__(self, path: Path | str | None = None, max_entries: int = MAX_ENTRIES) -> None:
        self.path = Path(path) if path is not None else None
        self.max_entries = max_entries
        self.entries: list[str] = []
        self._index: int | None = None  # position while browsing
        self._draft = ""
        if self.path is not None:
            self._load()

    @property
    def browsing(self) -> bool:
        return self._index is not None

    def add(self, text: str) -> None:
        self.reset()
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        overflow = len(self.entries) - self.max_entries
        if overflow > 0:
            del self.entries[:overflow]
        self._save()

    def previous(self, draft: str = "") -> str | None:
        """The next older entry, or None when there is none."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft = draft
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The next newer entry; past the newest returns the draft and stops browsing."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def reset(self) -> None:
        self._index = None
        self._draft = ""

    def _load(self) -> None:
        assert self.path is not None
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        for line in raw.splitlines():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a damaged line loses only itself
            if isinstance(value, str) and (not self.entries or self.entries[-1] != value):
                self.entries.append(value)
        self.entries = self.entries[-self.max_entries :]

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(
            "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.entries), encoding="utf-8"
        )
        tmp.replace(self.path)
