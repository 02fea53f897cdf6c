"""Per-model thinking levels at the session level: offered, cycled and clamped for catalogue models (no
network: nothing is prompted), through ``--thinking``, ``:level`` suffixes, scoped models, the session API
behind Shift+Tab and /thinking, RPC, and models.json definitions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_app.ai import models as M
from pi_app.session.agent_session import AgentSession
from pi_app.session.assembly import create_agent_session
from pi_app.session.config import AuthStorage, ModelRegistry, ScopedModel, SettingsManager
from pi_app.session.store import SessionManager
from tests.modes.rpc_driver import RpcDriver

NO_OFF = ["low", "medium", "high", "xhigh", "max"]  # claude-opus-5-5: thinking cannot be off
PLAIN = ["off", "minimal", "low", "medium", "high"]  # claude-haiku-4-5: no map


async def _session(tmp_path: Path, models_json: dict[str, Any] | None = None, **kw: Any) -> AgentSession:
    project = tmp_path / "proj"
    project.mkdir(parents=True, exist_ok=True)
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key("anthropic", "test-key")
    path = None
    if models_json is not None:
        path = tmp_path / "models.json"
        path.write_text(json.dumps(models_json))
    registry = ModelRegistry(auth, path)
    kw.setdefault("model", "anthropic/claude-opus-5-5")
    return await create_agent_session(
        project,
        tmp_path / "agent",
        settings=kw.pop("settings", None) or SettingsManager.in_memory({}),
        auth=auth,
        model_registry=registry,
        session=SessionManager.create(str(project), tmp_path / "sessions"),
        **kw,
    )


def _levels_in_file(session: AgentSession) -> list[str]:
    """The levels the session recorded (the file itself is written with the first answer, as pi)."""
    branch = session.session_manager.get_branch()
    return [e.get("thinkingLevel") for e in branch if e.get("type") == "thinking_level_change"]


async def test_model_that_always_thinks_offers_cycles_and_clamps(tmp_path):
    s = await _session(tmp_path, thinking_level="off")
    assert s.model.id == "claude-opus-5-5"
    assert s.thinking_level == "low"  # --thinking off on a model whose thinking cannot be off
    assert s.available_thinking_levels() == NO_OFF
    seen = [s.cycle_thinking_level() for _ in range(5)]  # what Shift+Tab steps through
    assert seen == ["medium", "high", "xhigh", "max", "low"]
    s.set_thinking_level("minimal")  # /thinking or RPC with a level the model lacks: the next one up
    assert s.thinking_level == "low"
    s.set_thinking_level("max")
    assert s.thinking_level == "max"
    assert s.settings.default_thinking_level == "max"
    # Switching to a model without xhigh/max clamps the carried level down.
    await s.set_model(M.get_model("anthropic", "claude-haiku-4-5"))
    assert s.thinking_level == "high" and s.available_thinking_levels() == PLAIN
    assert s.cycle_thinking_level() == "off"
    # ... and back: "off" is not offered, so the level becomes the lowest one offered.
    await s.set_model(M.get_model("anthropic", "claude-opus-5-5"))
    assert s.thinking_level == "low"
    assert _levels_in_file(s)[-3:] == ["high", "off", "low"]
    assert "off" not in _levels_in_file(s)[:-2]


async def test_thinking_flag_and_level_suffix_are_clamped_to_the_model(tmp_path):
    haiku = await _session(tmp_path / "a", model="anthropic/claude-haiku-4-5", thinking_level="max")
    assert haiku.thinking_level == "high"
    suffix = await _session(tmp_path / "b", model="anthropic/claude-haiku-4-5:xhigh")
    assert suffix.thinking_level == "high"
    kept = await _session(tmp_path / "c", model="anthropic/claude-opus-5-5:max")
    assert kept.thinking_level == "max"
    bare_id = await _session(tmp_path / "d", model="claude-opus-5-5:minimal")
    assert bare_id.thinking_level == "low"


async def test_scoped_model_levels_are_clamped_when_cycling(tmp_path):
    opus = M.get_model("anthropic", "claude-opus-5-5")
    haiku = M.get_model("anthropic", "claude-haiku-4-5")
    s = await _session(
        tmp_path, model=haiku, scoped_models=[ScopedModel(haiku, "max"), ScopedModel(opus, "off")]
    )
    assert (await s.cycle_model()).id == "claude-opus-5-5" and s.thinking_level == "low"
    assert (await s.cycle_model()).id == "claude-haiku-4-5" and s.thinking_level == "high"


async def test_rpc_thinking_commands_follow_the_model(tmp_path):
    s = await _session(tmp_path)
    rpc = RpcDriver(s)
    levels = (await rpc.call({"type": "get_available_thinking_levels"}))["data"]["levels"]
    assert levels == NO_OFF
    assert (await rpc.call({"type": "set_thinking_level", "level": "off"}))["success"] is True
    assert s.thinking_level == "low"
    assert (await rpc.call({"type": "set_thinking_level", "level": "max"}))["success"] is True
    assert (await rpc.call({"type": "cycle_thinking_level"}))["data"] == {"level": "low"}
    bad = await rpc.call({"type": "set_thinking_level", "level": "ultra"})
    assert bad["success"] is False and "max" in bad["error"]
    await rpc.call({"type": "set_model", "provider": "anthropic", "modelId": "claude-haiku-4-5"})
    levels = (await rpc.call({"type": "get_available_thinking_levels"}))["data"]["levels"]
    assert levels == PLAIN


async def test_models_json_thinking_level_map(tmp_path):
    config = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [
                    {"id": "thinker", "reasoning": True, "thinkingLevelMap": {"off": None, "max": "max"}},
                ],
            },
            "anthropic": {"modelOverrides": {"claude-haiku-4-5": {"thinkingLevelMap": {"xhigh": "xhigh"}}}},
        }
    }
    s = await _session(tmp_path, models_json=config, model="local/thinker", thinking_level="off")
    assert s.available_thinking_levels() == ["minimal", "low", "medium", "high", "max"]
    assert s.thinking_level == "minimal"
    haiku = s.model_registry.find("anthropic", "claude-haiku-4-5")
    assert M.available_thinking_levels(haiku) == [*PLAIN, "xhigh"]
    # The override copies: the shared catalogue model is unchanged.
    assert M.get_model("anthropic", "claude-haiku-4-5").thinkingLevelMap is None
