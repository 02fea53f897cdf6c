import os

import pytest

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortController, AbortError
from pi_app.tools import fsutil
from pi_app.tools.edit import EditTool
from pi_app.tools.edit_diff import generate_diff_string, normalize_for_fuzzy_match


async def run(tmp_path, path, edits, **extra):
    return await EditTool(str(tmp_path)).execute("1", {"path": path, "edits": edits, **extra})


async def test_single_edit_success_text_and_diff(tmp_path):
    (tmp_path / "f.txt").write_text("alpha\nbeta\ngamma\n")
    r = await run(tmp_path, "f.txt", [{"oldText": "beta", "newText": "BETA"}])
    assert r.content[0].text == "Successfully replaced 1 block(s) in f.txt."
    assert r.details == {"diff": " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma", "firstChangedLine": 2}
    assert (tmp_path / "f.txt").read_text() == "alpha\nBETA\ngamma\n"


async def test_multi_edit_matches_original_not_incremental(tmp_path):
    (tmp_path / "f.txt").write_text("a = 1\nb = 2\nc = 3\n")
    # the second oldText would not exist after the first replacement if applied incrementally
    edits = [{"oldText": "a = 1", "newText": "b = 2x"}, {"oldText": "b = 2\n", "newText": "B\n"}]
    r = await run(tmp_path, "f.txt", edits)
    assert r.content[0].text == "Successfully replaced 2 block(s) in f.txt."
    assert (tmp_path / "f.txt").read_text() == "b = 2x\nB\nc = 3\n"


async def test_overlap_and_multi_errors(tmp_path):
    (tmp_path / "f.txt").write_text("one two three\n")
    with pytest.raises(ToolError) as e:
        await run(
            tmp_path,
            "f.txt",
            [{"oldText": "one two", "newText": "x"}, {"oldText": "two three", "newText": "y"}],
        )
    assert (
        str(e.value)
        == "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    )
    with pytest.raises(
        ToolError, match=r"^Could not find edits\[1\] in f.txt. The oldText must match exactly"
    ):
        await run(tmp_path, "f.txt", [{"oldText": "one", "newText": "1"}, {"oldText": "zzz", "newText": "y"}])
    with pytest.raises(ToolError, match=r"^edits\[1\].oldText must not be empty in f.txt.$"):
        await run(tmp_path, "f.txt", [{"oldText": "one", "newText": "1"}, {"oldText": "", "newText": "y"}])
    assert (tmp_path / "f.txt").read_text() == "one two three\n"


async def test_uniqueness_error(tmp_path):
    (tmp_path / "f.txt").write_text("x = 1\nx = 1\n")
    with pytest.raises(ToolError) as e:
        await run(tmp_path, "f.txt", [{"oldText": "x = 1", "newText": "y"}])
    assert str(e.value) == (
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    )


async def test_no_change_and_empty_errors(tmp_path):
    (tmp_path / "f.txt").write_text("same\n")
    with pytest.raises(ToolError) as e:
        await run(tmp_path, "f.txt", [{"oldText": "same", "newText": "same"}])
    assert str(e.value) == (
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue "
        "with special characters or the text not existing as expected."
    )
    with pytest.raises(ToolError, match=r"^oldText must not be empty in f.txt.$"):
        await run(tmp_path, "f.txt", [{"oldText": "", "newText": "x"}])
    with pytest.raises(
        ToolError, match="^Edit tool input is invalid. edits must contain at least one replacement.$"
    ):
        await run(tmp_path, "f.txt", [])


async def test_missing_file(tmp_path):
    with pytest.raises(ToolError, match=r"^Could not edit file: nope.txt. Error code: ENOENT.$"):
        await run(tmp_path, "nope.txt", [{"oldText": "a", "newText": "b"}])


async def test_not_found_names_closest_region(tmp_path):
    lines = [f"line {i}" for i in range(1, 30)]
    lines[14:17] = ["def compute(a, b):", "    total = a + b", "    return total"]
    (tmp_path / "m.py").write_text("\n".join(lines) + "\n")
    with pytest.raises(ToolError) as e:
        await run(
            tmp_path,
            "m.py",
            [{"oldText": "def compute(a, b):\n    total = a * b\n    return total", "newText": "x"}],
        )
    msg = str(e.value)
    assert msg.startswith(
        "Could not find the exact text in m.py. The old text must match exactly including all whitespace and newlines."
    )
    assert "Closest match (lines 15-17" in msg and "15\tdef compute(a, b):\n16\t    total = a + b" in msg


async def test_not_found_single_line_typo_hint(tmp_path):
    (tmp_path / "m.py").write_text("import os\nprint('hello world')\nx = 1\n")
    with pytest.raises(ToolError) as e:
        await run(tmp_path, "m.py", [{"oldText": "print('helo world')", "newText": "x"}])
    assert "Closest match (lines 2-2" in str(e.value) and "2\tprint('hello world')" in str(e.value)


async def test_not_found_without_anything_close(tmp_path):
    (tmp_path / "m.txt").write_text("aaaa\nbbbb\n")
    with pytest.raises(ToolError) as e:
        await run(tmp_path, "m.txt", [{"oldText": "zzzzzzzzzz qqqqq", "newText": "x"}])
    assert "Closest match" not in str(e.value)


async def test_fuzzy_match_smart_quotes_and_trailing_space(tmp_path):
    (tmp_path / "q.py").write_text("msg = \u201chello\u201d   \nit\u2019s \u2014 fine\n")
    r = await run(
        tmp_path, "q.py", [{"oldText": 'msg = "hello"\nit\'s - fine', "newText": 'msg = "bye"\nok'}]
    )
    assert r.content[0].text == "Successfully replaced 1 block(s) in q.py."
    assert (tmp_path / "q.py").read_text() == 'msg = "bye"\nok\n'


def test_fuzzy_normalisation():
    assert (
        normalize_for_fuzzy_match("a\u00a0b  \n\u2018x\u2019 \u201cy\u201d \u2013 \u2212 \ufb01")
        == "a b\n'x' \"y\" - - fi"
    )


async def test_crlf_and_bom_round_trip(tmp_path):
    f = tmp_path / "w.txt"
    f.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    await run(tmp_path, "w.txt", [{"oldText": "two\nthree", "newText": "2\n3"}])
    assert f.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"


async def test_invalid_utf8_bytes_survive(tmp_path):
    f = tmp_path / "bin.txt"
    f.write_bytes(b"keep \xff\xfe here\nchange me\n")
    await run(tmp_path, "bin.txt", [{"oldText": "change me", "newText": "changed"}])
    assert f.read_bytes() == b"keep \xff\xfe here\nchanged\n"


async def test_legacy_single_form_and_json_string_edits(tmp_path):
    (tmp_path / "f.txt").write_text("a b c")
    tool = EditTool(str(tmp_path))
    args = tool.prepare_arguments({"path": "f.txt", "oldText": "a", "newText": "A"})
    assert args == {"path": "f.txt", "edits": [{"oldText": "a", "newText": "A"}]}
    r = await tool.execute("1", {"path": "f.txt", "oldText": "b", "newText": "B"})
    assert r.content[0].text == "Successfully replaced 1 block(s) in f.txt."
    args = tool.prepare_arguments({"path": "f.txt", "edits": '[{"oldText": "c", "newText": "C"}]'})
    await tool.execute("1", args)
    assert (tmp_path / "f.txt").read_text() == "a B C"


async def test_crash_during_write_keeps_original(tmp_path, monkeypatch):
    f = tmp_path / "f.txt"
    f.write_text("x" * 3_000_000)  # more than one write chunk
    calls = []

    def failing(fd, data):
        if calls:
            raise OSError(5, "Input/output error")
        calls.append(1)
        return os.write(fd, data)

    monkeypatch.setattr(fsutil, "_write_chunk", failing)
    with pytest.raises(ToolError, match="^EIO"):
        await run(tmp_path, "f.txt", [{"oldText": "x" * 3_000_000, "newText": "y" * 2_500_000}])
    assert f.read_text() == "x" * 3_000_000 and os.listdir(tmp_path) == ["f.txt"]


async def test_abort_before_write(tmp_path):
    (tmp_path / "f.txt").write_text("a")
    ctl = AbortController()
    ctl.abort()
    with pytest.raises(AbortError, match="^Operation aborted$"):
        await EditTool(str(tmp_path)).execute(
            "1", {"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}, ctl.signal
        )
    assert (tmp_path / "f.txt").read_text() == "a"


def test_diff_context_and_ellipsis():
    old = "\n".join(str(i) for i in range(1, 21))
    new = old.replace("10", "TEN")
    diff, first = generate_diff_string(old, new)
    assert first == 10
    assert diff == "\n".join(
        [
            "    ...",
            "  6 6",
            "  7 7",
            "  8 8",
            "  9 9",
            "-10 10",
            "+10 TEN",
            " 11 11",
            " 12 12",
            " 13 13",
            " 14 14",
            "    ...",
        ]
    )
    # two changes 10 lines apart: context collapses in the middle
    new2 = new.replace("20", "TWENTY").replace("1\n", "ONE\n", 1)
    diff2, first2 = generate_diff_string(old, new2)
    assert first2 == 1 and diff2.splitlines()[0] == "- 1 1" and diff2.splitlines()[-1] == "+20 TWENTY"
