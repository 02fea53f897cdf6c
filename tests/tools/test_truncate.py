from pi_app.tools.truncate import format_size, truncate_head, truncate_line, truncate_tail


def test_format_size():
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(51200) == "50.0KB"
    assert format_size(1024 * 1024) == "1.0MB"
    assert format_size(1536 * 1024) == "1.5MB"


def test_head_no_truncation_at_exact_limits():
    text = "\n".join(["abcd"] * 10)  # 10 lines, 49 bytes
    r = truncate_head(text, max_lines=10, max_bytes=49)
    assert not r.truncated and r.truncatedBy is None and r.content == text
    assert (r.totalLines, r.totalBytes, r.outputLines, r.outputBytes) == (10, 49, 10, 49)


def test_head_lines_and_bytes_boundaries():
    text = "\n".join(["abcd"] * 10)
    r = truncate_head(text, max_lines=9, max_bytes=1000)
    assert r.truncatedBy == "lines" and r.outputLines == 9 and r.content == "\n".join(["abcd"] * 9)
    # 3 lines = 14 bytes exactly fits; 13 does not
    r = truncate_head(text, max_lines=100, max_bytes=14)
    assert r.truncatedBy == "bytes" and r.outputLines == 3 and r.outputBytes == 14
    r = truncate_head(text, max_lines=100, max_bytes=13)
    assert r.outputLines == 2 and r.content == "abcd\nabcd"


def test_head_first_line_exceeds():
    r = truncate_head("x" * 11 + "\nshort", max_lines=10, max_bytes=10)
    assert r.firstLineExceedsLimit and r.content == "" and r.truncatedBy == "bytes" and r.outputLines == 0


def test_head_multibyte_counts_bytes_not_chars():
    text = "é" * 5 + "\n" + "é" * 5  # each line 10 bytes
    r = truncate_head(text, max_lines=10, max_bytes=20)
    assert r.truncated and r.content == "é" * 5 and r.outputBytes == 10
    assert r.totalBytes == 21


def test_tail_boundaries():
    text = "\n".join(str(i) for i in range(10))  # "0".."9", 19 bytes
    r = truncate_tail(text, max_lines=3, max_bytes=1000)
    assert r.content == "7\n8\n9" and r.truncatedBy == "lines" and r.outputLines == 3
    r = truncate_tail(text, max_lines=100, max_bytes=5)
    assert r.content == "7\n8\n9" and r.truncatedBy == "bytes"
    r = truncate_tail(text, max_lines=100, max_bytes=4)
    assert r.content == "8\n9" and not r.lastLinePartial


def test_tail_partial_last_line_utf8_safe():
    # "€" is 3 bytes; a cut at 10 bytes would land inside a character, so it keeps 9 bytes (3 chars)
    text = "head\n" + "€" * 10
    r = truncate_tail(text, max_lines=100, max_bytes=10)
    assert r.lastLinePartial and r.content == "€" * 3 and r.outputBytes == 9 and r.outputLines == 1
    r = truncate_tail("€" * 10, max_lines=100, max_bytes=12)
    assert r.content == "€" * 4


def test_field_names_are_pis():
    j = truncate_tail("a\nb", max_lines=1).to_json()
    assert set(j) == {
        "content", "truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines", "outputBytes",
        "lastLinePartial", "firstLineExceedsLimit", "maxLines", "maxBytes",
    }  # fmt: skip
    assert truncate_head("a").to_json()["truncatedBy"] is None


def test_truncate_line():
    assert truncate_line("abc", 3) == ("abc", False)
    assert truncate_line("abcd", 3) == ("abc... [truncated]", True)
