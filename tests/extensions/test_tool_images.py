"""Images an extension (or MCP) tool returns are fitted to the current model before they enter the
conversation, as pi 1.6 does for every tool result (``inputLimits.images.resize``, ``images.autoResize``)."""

from __future__ import annotations

import base64
import io

from PIL import Image

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.ai.types import ImageContent, TextContent
from tests.agent_session.helpers import Script

from .helpers import session_with, write_ext

TOOL = """
import base64, io
from PIL import Image
from pi_app.ai.types import ImageContent
from pi_app.extensions.definitions import ToolDefinition

def _png(width, height):
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()

def register(pi):
    async def shot(tool_call_id, params, signal, on_update, ctx):
        return {"content": [
            {"type": "text", "text": "a screenshot"},
            ImageContent(data=_png(3000, 600), mimeType="image/png"),
            {"type": "image", "data": _png(40, 40), "mimeType": "image/png"},
            {"type": "image", "data": "bm90IGFuIGltYWdl", "mimeType": "image/png"},
        ]}
    pi.register_tool(ToolDefinition(name="shot", description="Takes a screenshot", execute=shot))
"""


def _size(block: ImageContent) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(block.data))).size


async def test_tool_images_are_fitted_to_the_model_limits(tmp_path, faux):
    session, runner, errors = await session_with(tmp_path, write_ext(tmp_path / "ext", "shot.py", TOOL))
    model = session.model
    assert model is not None
    model.inputLimits = {"images": {"resize": {"maxWidth": 500, "maxHeight": 500}}}
    Script(faux, faux_tool("shot", {}), faux_text("seen"))
    try:
        await session.prompt("take one")
        result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
        kinds = [type(c).__name__ for c in result.content]
        assert kinds == ["TextContent", "ImageContent", "TextContent", "ImageContent", "TextContent"]
        big, small = result.content[1], result.content[3]
        assert _size(big) == (500, 100)  # 3000x600 scaled to the model's 500 px
        assert "3000x600" in result.content[2].text and "500x100" in result.content[2].text
        assert _size(small) == (40, 40)  # already fits: passed through as it was
        assert isinstance(result.content[4], TextContent) and "Image omitted" in result.content[4].text
        assert errors == []
    finally:
        await runner.shutdown("quit")


async def test_auto_resize_off_keeps_the_tool_image_as_returned(tmp_path, faux):
    session, runner, errors = await session_with(tmp_path, write_ext(tmp_path / "ext", "shot.py", TOOL))
    session.settings.set_image_auto_resize(False)
    Script(faux, faux_tool("shot", {}), faux_text("seen"))
    try:
        await session.prompt("take one")
        result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
        images = [c for c in result.content if isinstance(c, ImageContent)]
        assert _size(images[0]) == (3000, 600)
    finally:
        await runner.shutdown("quit")
