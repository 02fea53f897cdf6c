"""Pure request-building rules of the Anthropic adapter (spec §2.8)."""

from __future__ import annotations

from pi_app.ai.providers.anthropic_request import (
    budget_for_level,
    cache_control_for,
    effort_for_level,
    normalize_tool_call_id,
    supports_adaptive_thinking,
)


def test_budget_for_level_defaults_overrides_and_small_models():
    assert budget_for_level("minimal", 32000, 64000) == (33024, 1024)
    assert budget_for_level("xhigh", 32000, 64000) == (48384, 16384)  # xhigh clamps to high
    assert budget_for_level("low", 1000, 64000, {"low": 500}) == (1500, 500)
    # the model's cap leaves no room for output beyond the budget: budget shrinks to cap - 1024
    assert budget_for_level("high", 8192, 8192) == (8192, 7168)
    assert budget_for_level("high", 500, 900) == (900, 0)


def test_effort_mapping_and_adaptive_detection():
    assert [
        effort_for_level(lv, "claude-opus-4-6") for lv in ("minimal", "low", "medium", "high", "xhigh")
    ] == [
        "low",
        "low",
        "medium",
        "high",
        "max",
    ]
    assert effort_for_level("xhigh", "claude-sonnet-4-6") == "high"
    assert supports_adaptive_thinking("claude-opus-4.6-20260101")
    assert not supports_adaptive_thinking("claude-sonnet-4-5")


def test_cache_control_retention(monkeypatch):
    assert cache_control_for("https://api.anthropic.com", None) == {"type": "ephemeral"}
    assert cache_control_for("https://api.anthropic.com", "long") == {"type": "ephemeral", "ttl": "1h"}
    assert cache_control_for("https://proxy.example", "long") == {"type": "ephemeral"}
    assert cache_control_for("https://api.anthropic.com", "none") is None
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert cache_control_for("https://api.anthropic.com", None) == {"type": "ephemeral", "ttl": "1h"}


def test_normalize_tool_call_id():
    assert normalize_tool_call_id("call_abc|fc_123/x.y") == "call_abc_fc_123_x_y"
    assert len(normalize_tool_call_id("a" * 100)) == 64
