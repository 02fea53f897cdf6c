"""``gc.freeze`` with a memory of having been called (no Textual, no pydantic: imported at startup).

``gc.get_freeze_count()`` walks the whole permanent generation to count it (~10 ms once a 50k-entry session
is frozen), so whether anything was frozen yet is remembered here instead. Every freeze of ours goes
through :func:`freeze`.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze() -> None:
    """Move every object alive now to the permanent generation (see ``gc.freeze``)."""
    global _frozen
    gc.freeze()
    _frozen = True


def frozen_before() -> bool:
    """Whether :func:`freeze` ran in this process."""
    return _frozen
