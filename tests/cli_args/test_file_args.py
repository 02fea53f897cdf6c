"""`@file` arguments: text inlined in <file> tags, images attached by magic bytes, errors name the file."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from pi_app.ai.types import ImageContent
from pi_app.cli_args import CliError
from pi_app.cli_files import process_file_args, sniff_image_mime

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def test_text_file_is_inlined(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Title\nbody")
    text, images = process_file_args(["notes.md"], str(tmp_path))
    path = os.path.join(str(tmp_path), "notes.md")
    assert text == f'<file name="{path}">\n# Title\nbody\n</file>\n'
    assert images == []


def test_several_files_in_order_and_empty_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A")
    (tmp_path / "empty.txt").write_text("")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "b.py").write_text("print(1)")
    text, _ = process_file_args(["a.txt", "empty.txt", str(sub / "b.py")], str(tmp_path))
    assert text == (
        f'<file name="{tmp_path / "a.txt"}">\nA\n</file>\n<file name="{sub / "b.py"}">\nprint(1)\n</file>\n'
    )


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"),
                                          ("WEBP", "image/webp")])  # fmt: skip
def test_image_is_attached_by_magic_bytes(tmp_path: Path, fmt: str, mime: str) -> None:
    from PIL import Image

    f = tmp_path / "shot.dat"  # extension deliberately wrong
    Image.new("RGB", (8, 6), (200, 10, 10)).save(f, fmt)
    data = f.read_bytes()
    assert sniff_image_mime(data[:16]) == mime
    text, images = process_file_args(["shot.dat"], str(tmp_path))
    assert text == f'<file name="{f}"></file>\n'
    assert images == [ImageContent(data=base64.b64encode(data).decode(), mimeType=mime)]


def test_large_image_is_resized_and_a_broken_one_is_refused(tmp_path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (2400, 1200), (0, 90, 200)).save(tmp_path / "big.png")
    text, images = process_file_args(["big.png"], str(tmp_path))
    assert "[Image: original 2400x1200, displayed at 2000x1000." in text and len(images) == 1
    (tmp_path / "broken.png").write_bytes(PNG)
    text, images = process_file_args(["broken.png"], str(tmp_path))
    assert images == [] and "[Image omitted: could not be resized below the inline image size limit.]" in text


def test_png_named_txt_still_image_and_text_named_png_is_text(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not an image")
    text, images = process_file_args(["fake.png"], str(tmp_path))
    assert images == [] and "not an image" in text
    assert sniff_image_mime(b"hello") is None


def test_home_expansion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "h.txt").write_text("home file")
    text, _ = process_file_args(["~/h.txt"], "/")
    assert f'<file name="{tmp_path / "h.txt"}">' in text


def test_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(CliError) as err:
        process_file_args(["nope.txt"], str(tmp_path))
    assert str(err.value) == f"File not found: {tmp_path / 'nope.txt'}"


def test_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(CliError, match=r"Could not read file .*/d"):
        process_file_args(["d"], str(tmp_path))
