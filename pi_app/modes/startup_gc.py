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

from pi_app.heap_freeze import freeze

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
        freeze()
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
        freeze()


_held = 0
_saved_full_threshold = 0
_NEVER = 2**31 - 1


def hold_full_collections() -> None:
    """An answer is streaming: no automatic full (generation 2) collection until
    :func:`release_full_collections`. A full collection walks every object the app keeps that is not frozen
    (its widgets, their render caches: 20-100 ms on the event loop, all at once, while keys wait for
    their frames); the young generations are still collected as usual, so short-lived cycles still go.
    Nests; each hold needs its release."""
    global _held, _saved_full_threshold
    _held += 1
    if _held == 1:
        young, middle, _saved_full_threshold = gc.get_threshold()
        gc.set_threshold(young, middle, _NEVER)


def release_full_collections() -> None:
    """End a :func:`hold_full_collections`; the full collection it held back runs at the next automatic
    collection, once nothing streams (no-op without a hold)."""
    global _held
    if _held == 0:
        return
    _held -= 1
    if _held == 0:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, _saved_full_threshold)


def full_collections_held() -> bool:
    return _held > 0


def is_paused() -> bool:
    return _paused


def before_exit() -> None:
    """The run is over: resume collection, and keep shutdown from walking every object left alive."""
    resume()
    freeze()
