from widgets.diff_render import edit_args_diff, generate_diff, render_diff, word_diff


def test_generate_diff_pi_format():
    diff, first = generate_diff("alpha\nbeta\ngamma", "alpha\nBETA\ngamma")
    assert diff == " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma"
    assert first == 2


def test_generate_diff_context_is_limited_with_ellipsis():
    old = "\n".join(f"l{i}" for i in range(1, 21))
    diff, first = generate_diff(old, old.replace("l10", "X10"))
    lines = diff.split("\n")
    assert lines[0] == "    ..."
    assert lines[1] == "  6 l6"
    assert "-10 l10" in lines and "+10 X10" in lines
    assert lines[-1] == "    ..."
    assert first == 10


def test_word_diff_marks_only_changed_words():
    removed, added = word_diff("    total = price * qty", "    total = cost * qty")
    assert removed == [(12, 17)]
    assert added == [(12, 16)]


def test_render_diff_highlights_single_line_change():
    content = render_diff(" 1 alpha\n-2 beta gamma\n+2 BETA gamma")
    assert content.plain == " 1 alpha\n-2 beta gamma\n+2 BETA gamma"
    reverse = [(s.start, s.end) for s in content.spans if s.style == "reverse"]
    text = content.plain
    assert [text[s:e] for s, e in reverse] == ["beta", "BETA"]
    styles = {str(s.style) for s in content.spans}
    assert {"$pi-tool-diff-added", "$pi-tool-diff-removed", "$pi-tool-diff-context"} <= styles


def test_render_diff_no_word_highlight_for_multi_line_blocks():
    content = render_diff("-1 a\n-2 b\n+1 c")
    assert not [s for s in content.spans if s.style == "reverse"]


def test_edit_args_diff_both_forms():
    assert edit_args_diff({"edits": [{"oldText": "x = 1", "newText": "x = 2"}]}) == "-1 x = 1\n+1 x = 2"
    assert edit_args_diff({"oldText": "a", "newText": "b"}) == "-1 a\n+1 b"
    assert edit_args_diff({"edits": [{"oldText": "a"}]}) is None
