import pytest

from widgets.tool_format import ToolResultData, format_tool, tool_body, tool_header

HOME = "/home/u"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("read", {"path": "/home/u/src/a.py", "offset": 1, "limit": 20}, "read ~/src/a.py:1-20"),
        ("read", {"path": "a.py", "offset": 5}, "read a.py:5"),
        ("read", {"path": 7}, "read [invalid arg]"),
        ("read", {}, "read ..."),
        ("bash", {"command": "ls -la"}, "$ ls -la"),
        ("bash", {"command": "sleep 1", "timeout": 30}, "$ sleep 1 (timeout 30s)"),
        ("edit", {"path": "b.txt"}, "edit b.txt"),
        ("write", {"path": "/home/u/w.py", "content": ""}, "write ~/w.py"),
        (
            "grep",
            {"pattern": "foo", "path": "src", "glob": "*.py", "limit": 5},
            "grep /foo/ in src (*.py) limit 5",
        ),
        ("grep", {"pattern": "foo"}, "grep /foo/ in ."),
        ("find", {"pattern": "*.ts", "path": "web", "limit": 3}, "find *.ts in web (limit 3)"),
        ("ls", {"path": "/home/u"}, "ls ~"),
        ("ls", {"limit": 9}, "ls . (limit 9)"),
        ("mytool", {"x": 1}, "mytool"),
    ],
)
def test_headers(name, args, expected):
    assert tool_header(name, args, HOME).plain == expected


def test_edit_header_shows_first_changed_line_after_success():
    result = ToolResultData("ok", details={"diff": "-3 a\n+3 b", "firstChangedLine": 3})
    text = format_tool("edit", {"path": "f.py"}, result, home=HOME).plain
    assert text.split("\n")[0] == "edit f.py:3"
    assert text.endswith("-3 a\n+3 b")


def _numbers(n):
    return "\n".join(f"line{i}" for i in range(1, n + 1))


@pytest.mark.parametrize(("name", "limit"), [("read", 10), ("ls", 20), ("find", 20), ("grep", 15)])
def test_head_previews(name, limit):
    body = tool_body(
        name, {"path": "notes.txt", "pattern": "x"}, ToolResultData(_numbers(limit + 7)), expanded=False
    )
    plain = [c.plain for c in body]
    assert plain[:limit] == [f"line{i}" for i in range(1, limit + 1)]
    assert plain[limit] == "... (7 more lines, ctrl+o to expand)"
    expanded = tool_body(name, {"path": "notes.txt"}, ToolResultData(_numbers(limit + 7)), expanded=True)
    assert len(expanded) == limit + 7


def test_write_preview_counts_total_and_highlights():
    body = tool_body("write", {"path": "a.py", "content": _numbers(12)}, None, expanded=False)
    assert body[-1].plain == "... (2 more lines, 12 total, ctrl+o to expand)"
    py = tool_body("write", {"path": "a.py", "content": "def f():\n    return 1"}, None, expanded=False)
    assert any("$pi-syntax-keyword" in str(s.style) for s in py[0].spans)


def test_bash_tail_preview():
    body = tool_body("bash", {"command": "x"}, ToolResultData(_numbers(9)), expanded=False)
    assert [c.plain for c in body] == ["... (4 earlier lines, ctrl+o to expand)"] + [
        f"line{i}" for i in range(5, 10)
    ]
    wrapped = tool_body("bash", {"command": "x"}, ToolResultData("a" * 25), expanded=False, width=10)
    assert [c.plain for c in wrapped] == ["aaaaaaaaaa", "aaaaaaaaaa", "aaaaa"]


def test_truncation_warnings():
    read = ToolResultData(
        "x",
        details={
            "truncation": {"truncated": True, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000}
        },
    )
    assert tool_body("read", {"path": "a"}, read, False)[-1].plain == (
        "[Truncated: showing 2000 of 5000 lines (2000 line limit)]"
    )
    ls = ToolResultData("a", details={"entryLimitReached": 500, "truncation": {"truncated": True}})
    assert tool_body("ls", {}, ls, False)[-1].plain == "[Truncated: 500 entries limit, 50.0KB limit]"
    bash = ToolResultData("a", details={"fullOutputPath": "/tmp/o.log"})
    assert tool_body("bash", {"command": "a"}, bash, False)[-1].plain == "[Full output: /tmp/o.log]"


def test_result_from_content_blocks_strips_ansi():
    data = ToolResultData.from_content(
        [
            {"type": "text", "text": "\x1b[31mred\x1b[0m\r"},
            {"type": "image", "data": "", "mimeType": "image/png"},
        ]
    )
    assert data.output == "red\n[Image: image/png]"
