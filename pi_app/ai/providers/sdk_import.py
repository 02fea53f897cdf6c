"""Import the ``openai`` SDK without running its type catalogue's package ``__init__`` modules.

The SDK re-exports every generated request and response type from package ``__init__`` modules
(``openai.types``, ``openai.resources``, ``openai.lib`` and their subpackages), and the client reaches
those packages on its way in: ``import openai`` loads ~520 modules, about 0.5 s of CPU before the first
request. We build request bodies as JSON and parse events through a few named models, so almost none of
that catalogue is ever used. With the bodies deferred it loads ~135 modules (~0.15 s).

:func:`defer_sdk_packages` installs a meta-path finder that defers the *body* of each such package
``__init__`` until one of its attributes is first read. The package itself exists with its ``__path__``,
so submodules import as usual, and code that does reach for a re-exported name (``openai.types.Batch``,
``from openai.types import Batch``) gets it, loaded at that moment. Nothing is copied or patched in the
SDK; only when its package bodies run changes.

Not used for ``anthropic``: its top-level ``__init__`` imports leaf modules of the catalogue itself
(``types.shared``, ``lib.streaming``, tracing), so deferring package bodies saves next to nothing there.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

# Packages whose ``__init__`` only re-exports generated types, resources or helpers.
DEFERRED_ROOTS: tuple[str, ...] = ("openai.types", "openai.resources", "openai.lib")


def _deferred(fullname: str) -> bool:
    return any(fullname == root or fullname.startswith(root + ".") for root in DEFERRED_ROOTS)


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
            with lock:
                if not ran:
                    ran = True
                    del module.__dict__["__getattr__"]  # the body may define its own
                    if module.__spec__ is not None:
                        module.__spec__.loader = real
                    module.__loader__ = real
                    real.exec_module(module)
            namespace = module.__dict__
            if name in namespace:
                return namespace[name]
            own = namespace.get("__getattr__")  # the body's own lazy exports (openai.resources has them)
            if own is not None and own is not __getattr__:
                return own(name)
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

        module.__dict__["__getattr__"] = __getattr__


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
