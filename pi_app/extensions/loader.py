"""Finding extension files and importing each in a namespace of its own.

An extension is ``name.py`` or a package ``name/__init__.py`` exposing ``register(pi)``. Each is imported
under a unique module name (``pi_ext_<n>_<name>``), so two extensions called ``tools.py`` never collide,
and with its own directory importable, so a package's ``from . import helpers`` (or a single file's
sibling modules) work. Reloading imports the file afresh, so ``/reload`` picks up edits.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType

from pi_app.extensions.types import Scope

_counter = itertools.count(1)


@dataclass(frozen=True)
class ExtensionSource:
    """Where an extension comes from: its file (``__init__.py`` for a package) and scope."""

    path: str
    scope: Scope

    @cached_property  # read on every handler call
    def name(self) -> str:
        p = Path(self.path)
        return p.parent.name if p.name == "__init__.py" else p.stem


@dataclass(frozen=True)
class LoadFailure:
    """An extension that failed to import or register, and the error message to report."""

    source: ExtensionSource
    message: str  # "<file>:<line>: <error>"


def _entry_file(path: Path) -> Path | None:
    if path.is_file() and path.suffix == ".py":
        return path
    if path.is_dir() and (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def discover_dir(directory: Path, scope: Scope) -> list[ExtensionSource]:
    """One level deep, in name order: ``*.py`` and ``*/__init__.py`` (names starting with ``_`` or ``.``
    are helpers, not extensions)."""
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return []
    out = []
    for child in children:
        if child.name.startswith(("_", ".")):
            continue
        entry = _entry_file(child)
        if entry is not None:
            out.append(ExtensionSource(str(entry.resolve()), scope))
    return out


def resolve_path(path: str, base: str, scope: Scope) -> ExtensionSource | str:
    """An explicit path (``-e``, the ``extensions`` setting), relative to ``base``; a message if unusable.
    ``builtin:<name>`` names an extension that ships with pi."""
    if path.startswith("builtin:"):
        from pi_app.extensions.builtin import builtin_path

        entry_path = builtin_path(path.removeprefix("builtin:"))
        return ExtensionSource(entry_path, scope) if entry_path else f"Unknown built-in extension: {path}"
    p = Path(os.path.expanduser(path))
    if not p.is_absolute():
        p = Path(base) / p
    entry = _entry_file(p)
    if entry is None:
        if not p.exists():
            return f"Extension not found: {p}"
        return f"Not an extension (a .py file or a directory with __init__.py): {p}"
    return ExtensionSource(str(entry.resolve()), scope)


def discover(
    *,
    agent_dir: str,
    cwd: str,
    project_trusted: bool,
    setting_paths: list[tuple[str, str]],
    cli_paths: list[str],
    no_extensions: bool,
    builtins: Sequence[str] = (),
) -> tuple[list[ExtensionSource], list[str]]:
    """(sources in load order, warnings). Order: ``-e`` paths, the user dir, the ``extensions`` setting,
    the project dir (only once trusted), then the ``builtins`` by name. ``no_extensions`` keeps only the
    ``-e`` paths. ``setting_paths`` are (path, directory it is relative to)."""
    found: list[ExtensionSource] = []
    warnings: list[str] = []
    for path in cli_paths:
        src = resolve_path(path, cwd, "temporary")
        (found.append(src) if isinstance(src, ExtensionSource) else warnings.append(src))
    if not no_extensions:
        found += discover_dir(Path(agent_dir) / "extensions", "user")
        for path, base in setting_paths:
            src = resolve_path(path, base, "user")
            (found.append(src) if isinstance(src, ExtensionSource) else warnings.append(src))
        if project_trusted:
            found += discover_dir(Path(cwd) / ".pi" / "extensions", "project")
        for name in builtins:
            src = resolve_path(f"builtin:{name}", cwd, "user")
            (found.append(src) if isinstance(src, ExtensionSource) else warnings.append(src))
    seen: set[str] = set()
    unique = [s for s in found if not (s.path in seen or seen.add(s.path))]  # type: ignore[func-returns-value]
    return unique, warnings


def import_extension(source: ExtensionSource) -> ModuleType:
    """Import the file as a fresh module. Raises whatever the import raised."""
    path = Path(source.path)
    is_package = path.name == "__init__.py"
    module_name = f"pi_ext_{next(_counter)}_{source.name.replace('-', '_').replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(
        module_name, path, submodule_search_locations=[str(path.parent)] if is_package else None
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    # a single-file extension may import its sibling modules
    own_dir = str(path.parent.parent if is_package else path.parent)
    added = own_dir not in sys.path
    if added:
        sys.path.insert(0, own_dir)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    finally:
        if added:
            sys.path.remove(own_dir)
    return module


def unload(module: ModuleType) -> None:
    """Forget the module and its submodules so the next import reads the files again."""
    prefix = module.__name__
    for name in [n for n in sys.modules if n == prefix or n.startswith(prefix + ".")]:
        del sys.modules[name]


def describe_error(source: ExtensionSource, exc: BaseException) -> str:
    """``file:line: Type: message`` at the deepest frame inside the extension's own files."""
    root = str(Path(source.path).parent)
    where = source.path
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{exc.filename}:{exc.lineno}"
    else:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename.startswith(root):
                where = f"{frame.filename}:{frame.lineno}"
                break
    text = str(exc) or ""
    return f"{where}: {type(exc).__name__}{': ' + text if text else ''}"
