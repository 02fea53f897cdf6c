"""A compile cache for the code the standard library compiles from text at every start.

Two modules compile the same text on every start of pi, and Python's bytecode cache (``__pycache__``) covers
neither:

- ``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ... as source and compiles it:
  ~190 classes, ~670 methods per start (ours and our dependencies'), ~50 ms;
- ``typing`` compiles every string annotation it wraps in a ``ForwardRef``: ~1,000 per start (pydantic's
  schema module alone has 600, and models in modules with postponed annotations add theirs), ~25 ms.

:func:`install` routes both through one cache of code objects, kept beside our own bytecode, so a start
after the first executes stored code objects instead:

- **Same result:** a code object is looked up by the exact text (and mode) it was compiled from, compiled
  as those modules compile it (they have no ``__future__`` imports, so no flags: ``dont_inherit``), by the
  same interpreter (the file is named with the interpreter's cache tag and holds its bytecode magic number).
- **Same trust as bytecode:** the file sits in this package's ``__pycache__`` (or under
  ``PYTHONPYCACHEPREFIX``), next to the ``.pyc`` files Python executes anyway; it is written only when a
  run compiled something new, atomically, and never when bytecode writing is off.
- **Never an error:** an unreadable, foreign or damaged file is a miss; a failed write is skipped. Text that
  does not compile raises as it would have, and is not cached.

(No ``from __future__ import annotations`` here: the builtins called below inherit the future flags of this
module's frames, and must compile as they would for their callers, which have none.)
"""

import atexit
import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

_MAX_ENTRIES = 8192  # beyond this, a save keeps only what the run used (old code's entries drop out)
_FORMAT = b"/2"  # after the interpreter's magic number: this file's own layout (2: keys by mode as tuples)


class CodeCache:
    """Code objects by source text and mode, loaded from and saved to one file (``path`` None: memory only)."""

    def __init__(self, path: str | None, magic: bytes) -> None:
        self.path = path
        self.magic = magic
        self.compiled = 0  # sources compiled by this process (cache misses)
        self._codes: dict[str | tuple[str, str], CodeType] | None = None  # loaded on first use
        self._used: dict[str | tuple[str, str], CodeType] = {}

    def code(self, source: str, mode: str = "exec") -> CodeType:
        codes = self._codes if self._codes is not None else self._load()
        key = source if mode == "exec" else (mode, source)
        code = codes.get(key)
        if type(code) is not CodeType:  # (not cached, or not what the file should hold)
            code = codes[key] = builtins.compile(source, "<string>", mode, dont_inherit=True)
            self.compiled += 1
        self._used[key] = code
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` for ``dataclasses``: source text goes through the cache."""
        builtins.exec(self.code(source) if type(source) is str else source, globals, locals)

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        """``compile`` for ``typing``: plain text compiled as ``<string>`` goes through the cache."""
        if type(source) is str and filename == "<string>" and not flags and optimize == -1:
            return self.code(source, mode)
        return builtins.compile(source, filename, mode, flags, dont_inherit, optimize)

    def _load(self) -> dict[str | tuple[str, str], CodeType]:
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
    return pyc[: -len(".pyc")] + ".compiled"


def install() -> None:
    """Route ``dataclasses``' and ``typing``'s compiling through the cache (once per process; saved at
    exit). Both call the builtin by name, so a module global of that name comes first."""
    global _installed
    import dataclasses
    import typing
    from importlib.util import MAGIC_NUMBER

    if _installed is not None:
        return
    _installed = CodeCache(cache_path(), MAGIC_NUMBER + _FORMAT)
    if "exec" not in vars(dataclasses):  # (someone else's hook: leave it)
        vars(dataclasses)["exec"] = _installed.exec
    if "compile" not in vars(typing):
        vars(typing)["compile"] = _installed.compile
    atexit.register(_installed.save)
