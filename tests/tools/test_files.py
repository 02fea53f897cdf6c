import base64
import io
import os
import stat

import pytest

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortController, AbortError
from pi_app.tools import (
    ALL_TOOL_NAMES,
    DEFAULT_TOOL_NAMES,
    OutputLimits,
    ToolOptions,
    create_all_tools,
    create_coding_tools,
    fsutil,
)
from pi_app.tools.ls import LsTool
from pi_app.tools.paths import expand_path, resolve_read_path, resolve_to_cwd
from pi_app.tools.read import ReadTool
from pi_app.tools.write import WriteTool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 30


def text_of(result):
    return result.content[0].text


def test_factory_default_and_all():
    assert (
        [t.name for t in create_coding_tools("/tmp")]
        == list(DEFAULT_TOOL_NAMES)
        == ["read", "bash", "edit", "write"]
    )
    tools = create_all_tools("/tmp", ToolOptions())
    assert set(tools) == set(ALL_TOOL_NAMES) == {"read", "bash", "edit", "write", "grep", "find", "ls"}
    for name, tool in tools.items():
        assert tool.name == name and tool.description and tool.to_tool().parameters["type"] == "object"


def test_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert expand_path("@foo") == "foo"
    assert expand_path("a\u00a0b\u3000c") == "a b c"
    assert expand_path("~") == str(tmp_path) and expand_path("~/x") == f"{tmp_path}/x"
    assert resolve_to_cwd("sub/../f.txt", "/base") == "/base/f.txt"
    assert resolve_to_cwd("/abs", "/base") == "/abs"
    shot = tmp_path / "Screenshot 10.00.00\u202fAM.png"
    shot.write_bytes(b"x")
    assert resolve_read_path("Screenshot 10.00.00 AM.png", str(tmp_path)) == str(shot)
    curly = tmp_path / "Capture d\u2019e\u0301cran.png"
    curly.write_bytes(b"x")
    assert resolve_read_path("Capture d'\u00e9cran.png", str(tmp_path)) == str(curly)


# ---------------------------------------------------------------- read
async def test_read_plain_and_at_prefix(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree")
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "@a.txt"})
    assert text_of(r) == "one\ntwo\nthree" and r.details is None


async def test_read_offset_limit_notices(tmp_path):
    (tmp_path / "a.txt").write_text("\n".join(f"l{i}" for i in range(1, 11)))
    tool = ReadTool(str(tmp_path))
    r = await tool.execute("1", {"path": "a.txt", "offset": 3, "limit": 2})
    assert text_of(r) == "l3\nl4\n\n[6 more lines in file. Use offset=5 to continue.]"
    r = await tool.execute("1", {"path": "a.txt", "offset": 9, "limit": 5})
    assert text_of(r) == "l9\nl10"
    with pytest.raises(ToolError, match=r"^Offset 11 is beyond end of file \(10 lines total\)$"):
        await tool.execute("1", {"path": "a.txt", "offset": 11})


async def test_read_truncation_by_lines_and_bytes(tmp_path):
    (tmp_path / "many.txt").write_text("\n".join("x" for _ in range(2500)))
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "many.txt"})
    assert text_of(r).endswith("\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    assert r.details["truncation"]["truncatedBy"] == "lines"
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "many.txt", "offset": 2001})
    assert text_of(r).count("x") == 500
    (tmp_path / "wide.txt").write_text("\n".join("y" * 99 for _ in range(1000)))  # 100 B/line
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "wide.txt"})
    assert text_of(r).endswith(
        "\n\n[Showing lines 1-512 of 1000 (50.0KB limit). Use offset=513 to continue.]"
    )


async def test_read_first_line_too_long(tmp_path):
    (tmp_path / "big.txt").write_text("short\n" + "z" * 60000 + "\n")
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "big.txt", "offset": 2})
    assert (
        text_of(r)
        == "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' big.txt | head -c 51200]"
    )


async def test_read_missing_file_is_node_enoent(tmp_path):
    with pytest.raises(ToolError) as e:
        await ReadTool(str(tmp_path)).execute("1", {"path": "nope.txt"})
    assert str(e.value) == f"ENOENT: no such file or directory, access '{tmp_path}/nope.txt'"


@pytest.mark.parametrize(
    "data,mime",
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "image/jpeg"),
        (b"GIF89a" + b"\x00" * 20, "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 20, "image/webp"),
    ],
)
async def test_read_images_by_magic_bytes(tmp_path, data, mime):
    (tmp_path / "pic.bin").write_bytes(data)  # extension is irrelevant
    r = await ReadTool(str(tmp_path), ToolOptions(auto_resize_images=False)).execute("1", {"path": "pic.bin"})
    assert r.content[0].text == f"Read image file [{mime}]"
    assert r.content[1].type == "image" and r.content[1].mimeType == mime
    assert base64.b64decode(r.content[1].data) == data


async def test_read_abort(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    ctl = AbortController()
    ctl.abort()
    with pytest.raises(AbortError, match="^Operation aborted$"):
        await ReadTool(str(tmp_path)).execute("1", {"path": "a.txt"}, ctl.signal)


# ---------------------------------------------------------------- write
async def test_write_creates_parents_and_reports_js_length(tmp_path):
    r = await WriteTool(str(tmp_path)).execute("1", {"path": "d/e/f.txt", "content": "h\u00e9\U0001f600"})
    # JS length: h(1) + é(1) + emoji (2 UTF-16 units)
    assert text_of(r) == "Successfully wrote 4 bytes to d/e/f.txt" and r.details is None
    assert (tmp_path / "d/e/f.txt").read_text() == "h\u00e9\U0001f600"


async def test_write_keeps_mode_and_leaves_no_temp(tmp_path):
    f = tmp_path / "s.sh"
    f.write_text("old")
    f.chmod(0o751)
    await WriteTool(str(tmp_path)).execute("1", {"path": "s.sh", "content": "new"})
    assert f.read_text() == "new" and stat.S_IMODE(f.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["s.sh"]


async def test_write_crash_midway_keeps_original(tmp_path, monkeypatch):
    f = tmp_path / "keep.txt"
    f.write_text("original")
    calls = []

    def failing(fd, data):
        if calls:
            raise OSError(28, "No space left on device")
        calls.append(1)
        return os.write(fd, data[: len(data) // 2])

    monkeypatch.setattr(fsutil, "_write_chunk", failing)
    with pytest.raises(ToolError, match="ENOSPC"):
        await WriteTool(str(tmp_path)).execute("1", {"path": "keep.txt", "content": "replacement text"})
    assert f.read_text() == "original" and os.listdir(tmp_path) == ["keep.txt"]


async def test_write_through_symlink_keeps_link(tmp_path):
    (tmp_path / "real.txt").write_text("a")
    (tmp_path / "link.txt").symlink_to("real.txt")
    await WriteTool(str(tmp_path)).execute("1", {"path": "link.txt", "content": "b"})
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "b"


# ---------------------------------------------------------------- ls
async def test_ls(tmp_path):
    for name in ("b.txt", "A.txt", ".hidden", "c"):
        (tmp_path / name).write_text("x") if name != "c" else (tmp_path / name).mkdir()
    (tmp_path / "dangling").symlink_to("missing")
    tool = LsTool(str(tmp_path))
    assert text_of(await tool.execute("1", {})) == ".hidden\nA.txt\nb.txt\nc/"
    r = await tool.execute("1", {"limit": 2})
    assert text_of(r) == ".hidden\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    assert r.details == {"entryLimitReached": 2}
    assert text_of(await tool.execute("1", {"path": "c"})) == "(empty directory)"
    with pytest.raises(ToolError, match=f"^Path not found: {tmp_path}/zz$"):
        await tool.execute("1", {"path": "zz"})
    with pytest.raises(ToolError, match=f"^Not a directory: {tmp_path}/b.txt$"):
        await tool.execute("1", {"path": "b.txt"})


async def test_ls_byte_limit(tmp_path):
    for i in range(30):
        (tmp_path / (f"{i:02d}" + "n" * 40)).write_text("")
    opts = ToolOptions(tool_limits={"ls": OutputLimits(2000, 200)})
    r = await LsTool(str(tmp_path), opts).execute("1", {})
    # four 42-char names + 3 newlines = 171 bytes fit in 200; a fifth does not
    assert text_of(r) == "\n".join(f"{i:02d}" + "n" * 40 for i in range(4)) + "\n\n[200B limit reached]"


def _picture(tmp_path, name: str, size: tuple[int, int], fmt: str) -> bytes:
    from PIL import Image

    image = Image.new("RGB", size)
    image.putdata(
        [((x * 7) % 256, (y * 3) % 256, (x ^ y) % 256) for y in range(size[1]) for x in range(size[0])]
    )
    image.save(tmp_path / name, fmt)
    return (tmp_path / name).read_bytes()


async def test_read_resizes_large_images_as_pi(tmp_path):
    from PIL import Image

    data = _picture(tmp_path, "big.png", (3000, 1500), "PNG")
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "big.png"})
    note, image = r.content
    assert note.text.startswith("Read image file [image/")
    assert note.text.endswith(
        "[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]"
    )
    shown = Image.open(io.BytesIO(base64.b64decode(image.data)))
    assert shown.size == (2000, 1000) and len(image.data) < 4.5 * 1024 * 1024
    small = _picture(tmp_path, "small.png", (40, 30), "PNG")
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "small.png"})
    assert r.content[0].text == "Read image file [image/png]" and base64.b64decode(r.content[1].data) == small
    assert data != small


async def test_read_converts_bmp_and_refuses_broken_images(tmp_path):
    _picture(tmp_path, "pic.bmp", (20, 10), "BMP")
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "pic.bmp"})
    assert r.content[0].text == "Read image file [image/png]\n[Image converted from image/bmp to image/png.]"
    assert r.content[1].mimeType == "image/png"
    (tmp_path / "broken.png").write_bytes(PNG[:8] + b"garbage" * 10)
    r = await ReadTool(str(tmp_path)).execute("1", {"path": "broken.png"})
    assert r.content[0].text == (
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
    )
    assert len(r.content) == 1
