"""settings.json: defaults, global/project merge, bad files, per-key writes that keep unknown keys."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_app.session.config import SettingsManager, agent_dir, settings_path
from pi_app.session.config.settings import deep_merge, migrate_settings


@pytest.fixture
def files(tmp_path):
    project = tmp_path / "proj"
    gpath = settings_path()
    ppath = project / ".pi" / "settings.json"

    def write(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))

    return gpath, ppath, project, write


def test_agent_dir_env_and_tilde(monkeypatch, tmp_path):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/custom/agent")
    assert agent_dir() == Path.home() / "custom" / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "abs"))
    assert agent_dir() == tmp_path / "abs"
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert agent_dir() == Path.home() / ".pi" / "agent"


def test_defaults_without_files(files):
    _, _, project, _ = files
    sm = SettingsManager.create(project)
    s = sm.settings
    assert s.compaction.enabled is True and s.compaction.reserveTokens == 16384
    assert s.compaction.keepRecentTokens == 20000
    assert (s.retry.maxRetries, s.retry.baseDelayMs, s.retry.maxDelayMs) == (3, 2000, 60000)
    assert s.steeringMode == s.followUpMode == "one-at-a-time"
    assert s.doubleEscapeAction == "tree" and s.transport == "sse"
    assert s.images.autoResize is True and s.images.blockImages is False
    assert s.terminal.showImages is True and s.markdown.codeBlockIndent == "  "
    assert sm.default_thinking_level == "medium" and sm.theme == "dark"
    assert s.defaultProvider is None and s.enabledModels is None
    assert sm.drain_warnings() == []


def test_project_overrides_global_and_nested_objects_merge(files):
    gpath, ppath, project, write = files
    write(gpath, {"theme": "light", "compaction": {"enabled": False, "reserveTokens": 1000}, "skills": ["a"]})
    write(ppath, {"compaction": {"reserveTokens": 8192}, "skills": ["b"], "quietStartup": True})
    sm = SettingsManager.create(project)
    s = sm.settings
    assert s.theme == "light"
    assert s.compaction.enabled is False and s.compaction.reserveTokens == 8192
    assert s.skills == ["b"]  # arrays are replaced, not concatenated
    assert s.quietStartup is True


def test_invalid_json_warns_uses_defaults_and_never_writes(files):
    gpath, _, project, write = files
    write(gpath, '{"theme": "light",,}')
    sm = SettingsManager.create(project)
    warnings = sm.drain_warnings()
    assert len(warnings) == 1 and str(gpath) in warnings[0] and "invalid JSON" in warnings[0]
    assert sm.theme == "dark"
    sm.set_theme("light")  # in memory only
    assert sm.settings.theme == "light"
    assert gpath.read_text() == '{"theme": "light",,}'


def test_wrong_type_for_one_key_names_file_and_key_keeps_others(files):
    gpath, ppath, project, write = files
    write(gpath, {"compaction": {"reserveTokens": 4096}})
    write(
        ppath,
        {"compaction": {"reserveTokens": "lots", "enabled": False}, "steeringMode": "sometimes", "theme": 3},
    )
    sm = SettingsManager.create(project)
    warnings = sm.drain_warnings()
    joined = "\n".join(warnings)
    assert len(warnings) == 3
    assert all(str(ppath) in w for w in warnings)
    assert '"compaction.reserveTokens"' in joined and '"steeringMode"' in joined and '"theme"' in joined
    s = sm.settings
    assert s.compaction.reserveTokens == 4096  # falls back to the global value
    assert s.compaction.enabled is False  # sibling key kept
    assert s.steeringMode == "one-at-a-time" and s.theme is None


def test_strict_types(files):
    gpath, _, project, write = files
    write(gpath, {"retry": {"maxRetries": "3"}, "hideThinkingBlock": 1, "editorPaddingX": 2.0})
    sm = SettingsManager.create(project)
    assert len(sm.drain_warnings()) == 2
    assert sm.settings.retry.maxRetries == 3 and sm.settings.hideThinkingBlock is False
    assert sm.settings.editorPaddingX == 2


def test_write_keeps_unknown_and_invalid_keys_and_other_changes(files):
    gpath, _, project, write = files
    write(
        gpath,
        {"futureKey": {"x": [1, 2]}, "compaction": {"reserveTokens": "bad", "mystery": 1}, "theme": "x"},
    )
    sm = SettingsManager.create(project)
    # Another process edits the file after we loaded it.
    data = json.loads(gpath.read_text())
    data["quietStartup"] = True
    gpath.write_text(json.dumps(data))
    sm.set_compaction_enabled(False)
    sm.set_default_model_and_provider("openai", "gpt-5.4")
    on_disk = json.loads(gpath.read_text())
    assert on_disk["futureKey"] == {"x": [1, 2]}
    assert on_disk["compaction"] == {"reserveTokens": "bad", "mystery": 1, "enabled": False}
    assert on_disk["quietStartup"] is True and on_disk["theme"] == "x"
    assert on_disk["defaultProvider"] == "openai" and on_disk["defaultModel"] == "gpt-5.4"
    assert sm.settings.defaultModel == "gpt-5.4"


def test_atomic_write_leaves_no_temp_and_keeps_mode(files):
    gpath, _, project, write = files
    write(gpath, {})
    os.chmod(gpath, 0o640)
    inode = gpath.stat().st_ino
    sm = SettingsManager.create(project)
    sm.set_steering_mode("all")
    assert gpath.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert gpath.stat().st_mode & 0o777 == 0o640
    leftovers = [p.name for p in gpath.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    assert json.loads(gpath.read_text()) == {"steeringMode": "all"}


def test_setting_none_removes_and_project_scope(files):
    gpath, ppath, project, write = files
    sm = SettingsManager.create(project)
    sm.set("defaultModel", "m1")
    sm.set("defaultModel", None)
    assert "defaultModel" not in json.loads(gpath.read_text())
    sm.set("packages", ["pi-skills"], scope="project")
    assert json.loads(ppath.read_text()) == {"packages": ["pi-skills"]}
    assert sm.settings.packages == ["pi-skills"]


def test_setter_rejects_wrong_type(files):
    _, _, project, _ = files
    sm = SettingsManager.create(project)
    with pytest.raises(ValueError, match="steeringMode"):
        sm.set("steeringMode", "sometimes")
    with pytest.raises(ValueError, match="compaction.reserveTokens"):
        sm.set("compaction.reserveTokens", "x")


def test_clamped_accessors_and_env_defaults(files, monkeypatch):
    gpath, _, project, write = files
    write(gpath, {"editorPaddingX": 9, "autocompleteMaxVisible": 1})
    sm = SettingsManager.create(project)
    assert sm.editor_padding_x == 3 and sm.autocomplete_max_visible == 3
    monkeypatch.setenv("PI_CLEAR_ON_SHRINK", "1")
    assert sm.clear_on_shrink is True
    sm.set_clear_on_shrink(False)
    assert sm.clear_on_shrink is False
    sm.set_editor_padding_x(-4)
    assert json.loads(gpath.read_text())["editorPaddingX"] == 0


def test_migrations_and_merge_helpers():
    migrated = migrate_settings(
        {"queueMode": "all", "websockets": True, "skills": {"customDirectories": ["d"]}}
    )
    assert migrated == {"steeringMode": "all", "transport": "websocket", "skills": ["d"]}
    assert deep_merge({"a": {"x": 1, "y": 2}, "b": [1]}, {"a": {"y": 3}, "b": [2]}) == {
        "a": {"x": 1, "y": 3},
        "b": [2],
    }


def test_overrides_and_in_memory():
    sm = SettingsManager.in_memory({"theme": "light"})
    assert sm.theme == "light"
    sm.apply_overrides({"compaction": {"enabled": False}})
    assert sm.settings.compaction.enabled is False and sm.settings.compaction.reserveTokens == 16384
    sm.set_theme("dark")
    assert sm.theme == "dark"


def test_unknown_keys_survive_in_model():
    sm = SettingsManager.in_memory({"someNewThing": 5})
    assert sm.settings.model_extra == {"someNewThing": 5}


def test_thinking_budgets():
    sm = SettingsManager.in_memory({"thinkingBudgets": {"low": 4096, "high": 32768}})
    assert sm.thinking_budgets() == {"low": 4096, "high": 32768}
