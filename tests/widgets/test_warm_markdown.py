"""The app warms the Markdown path in its startup worker thread, so the first answer does not pay Rich's
parser and Pygments' lexer set-up on the event loop (issue 15, streaming key → frame)."""

from __future__ import annotations

from widgets.rendering import _highlight, _lexer, warm_markdown


def test_warm_markdown_sets_up_the_code_block_and_live_fence_paths() -> None:
    _lexer.cache_clear()
    _highlight.cache_clear()
    warm_markdown()
    assert _lexer.cache_info().currsize == 1  # the finished block's Python lexer
    assert _highlight.cache_info().currsize == 1  # the live fence
