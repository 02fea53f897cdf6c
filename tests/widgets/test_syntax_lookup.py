"""The language of a file name comes from a table of pygments' patterns (issue 15: pygments' own lookup
compiled ~930 patterns on the event loop, ~0.3 s the first time a resumed session showed a read tool
call). The answer must stay exactly what pygments' lookup gives."""

from __future__ import annotations

import os

from widgets.syntax import _lexer_table, has_language_name, language_for_path, pygments_language


def _pygments(path: str) -> str | None:
    """The lookup as it was: pygments' own, over every pattern."""
    name = os.path.basename(path)
    return pygments_language(name) if has_language_name(name) else None


def test_extensions_and_special_names_match_pygments() -> None:
    """A spread of the table (every 12th extension: asking pygments imports each lexer it compares, ~15 s
    for all of them), the common ones, every special pattern and odd names."""
    table = _lexer_table()
    extensions = sorted(table.by_extension)
    common = [".py", ".ts", ".tsx", ".js", ".rs", ".go", ".md", ".json", ".toml", ".yml", ".c", ".h", ".sql"]
    names = [f"file{ext}" for ext in [*extensions[::12], *common]]
    names += [pattern.replace("*", "x").replace("?", "x") for pattern, _, _ in table.other]
    names += [
        "src/m.py",
        "a.d.ts",
        "foo.tar.gz",
        "x.PY",
        "noext",
        "Makefile",
        "Dockerfile",
        ".bashrc",
        "a.b.c",
    ]
    assert len(extensions) > 600 and len(names) > 150
    mismatches = [
        (n, language_for_path(n), _pygments(n)) for n in names if language_for_path(n) != _pygments(n)
    ]
    assert mismatches == []


def test_a_common_name_does_not_ask_pygments_to_scan_its_patterns(monkeypatch) -> None:
    import widgets.syntax as syntax

    def refuse(name: str) -> None:
        raise AssertionError(f"full pattern scan for {name}")

    monkeypatch.setattr(syntax, "get_lexer_for_filename", refuse)  # what pygments_language asks
    language_for_path.cache_clear()
    try:
        assert [language_for_path(n) for n in ("src/app.py", "x.ts", "README.md", "Cargo.toml")] == [
            "python",
            "typescript",
            "markdown",
            "toml",
        ]
    finally:
        language_for_path.cache_clear()
