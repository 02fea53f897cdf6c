"""Import the provider SDKs (``openai``, ``anthropic``) without running their type catalogues' package
``__init__`` modules.

Both SDKs re-export every generated request and response type from package ``__init__`` modules
(``types``, ``resources``, ``lib`` and their subpackages, and the top-level ``__init__``s), and the
clients reach those packages on their way in: ``import openai`` loads ~520 modules (~0.5 s of CPU), ``import
anthropic`` ~2,500 (1.7-2 s). We build request bodies as JSON and read events as plain JSON or through a
few named models, so almost none of that catalogue is ever used.

:func:`defer_sdk_packages` installs a meta-path finder that defers the *body* of each such package
``__init__``. The package itself exists with its ``__path__``, so submodules import as usual. A name its
body would import from one of its modules (``from .beta_message import BetaMessage as BetaMessage``, read
from the source) is taken from that module alone, and ``from package import submodule`` imports just the
submodule; any other name (or a dunder) runs the body first, so everything the SDK exports still resolves.
Nothing is copied or patched in the SDK; only when (and whether) its package bodies run changes. The client
then loads ~40 modules for ``openai`` and ~1,000 for ``anthropic``, whose own leaf modules import big unions
of request types (its tracing helpers).

The top-level packages are deferred by themselves (``openai``'s imports its Azure, Bedrock and module-level
client helpers); their other subpackages are not: ``anthropic._vendor``'s may fail to import on purpose (an
optional extra, caught where the SDK imports them).
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

# Packages (with every package under them) whose ``__init__`` only re-exports generated types, resources or
# helpers, and single packages deferred without the ones under them.
DEFERRED_ROOTS: tuple[str, ...] = (
    "openai.types",
    "openai.resources",
    "openai.lib",
    "anthropic.types",
    "anthropic.resources",
    "anthropic.lib",
)
DEFERRED_PACKAGES: tuple[str, ...] = ("openai", "anthropic")


def _deferred(fullname: str) -> bool:
    return fullname in DEFERRED_PACKAGES or any(
        fullname == root or fullname.startswith(root + ".") for root in DEFERRED_ROOTS
    )


class _DeferredBody(importlib.abc.Loader):
    """Creates the package as its real loader would, and runs its body on the first missing attribute."""

    def __init__(self, real: importlib.abc.Loader) -> None:
        self._real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        real = self._real
        ran = False
        # One thread runs the body; another wanting a name meanwhile waits for it (a lock per package, as
        # the import system has per module, so unrelated bodies never wait on each other).
        lock = threading.RLock()

        def __getattr__(name: str) -> object:
            nonlocal ran
            if not ran and not name.startswith("__"):
                found = _without_body(module, name)
                if found is not _NOT_FOUND:
                    return found
            with lock:
                if not ran:
                    ran = True
                    if module.__spec__ is not None:
                        module.__spec__.loader = real
                    module.__loader__ = real
                    # Kept while the body runs: another thread reading a name it has not bound yet waits
                    # for it on the lock above instead of failing.
                    real.exec_module(module)
                    if module.__dict__.get("__getattr__") is __getattr__:  # (the body may define its own)
                        del module.__dict__["__getattr__"]
            namespace = module.__dict__
            if name in namespace:
                return namespace[name]
            own = namespace.get("__getattr__")  # the body's own lazy exports (openai.resources has them)
            if own is not None and own is not __getattr__:
                return own(name)
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

        module.__dict__["__getattr__"] = __getattr__


_NOT_FOUND = object()
_REEXPORTS: dict[str, dict[str, tuple[str | None, str | None]]] = {}
# one ast.parse at a time: CPython 3.11's is not thread-safe (two threads at once can fail with "AST
# constructor recursion depth mismatch"), and the app warms the SDK in a thread
_PARSE_LOCK = threading.Lock()


def _reexports(module: ModuleType) -> dict[str, tuple[str | None, str | None]]:
    """What a package's body binds by plain relative imports at its top level: name -> (submodule, attribute
    of it), the attribute None for a submodule itself. Read from its source, once."""
    key = module.__name__
    known = _REEXPORTS.get(key)
    if known is None:
        known = {}
        origin = module.__spec__.origin if module.__spec__ is not None else None
        try:
            with open(origin or "", "rb") as fh, _PARSE_LOCK:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])  # unknown: every name runs the body
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    bound = alias.asname or alias.name
                    known[bound] = (node.module, alias.name) if node.module else (alias.name, None)
        _REEXPORTS[key] = known  # published whole: another thread never sees it half read
    return known


def _without_body(module: ModuleType, name: str) -> object:
    """``module.name`` without running the package's body where that can be known: a name its body imports
    from one of its modules (``from .beta_message import BetaMessage``) comes from that module, and a
    submodule (``from package import submodule``, as the SDK's own modules do) is imported as such.
    ``_NOT_FOUND`` otherwise (the body runs then)."""
    hit = _reexports(module).get(name)
    if hit is not None:
        sub, attr = hit
        target = importlib.import_module(f"{module.__name__}.{sub}")
        value = target if attr is None else getattr(target, attr, _NOT_FOUND)
        if value is not _NOT_FOUND:
            module.__dict__[name] = value  # as the body would bind it
        return value
    full = f"{module.__name__}.{name}"
    found = sys.modules.get(full)
    if found is None and importlib.util.find_spec(full) is not None:
        found = importlib.import_module(full)
    return _NOT_FOUND if found is None else found


class _DeferringFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _deferred(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return None  # a plain module (or not found): the normal import handles it
        spec.loader = _DeferredBody(spec.loader)
        return spec


_FINDER = _DeferringFinder()


def defer_sdk_packages() -> None:
    """Install the finder once. It only affects SDK packages not imported yet."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
