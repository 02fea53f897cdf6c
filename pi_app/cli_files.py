"""``@file`` arguments: text files inlined into the first message, images attached (resized as pi does)."""

from __future__ import annotations

import os
import unicodedata
from typing import TYPE_CHECKING

from pi_app.cli_args import CliError

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent

_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image_mime(head: bytes) -> str | None:
    """png/jpeg/gif/webp from the first bytes, else None (the extension does not matter)."""
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def resolve_file_arg(file_arg: str, cwd: str) -> str:
    """Absolute path for an ``@file`` argument: ``~`` expansion, odd Unicode spaces, macOS screenshot names."""
    path = file_arg[1:] if file_arg.startswith("@") else file_arg
    path = path.translate(_UNICODE_SPACES)
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser("~") + path[1:]
    resolved = os.path.abspath(os.path.join(cwd, path))
    if os.path.exists(resolved):
        return resolved
    am_pm = resolved.replace(" AM.", "\u202fAM.").replace(" PM.", "\u202fPM.")
    nfd = unicodedata.normalize("NFD", resolved)
    for variant in (am_pm, nfd, resolved.replace("'", "\u2019"), nfd.replace("'", "\u2019")):
        if variant != resolved and os.path.exists(variant):
            return variant
    return resolved


def process_file_args(file_args: list[str], cwd: str) -> tuple[str, list[ImageContent]]:
    """Turn ``@file`` arguments into (text prefix for the first message, image attachments).

    Text files are inlined as ``<file name="ABS">\\ncontent\\n</file>\\n``; images (detected by their magic
    bytes) are attached as base64 with an empty ``<file name="ABS"></file>\\n`` reference; empty files are
    skipped. A missing or unreadable file raises CliError naming it. Images are resized to pi's limits
    (``pi_app.tools.images``); the note of a resized or refused image goes inside its ``<file>`` reference.
    """
    from pi_app.ai.types import ImageContent  # deferred: pydantic import is slow for --version

    text = ""
    images: list[ImageContent] = []
    for arg in file_args:
        path = resolve_file_arg(arg, cwd)
        if not os.path.exists(path):
            raise CliError(f"File not found: {path}")
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, "is a directory")
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise CliError(f"Could not read file {path}: {exc.strerror or exc}") from exc
        if not data:
            continue
        mime = sniff_image_mime(data[:16])
        if mime:
            from pi_app.tools.images import ImageRefused, prepare_image

            prepared = prepare_image(data, mime)
            if isinstance(prepared, ImageRefused):
                text += f'<file name="{path}">{prepared.message}</file>\n'
                continue
            images.append(ImageContent(data=prepared.data, mimeType=prepared.mime))
            text += f'<file name="{path}">{"".join(prepared.hints)}</file>\n'
            continue
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError:
            content = data.decode("utf-8", errors="replace")
        text += f'<file name="{path}">\n{content}\n</file>\n'
    return text, images
