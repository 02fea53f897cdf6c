"""scripts/update_catalogue.py on a small package laid out as pi-ai's, the shipped file's layout, and (when
pi 1.6 is installed here) that the shipped file is what the script makes of the real package."""

from __future__ import annotations

import importlib.util
import json
import os
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest

from pi_app.ai import models as M

ROOT = Path(__file__).resolve().parents[2]
PI16 = Path(os.environ.get("PI16_DIR", Path.home() / ".cache" / "pi16"))
PI_AI = PI16 / "node_modules" / "@earendil-works" / "pi-ai"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "update_catalogue", ROOT / "scripts" / "update_catalogue.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chat(provider: str, model_id: str, api: str, base_url: str, **extra: object) -> dict[str, object]:
    return {
        "id": model_id,
        "name": model_id.upper(),
        "api": api,
        "provider": provider,
        "baseUrl": base_url,
        "reasoning": True,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
        "type": "chat",
        **extra,
    }


def _fake_package(root: Path) -> Path:
    pi_ai = root / "@earendil-works" / "pi-ai"
    data = pi_ai / "dist" / "providers" / "data"
    data.mkdir(parents=True)
    (pi_ai / "package.json").write_text(json.dumps({"name": "@earendil-works/pi-ai", "version": "9.9.9"}))
    (data / ".manifest.json").write_text(json.dumps({"schemaVersion": 6}))
    acme = {
        "openai-completions": {
            "chat:a": _chat("acme", "a", "openai-completions", "https://acme.test/v1"),
            "chat:dup": _chat("acme", "dup", "openai-completions", "https://acme.test/v1", maxTokens=1),
            "image:pic": {**_chat("acme", "pic", "openai-images", "https://acme.test/v1"), "type": "image"},
        },
        "anthropic-messages": {
            "chat:dup": _chat("acme", "dup", "anthropic-messages", "https://acme.test", maxTokens=2),
            "chat:t": _chat(
                "acme",
                "t",
                "anthropic-messages",
                "https://acme.test",
                thinkingLevelMap={"off": None, "max": "max"},
                promptCache={"short": 300},
            ),
        },
        "bedrock-converse-stream": {
            "chat:b": _chat("acme", "b", "bedrock-converse-stream", "https://b.test")
        },
    }
    (data / "acme.json").write_text(json.dumps(acme))
    cloud = {
        "openai-completions": {"chat:c": _chat("cloud", "c", "openai-completions", "https://x/{ACCOUNT}/v1")}
    }
    (data / "cloud.json").write_text(json.dumps(cloud))
    mistral = {
        "mistral-conversations": {
            "chat:m": _chat("mistral", "m", "mistral-conversations", "https://api.mistral.ai")
        }
    }
    (data / "mistral.json").write_text(json.dumps(mistral))
    copilot = {
        "openai-responses": {"chat:g": _chat("github-copilot", "g", "openai-responses", "https://gh.test")}
    }
    (data / "github-copilot.json").write_text(json.dumps(copilot))
    resolver = root / "@earendil-works" / "pi-coding-agent" / "dist" / "core" / "model-resolver.js"
    resolver.parent.mkdir(parents=True)
    resolver.write_text(
        'import x from "y";\nexport const defaultModelPerProvider = {\n    "amazon-bedrock": "b",\n'
        '    acme: "t",\n    mistral: "m",\n};\nfunction f() {}\n'
    )
    return pi_ai


def test_script_builds_the_catalogue_from_a_package(tmp_path):
    script = _script()
    out = tmp_path / "models.json"
    assert script.main([str(_fake_package(tmp_path)), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["source"] == {"package": "@earendil-works/pi-ai", "version": "9.9.9"}
    assert list(data["defaultModels"].items()) == [("amazon-bedrock", "b"), ("acme", "t"), ("mistral", "m")]
    assert data["skippedModels"] == {"acme": 1, "cloud": 1, "github-copilot": 1}
    assert list(data["providers"]) == ["acme", "mistral"]
    acme = data["providers"]["acme"]["models"]
    # A later duplicate id replaces the value in place (pi's flattening); image and bedrock models are dropped.
    assert [(m["id"], m["api"], m["maxTokens"]) for m in acme] == [
        ("a", "openai-completions", 100),
        ("dup", "anthropic-messages", 2),
        ("t", "anthropic-messages", 100),
    ]
    assert acme[2]["thinkingLevelMap"] == {"off": None, "max": "max"}
    assert "promptCache" not in acme[2] and "type" not in acme[2]
    (mistral,) = data["providers"]["mistral"]["models"]
    assert mistral["api"] == "openai-completions" and mistral["baseUrl"] == "https://api.mistral.ai/v1"
    assert mistral["compat"]["requiresMistralToolIds"] is True


def test_script_reports_a_missing_package(tmp_path, capsys):
    assert _script().main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "o.json")]) == 1
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_fast_loader_reads_the_same_as_a_full_parse():
    raw = json.loads(resources.files("pi_app.ai.data").joinpath("models.json").read_text(encoding="utf-8"))
    lines = resources.files("pi_app.ai.data").joinpath("models.json").read_text(encoding="utf-8").split("\n")
    data = M._split_layout(lines)
    assert data.head == {k: v for k, v in raw.items() if k != "providers"}
    assert {p: json.loads(s) for p, s in data.sections.items()} == {
        p: e["models"] for p, e in raw["providers"].items()
    }


def test_fast_loader_rejects_other_layouts():
    with pytest.raises(ValueError):
        M._split_layout(json.dumps({"providers": {}}, indent=4).split("\n") + [""])


@pytest.mark.skipif(not PI_AI.is_dir(), reason=f"pi 1.6 is not installed at {PI16} (set PI16_DIR)")
def test_shipped_file_is_the_scripts_output_for_pi16(tmp_path):
    out = tmp_path / "models.json"
    assert _script().main([str(PI_AI), "--out", str(out)]) == 0
    shipped = resources.files("pi_app.ai.data").joinpath("models.json").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == shipped
