"""Cyclic garbage collection around a ``pi`` run's startup and exit.

Startup allocates ~100k objects that live until exit (module dicts, our pydantic models, the provider SDK's
~700 pydantic classes) and frees almost none, so the collections the allocations trigger are wasted work
(~40 ms of ``pi -p``). The same objects are walked again by the collections of interpreter shutdown
(~150 ms with the OpenAI SDK loaded). So: no automatic collection until the first reply has started to
arrive (the SDK is imported by then), then everything alive is moved to the permanent generation and
collection resumes as normal; at exit the same freeze spares shutdown the walk.
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


def is_paused() -> bool:
    return _paused


def before_exit() -> None:
    """The run is over: resume collection, and keep shutdown from walking every object left alive."""
    resume()
    gc.freeze()
