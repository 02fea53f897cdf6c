from __future__ import annotations

import pytest

from themes.registry import clear_user_themes


@pytest.fixture(autouse=True)
def _clean_theme_registry():
    """User themes live in a module-level registry; keep tests independent."""
    clear_user_themes()
    yield
    clear_user_themes()
