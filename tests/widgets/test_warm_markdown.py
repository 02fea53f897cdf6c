"""The app warms the Markdown path in its startup worker thread, so the first answer does not pay Rich's
parser and Pygments' lexer set-up on the event loop (issue 15, streaming key → frame)."""

from __future__ import annotations

from widgets.rendering import _lexer, rich_parser, warm_markdown


def test_warm_markdown_sets_up_the_parser_and_code_block_paths() -> None:
    _lexer.cache_clear()
    rich_parser.cache_clear()
    warm_markdown()
    assert _lexer.cache_info().currsize == 1  # the code block's Python lexer
    assert rich_parser.cache_info().currsize == 1  # the Markdown parser, built once
