"""Per-model image input limits (pi's ``inputLimits.images.resize``): read from the catalogue and models.json,
merged as pi merges overrides, and used by the read tool and the session instead of the fixed defaults."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pi_app.ai.models import get_model
from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.session.config import AuthStorage, ModelRegistry
from pi_app.tools.images import ResizeLimits, prepare_image, resize_limits_for
from tests.agent_session.helpers import make_session

SMALL = {"maxWidth": 800, "maxHeight": 600, "maxBytes": 300_000, "jpegQuality": 70}


def png(size: tuple[int, int]) -> bytes:
    image = Image.new("RGB", size)
    # a gradient: compresses like a picture, not like a flat colour
    image.putdata([(x % 256, y % 256, (x * y) % 256) for y in range(size[1]) for x in range(size[0])])
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def size_of(b64: str) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(b64))).size


def test_resize_profile_fields_default_one_by_one() -> None:
    assert ResizeLimits.from_input_limits(None) == ResizeLimits()
    assert ResizeLimits.from_input_limits({"maxRequestBytes": 10}) == ResizeLimits()
    assert ResizeLimits.from_input_limits({"images": {"resize": SMALL}}) == ResizeLimits(
        800, 600, 300_000, 70
    )
    partial = ResizeLimits.from_input_limits({"images": {"resize": {"maxWidth": 1568}}})
    assert partial == ResizeLimits(max_width=1568)
    # odd catalogue values fall back to the default of that field only
    odd = {"images": {"resize": {"maxWidth": 0, "maxHeight": True, "maxBytes": "9", "jpegQuality": 101}}}
    assert ResizeLimits.from_input_limits(odd) == ResizeLimits()


def test_catalogue_models_carry_their_limits() -> None:
    opus = get_model("anthropic", "claude-opus-4-6")
    assert opus is not None and opus.inputLimits is not None
    assert opus.inputLimits["images"]["maxPerRequest"] == 600
    assert resize_limits_for(opus) == ResizeLimits(2000, 2000, 4_718_592, 80)
    assert resize_limits_for(None) == ResizeLimits()


def registry(tmp_path: Path, config: dict[str, Any]) -> ModelRegistry:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(config))
    return ModelRegistry(AuthStorage.in_memory(), path)


def test_models_json_limits_for_custom_models_and_overrides(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "api": "openai-completions",
                    "apiKey": "x",
                    "models": [
                        {
                            "id": "vision",
                            "input": ["text", "image"],
                            "inputLimits": {"images": {"resize": SMALL}},
                        }
                    ],
                },
                "anthropic": {
                    "modelOverrides": {
                        "claude-opus-4-6": {"inputLimits": {"images": {"resize": {"maxWidth": 1568}}}}
                    }
                },
            }
        },
    )
    assert reg.error is None
    vision = reg.find("local", "vision")
    assert vision is not None and resize_limits_for(vision) == ResizeLimits(800, 600, 300_000, 70)
    opus = reg.find("anthropic", "claude-opus-4-6")
    assert opus is not None and opus.inputLimits is not None
    # pi's merge: resize fields merge one by one, the rest of the catalogue's limits stay
    assert resize_limits_for(opus) == ResizeLimits(1568, 2000, 4_718_592, 80)
    assert (
        opus.inputLimits["images"]["maxPerRequest"] == 600 and opus.inputLimits["maxRequestBytes"] == 33554432
    )


def test_models_json_rejects_a_bad_limit(tmp_path: Path) -> None:
    bad = {"images": {"resize": {"jpegQuality": 0}}}
    reg = registry(
        tmp_path,
        {"providers": {"anthropic": {"modelOverrides": {"claude-opus-4-6": {"inputLimits": bad}}}}},
    )
    assert reg.error is not None and "jpegQuality" in reg.error and "models.json" in reg.error


def test_prepare_image_follows_the_profile() -> None:
    data = png((1200, 900))
    prepared = prepare_image(data, "image/png", limits=ResizeLimits(800, 600, 300_000, 70))
    assert not hasattr(prepared, "message")
    assert size_of(prepared.data) == (800, 600)  # type: ignore[union-attr]
    assert len(prepared.data) < 300_000  # type: ignore[union-attr]
    assert prepared.hints == (  # type: ignore[union-attr]
        "[Image: original 1200x900, displayed at 800x600. Multiply coordinates by 1.50 to map to original image.]",
    )
    unchanged = prepare_image(data, "image/png")  # within pi's defaults: sent as it is
    assert base64.b64decode(unchanged.data) == data  # type: ignore[union-attr]


@pytest.mark.parametrize("limited", [True, False])
async def test_read_tool_resizes_for_the_current_model(tmp_path: Path, faux: Any, limited: bool) -> None:
    session = await make_session(tmp_path)
    if limited:
        model = session.model
        assert model is not None
        session.agent.state.model = model.model_copy(update={"inputLimits": {"images": {"resize": SMALL}}})
    data = png((1200, 900))
    (tmp_path / "proj" / "shot.png").write_bytes(data)
    faux.enqueue(faux_tool("read", {"path": "shot.png"}), faux_text("seen"))
    await session.prompt("look")
    result = next(m for m in session.messages if m.role == "toolResult")
    note, image = result.content
    if limited:
        assert size_of(image.data) == (800, 600)
        assert "displayed at 800x600" in note.text
    else:
        assert base64.b64decode(image.data) == data
        assert note.text == "Read image file [image/png]"


async def test_prompt_images_are_prepared_for_the_current_model(tmp_path: Path, faux: Any) -> None:
    """As pi: images sent with a prompt (RPC, @file, extensions) are resized for the model before they are
    stored and sent; one that cannot be decoded is dropped with pi's note after the text."""
    from pi_app.ai.types import ImageContent

    session = await make_session(tmp_path)
    model = session.model
    assert model is not None
    session.agent.state.model = model.model_copy(update={"inputLimits": {"images": {"resize": SMALL}}})
    big = ImageContent(data=base64.b64encode(png((1200, 900))).decode(), mimeType="image/png")
    broken = ImageContent(data=base64.b64encode(b"not an image").decode(), mimeType="image/png")
    faux.enqueue(faux_text("ok"))
    await session.prompt("look", images=[big, broken])
    sent = next(m for m in session.messages if m.role == "user")
    text, image = sent.content
    assert size_of(image.data) == (800, 600)
    assert text.text == (
        "look\n\n"
        "[Image: original 1200x900, displayed at 800x600. Multiply coordinates by 1.50 to map to original image.]\n"
        "[Image omitted: could not be resized below the inline image size limit.]"
    )


def test_extension_provider_models_keep_their_limits(tmp_path: Path) -> None:
    from pi_app.session.config import ProviderRegistration

    reg = ModelRegistry(AuthStorage.in_memory(), None)
    reg.register_provider(
        "ext",
        ProviderRegistration(
            baseUrl="http://127.0.0.1:9/v1",
            apiKey="k",
            api="openai-completions",
            models=[
                {
                    "id": "eye",
                    "input": ["text", "image"],
                    "inputLimits": {"images": {"resize": {"maxBytes": 1000}}},
                }
            ],
        ),
    )
    eye = reg.find("ext", "eye")
    assert eye is not None and resize_limits_for(eye) == ResizeLimits(max_bytes=1000)


async def test_the_provider_receives_the_image_resized_for_its_model(tmp_path: Path, loopback: Any) -> None:
    """End to end over the wire: an OpenAI-compatible model whose models.json entry limits images to
    800x600; the read tool's image reaches the (loopback) server at that size."""
    from pi_app.ai.types import Model
    from tests.loopback.openai_wire import chat_chunk, chat_stream, chat_text_stream, tool_delta

    model = Model.model_validate(
        {
            "id": "vision",
            "api": "openai-completions",
            "provider": "local",
            "baseUrl": loopback.url + "/v1",
            "input": ["text", "image"],
            "inputLimits": {"images": {"resize": SMALL}},
        }
    )
    session = await make_session(tmp_path, model=model, api_key="k")
    (tmp_path / "proj" / "shot.png").write_bytes(png((1200, 900)))
    loopback.add(
        chat_stream(
            chat_chunk({"role": "assistant", "content": ""}),
            chat_chunk(tool_delta(0, id="call_1", name="read", args='{"path": "shot.png"}')),
            chat_chunk({}, "tool_calls"),
        ),
        chat_text_stream("seen"),
    )
    await session.prompt("look")
    urls = [
        part["image_url"]["url"]
        for message in loopback.requests[1].json["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    assert len(urls) == 1 and urls[0].startswith("data:image/")
    assert size_of(urls[0].split(",", 1)[1]) == (800, 600)
