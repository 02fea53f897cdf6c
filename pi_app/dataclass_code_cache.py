"""A compile cache for the methods the ``dataclasses`` module generates.

Every ``@dataclass`` writes its ``__init__``, ``__repr__``, ``__eq__``, ... as source text and compiles it
when its class is created. A start of pi creates ~190 of them (ours and our dependencies'), and compiling
their ~670 methods is ~70 ms of every start, the same text each time: Python keeps the bytecode of modules
in ``__pycache__``, not this. :func:`install` has ``dataclasses`` compile through a cache kept beside our own
bytecode, so a start after the first executes stored code objects instead.

- **Same result:** a code object is looked up by the exact source text it was compiled from, compiled as
  ``exec`` compiles a string in ``dataclasses`` (no ``__future__`` flags inherited), by the same interpreter
  (the file is named with the interpreter's cache tag and holds its bytecode magic number).
- **Same trust as bytecode:** the file sits in this package's ``__pycache__`` (or under
  ``PYTHONPYCACHEPREFIX``), next to the ``.pyc`` files Python executes anyway; it is written only when a
  run compiled something new, atomically, and never when bytecode writing is off.
- **Never an error:** an unreadable, foreign or damaged file is a cache miss; a failed write is skipped.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

_MAX_ENTRIES = 4096  # beyond this, a save keeps only what the run used (old code's methods drop out)


class CodeCache:
    """Code objects by source text, loaded from and saved to one file (``path`` None: memory only)."""

    def __init__(self, path: str | None, magic: bytes) -> None:
        self.path = path
        self.magic = magic
        self.compiled = 0  # sources compiled by this process (cache misses)
        self._codes: dict[str, CodeType] | None = None  # loaded on first use
        self._used: dict[str, CodeType] = {}

    def code(self, source: str) -> CodeType:
        codes = self._codes if self._codes is not None else self._load()
        code = codes.get(source)
        if type(code) is not CodeType:  # (not cached, or not what the file should hold)
            # As ``exec(source, ...)`` in ``dataclasses`` compiles it: no __future__ flags of ours (with
            # ``annotations`` the generated __init__'s annotations would become strings).
            code = codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        self._used[source] = code
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` for the ``dataclasses`` module: source text goes through the cache."""
        builtins.exec(self.code(source) if type(source) is str else source, globals, locals)

    def _load(self) -> dict[str, CodeType]:
        self._codes = {}
        if self.path is None:
            return self._codes
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()  # (``marshal.load`` on a file reads it in tiny pieces: 5x slower)
            magic, codes = marshal.loads(data)
        except (OSError, EOFError, ValueError, TypeError):
            return self._codes  # none yet, or not one of ours
        if magic == self.magic and type(codes) is dict:
            self._codes = codes  # (a value that is no code object is compiled again when asked for)
        return self._codes

    def save(self) -> None:
        """Write the cache if this run compiled anything (atomically; failures are skipped)."""
        if not self.compiled or self.path is None or sys.dont_write_bytecode:
            return
        codes = self._codes or {}
        keep = codes if len(codes) <= _MAX_ENTRIES else self._used
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(tmp, "wb") as fh:
                marshal.dump((self.magic, keep), fh)
            os.replace(tmp, self.path)
        except (OSError, ValueError):
            try:
                os.unlink(tmp)
            except OSError:
                pass


_installed: CodeCache | None = None


def cache_path() -> str | None:
    """Where this interpreter keeps the cache: beside this module's bytecode (None: no bytecode cache)."""
    from importlib.util import cache_from_source

    try:
        pyc = cache_from_source(__file__)
    except NotImplementedError:  # an interpreter without a cache tag writes no bytecode either
        return None
    return pyc[: -len(".pyc")] + ".dataclass-methods"


def install() -> None:
    """Route ``dataclasses``' compiling through the cache (once per process; saved at exit)."""
    global _installed
    import dataclasses
    from importlib.util import MAGIC_NUMBER

    if _installed is not None or "exec" in vars(dataclasses):
        return  # installed already (or someone else shadows it: leave theirs)
    _installed = CodeCache(cache_path(), MAGIC_NUMBER)
    # ``dataclasses`` calls ``exec`` by name: a module global of that name comes before the builtin.
    vars(dataclasses)["exec"] = _installed.exec
    atexit.register(_installed.save)
