"""Cyclic garbage collection around a ``pi`` run's startup and exit.

Startup allocates ~100k objects that live until exit (module dicts, our pydantic models, the provider SDK's
~700 pydantic classes) and frees almost none, so the collections the allocations trigger are wasted work
(~40 ms of ``pi -p``). The same objects are walked again by the collections of interpreter shutdown
(~150 ms with the OpenAI SDK loaded). So: no automatic collection until the first reply has started to
arrive (the SDK is imported by then; in the app: once its first frame is drawn and the SDK warmed, see
:func:`settle`), then everything alive is moved to the permanent generation and collection resumes as
normal; at exit the same freeze spares shutdown the walk.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop automatic collection until :func:`resume` (idempotent)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """End a :func:`pause`: freeze what startup built, collect as usual from now on. No-op otherwise."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


_settled = False


def settle() -> None:
    """A long-lived front end is up (the app's first frame is drawn and its provider SDK imported): what
    is alive now lives until exit, so it is frozen out of the collector's reach, once. Without this the
    full collections a long answer triggers walk every module, class and widget of the app (0.1–0.3 s
    each, on the event loop, while keys wait)."""
    global _settled
    if _settled:
        return
    _settled = True
    if _paused:
        resume()
    else:
        gc.freeze()


def is_paused() -> bool:
    return _paused


def before_exit() -> None:
    """The run is over: resume collection, and keep shutdown from walking every object left alive."""
    resume()
    gc.freeze()
