"""pi 1.6's ``modelThinkingLevels`` setting: a per-model startup thinking level keyed by "provider/modelId".
It beats defaultThinkingLevel at startup and when switching to that model, loses to an explicit level, is
not applied on resume, and is never written back as the global default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_app.ai.providers.faux import faux_model, faux_text
from pi_app.session.config import SettingsManager
from pi_app.session.store import SessionManager

from .helpers import make_session

LEVELS = {
    "defaultThinkingLevel": "low",
    "modelThinkingLevels": {"faux/faux-2": "high", "faux/faux-1": "minimal"},
}


async def test_startup_uses_the_models_level(tmp_path: Path) -> None:
    session = await make_session(tmp_path, settings=LEVELS)
    assert session.thinking_level == "minimal"
    (tmp_path / "b").mkdir()
    other = await make_session(tmp_path / "b", settings={**LEVELS, "modelThinkingLevels": {}})
    assert other.thinking_level == "low"


async def test_explicit_level_wins(tmp_path: Path) -> None:
    session = await make_session(tmp_path, settings=LEVELS, thinking_level="medium")
    assert session.thinking_level == "medium"


async def test_switching_applies_it_without_touching_the_default(tmp_path: Path) -> None:
    settings = SettingsManager.in_memory(LEVELS)
    session = await make_session(tmp_path, settings_manager=settings)
    await session.set_model(faux_model(id="faux-2"))
    assert session.thinking_level == "high"
    assert settings.settings.defaultThinkingLevel == "low"  # not saved as the global default
    branch = session.session_manager.get_branch()
    assert [e.get("thinkingLevel") for e in branch if e.get("type") == "thinking_level_change"][-1] == "high"
    await session.set_model(faux_model(id="faux-3"))  # no entry of its own: as before (carries over)
    assert session.thinking_level == "high"


async def test_resume_keeps_the_sessions_level(tmp_path: Path, faux: Any) -> None:
    first = await make_session(tmp_path, settings={"defaultThinkingLevel": "low"})
    first.set_thinking_level("medium")
    faux.enqueue(faux_text("hi"))
    await first.prompt("hello")  # the file is written once there is an answer
    path = first.session_file
    assert path is not None
    resumed = await make_session(tmp_path, settings=LEVELS, session=SessionManager.open(path))
    assert resumed.thinking_level == "medium"


async def test_per_model_off_reaches_the_wire_as_the_models_value(tmp_path: Path, loopback: Any) -> None:
    """modelThinkingLevels says "off" for a catalogue model whose thinkingLevelMap maps off to "none": the
    request to the (loopback) server carries reasoning_effort "none"."""
    from pi_app.ai.models import get_model
    from tests.loopback.openai_wire import chat_text_stream

    model = get_model("cerebras", "qwen-3.8-27b")
    assert model is not None
    model = model.model_copy(update={"baseUrl": loopback.url + "/v1"})
    settings = {"defaultThinkingLevel": "high", "modelThinkingLevels": {"cerebras/qwen-3.8-27b": "off"}}
    session = await make_session(tmp_path, settings=settings, model=model, api_key="k")
    assert session.thinking_level == "off"
    loopback.add(chat_text_stream("ok"))
    await session.prompt("hi")
    assert loopback.requests[0].json["reasoning_effort"] == "none"
