"""Work-arounds for Textual caches that keep closed widgets' drawn lines alive.

Textual 8.2's ``StylesCache.get_inner_outer`` is an ``lru_cache(1024)`` on an instance method, so its key
holds the widget's ``StylesCache`` — and with it every line the widget drew — until 1,024 newer entries push
it out. A browser that is opened and closed keeps ~10 of them per visit (0.5 MB at 10,000 entries; a
cleared chat keeps its long messages' lines). The cached values are two ``Style`` objects, cheap to make
again, so the whole cache is dropped when a big set of widgets goes away.
"""

from __future__ import annotations


def release_closed_widgets() -> None:
    """Drop Textual's per-widget colour cache (see the module doc); harmless if Textual changes it."""
    from textual._styles_cache import StylesCache

    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:
        clear()
