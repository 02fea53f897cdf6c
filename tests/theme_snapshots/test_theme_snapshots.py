"""One representative screen in every built-in theme at 120x40 (issue 10).

To snapshot another screen in every theme, add a builder to screens.py and one function here:

    @EVERY_THEME
    def test_tree(snap_compare, theme):
        assert snap_compare(ScreenApp(tree_browser, theme), terminal_size=SIZE)
"""

from __future__ import annotations

import pytest

import themes
from tests.theme_snapshots.screens import SIZE, ScreenApp, conversation, tree_browser

EVERY_THEME = pytest.mark.parametrize("theme", themes.BUILTIN_THEMES)


@EVERY_THEME
def test_conversation(snap_compare, theme):
    assert snap_compare(ScreenApp(conversation, theme), terminal_size=SIZE)


@EVERY_THEME
def test_tree_browser(snap_compare, theme):
    assert snap_compare(ScreenApp(tree_browser, theme), terminal_size=SIZE)
