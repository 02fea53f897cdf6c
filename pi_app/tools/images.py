"""Preparing an image for a model, as pi does: a supported format, upright, within size limits.

PNG, JPEG, GIF and WebP go as they are when they fit; other formats Pillow reads (BMP, TIFF …) become PNG.
With auto-resize (pi's ``images.autoResize``, on by default) an image larger than the limits is scaled to
fit (EXIF orientation applied), encoded as PNG and as JPEG at falling qualities, and the smallest encoding
under the byte limit wins; if none fits the image shrinks by a quarter and tries again. The text that goes
with the image says what happened, in pi's words. Pillow is imported only when an image needs work.
The limits are the current model's ``inputLimits.images.resize`` (pi 1.6's catalogue, models.json), each
omitted field at pi's default.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL.Image import Image

    from pi_app.ai.types import ImageContent, Model

SUPPORTED = ("image/png", "image/jpeg", "image/gif", "image/webp")
CONVERT_FAILED = "[Image omitted: could not be converted to a supported inline image format.]"
RESIZE_FAILED = "[Image omitted: could not be resized below the inline image size limit.]"


@dataclass(frozen=True)
class ResizeLimits:
    """pi's defaults: 2000×2000 pixels, 4.5 MiB of base64, JPEG quality 80."""

    max_width: int = 2000
    max_height: int = 2000
    max_bytes: int = int(4.5 * 1024 * 1024)
    jpeg_quality: int = 80

    @classmethod
    def from_input_limits(cls, input_limits: Mapping[str, Any] | None) -> ResizeLimits:
        """A model's ``inputLimits.images.resize`` (pi's catalogue, models.json) with omitted fields at pi's
        defaults. Values that are not positive whole numbers (or a JPEG quality above 100) are ignored:
        models.json is validated where it is read, this only guards against an odd catalogue entry."""
        images = input_limits.get("images") if isinstance(input_limits, Mapping) else None
        resize = images.get("resize") if isinstance(images, Mapping) else None
        if not isinstance(resize, Mapping):
            return cls()
        values: dict[str, int] = {}
        for f in fields(cls):
            key = _CAMEL[f.name]
            value = resize.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                continue
            if key == "jpegQuality" and value > 100:
                continue
            values[f.name] = value
        return cls(**values)


_CAMEL = {
    "max_width": "maxWidth",
    "max_height": "maxHeight",
    "max_bytes": "maxBytes",
    "jpeg_quality": "jpegQuality",
}


def resize_limits_for(model: Model | None) -> ResizeLimits:
    """The resize profile for images entering the conversation with ``model`` (pi's defaults without one)."""
    return ResizeLimits.from_input_limits(model.inputLimits if model is not None else None)


@dataclass(frozen=True)
class PreparedImage:
    """An image ready for the model: base64 data, its MIME type, and notes on what was done to it."""

    data: str  # base64
    mime: str
    hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImageRefused:
    """An image that cannot be sent; ``message`` is the text that goes in its place."""

    message: str


def _b64_size(n: int) -> int:
    return (n + 2) // 3 * 4


def _open(data: bytes) -> Image | None:
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    return ImageOps.exif_transpose(image) or image


def _encode(image: Image, fmt: str, quality: int | None = None) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image = image.convert("RGB") if image.mode not in ("RGB", "L") else image
        image.save(out, "JPEG", quality=quality, optimize=True)
    else:
        image.save(out, "PNG", optimize=False)
    return out.getvalue()


def prepare_image(
    data: bytes, mime: str | None, *, auto_resize: bool = True, limits: ResizeLimits | None = None
) -> PreparedImage | ImageRefused:
    limits = limits or ResizeLimits()
    hints: list[str] = []
    if mime not in SUPPORTED:
        image = _open(data)
        if image is None:
            return ImageRefused(CONVERT_FAILED)
        data = _encode(image, "PNG")
        hints.append(f"[Image converted from {mime or 'an unknown format'} to image/png.]")
        mime = "image/png"
    if not auto_resize:
        return PreparedImage(base64.b64encode(data).decode("ascii"), mime, tuple(hints))
    from PIL import Image as PILImage

    probe = _open(data)
    if probe is None:  # as pi: an image its resizer cannot decode is refused as too large to send
        return ImageRefused(RESIZE_FAILED)
    width, height = probe.size
    if width <= limits.max_width and height <= limits.max_height and _b64_size(len(data)) < limits.max_bytes:
        return PreparedImage(base64.b64encode(data).decode("ascii"), mime, tuple(hints))
    target_w, target_h = width, height
    if target_w > limits.max_width:
        target_h, target_w = max(1, round(target_h * limits.max_width / target_w)), limits.max_width
    if target_h > limits.max_height:
        target_w, target_h = max(1, round(target_w * limits.max_height / target_h)), limits.max_height
    qualities = list(dict.fromkeys([limits.jpeg_quality, 85, 70, 55, 40]))
    while True:
        resized = probe.resize((target_w, target_h), PILImage.Resampling.LANCZOS)
        png = _encode(resized, "PNG")
        jpegs = [(_encode(resized, "JPEG", q), "image/jpeg") for q in qualities]
        first = [(png, "image/png"), jpegs[0]]
        first.sort(key=lambda c: len(c[0]))
        for encoded, kind in [*first, *jpegs[1:]]:
            if _b64_size(len(encoded)) < limits.max_bytes:
                scale = width / target_w
                hints.append(
                    f"[Image: original {width}x{height}, displayed at {target_w}x{target_h}. "
                    f"Multiply coordinates by {scale:.2f} to map to original image.]"
                )
                return PreparedImage(base64.b64encode(encoded).decode("ascii"), kind, tuple(hints))
        if target_w == 1 and target_h == 1:
            return ImageRefused(RESIZE_FAILED)
        target_w, target_h = max(1, int(target_w * 0.75)), max(1, int(target_h * 0.75))


def prepare_content_images(
    content: Sequence[Any], *, auto_resize: bool = True, limits: ResizeLimits | None = None
) -> list[Any]:
    """A tool result's blocks (extension and MCP tools) with each image prepared as pi does before it enters
    the conversation. What happened to an image (converted, resized, refused) is a text block right after
    it; a refused image is replaced by that text. Blocks that need nothing are the caller's objects."""
    from pi_app.ai.types import ImageContent, TextContent

    out: list[Any] = []
    for block in content:
        if not isinstance(block, ImageContent):
            out.append(block)
            continue
        try:
            data = base64.b64decode(block.data, validate=False)
        except (ValueError, TypeError):
            out.append(TextContent(text=CONVERT_FAILED))
            continue
        prepared = prepare_image(data, block.mimeType, auto_resize=auto_resize, limits=limits)
        if isinstance(prepared, ImageRefused):
            out.append(TextContent(text=prepared.message))
            continue
        if prepared.data == block.data and prepared.mime == block.mimeType:
            out.append(block)
        else:
            out.append(ImageContent(data=prepared.data, mimeType=prepared.mime))
        if prepared.hints:
            out.append(TextContent(text="\n".join(prepared.hints)))
    return out


def prepare_prompt_images(
    text: str, images: Sequence[ImageContent], *, auto_resize: bool = True, limits: ResizeLimits | None = None
) -> tuple[str, list[ImageContent]]:
    """Images sent with a prompt (any front end, @file, RPC, extensions), prepared as pi does before they
    enter the conversation: each one for the current model's limits; one that cannot be used is dropped.
    What happened is noted after the text, a blank line apart."""
    from pi_app.ai.types import ImageContent

    out: list[ImageContent] = []
    notes: list[str] = []
    for image in images:
        try:
            data = base64.b64decode(image.data, validate=False)
        except (ValueError, TypeError):
            notes.append(CONVERT_FAILED)
            continue
        prepared = prepare_image(data, image.mimeType, auto_resize=auto_resize, limits=limits)
        if isinstance(prepared, ImageRefused):
            notes.append(prepared.message)
            continue
        if prepared.data == image.data and prepared.mime == image.mimeType:
            out.append(image)  # untouched: keep the caller's object
        else:
            out.append(ImageContent(data=prepared.data, mimeType=prepared.mime))
        notes.extend(prepared.hints)
    return (f"{text}\n\n" + "\n".join(notes) if notes else text), out
