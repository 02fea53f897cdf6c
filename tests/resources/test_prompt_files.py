"""SYSTEM.md / APPEND_SYSTEM.md as pi 1.6 applies them (measured: project over global, not combined;
--system-prompt beats SYSTEM.md; --append-system-prompt flags replace APPEND_SYSTEM.md)."""

from pathlib import Path

import pytest

from pi_app.session.config import SettingsManager
from pi_app.session.resources.prompt_files import load_prompt_files
from pi_app.session.session_setup import ResourceOptions, load_resources, system_prompt_for


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    agent = tmp_path / "agent"
    proj = tmp_path / "proj"
    (proj / ".pi").mkdir(parents=True)
    agent.mkdir()
    return proj, agent


def _prompt(proj: Path, agent: Path, opts: ResourceOptions) -> str:
    res = load_resources(str(proj), str(agent), SettingsManager.create(str(proj), str(agent)), opts)
    return system_prompt_for(str(proj), ["read"], res, opts)


def test_no_files_keeps_the_default_prompt(dirs):
    proj, agent = dirs
    text = _prompt(proj, agent, ResourceOptions())
    assert text.startswith("You are an expert software engineer")


def test_global_files_replace_and_extend(dirs):
    proj, agent = dirs
    (agent / "SYSTEM.md").write_text("GLOBAL SYSTEM")
    (agent / "APPEND_SYSTEM.md").write_text("GLOBAL APPEND")
    text = _prompt(proj, agent, ResourceOptions())
    assert text.startswith("GLOBAL SYSTEM\n\nGLOBAL APPEND")
    assert "You are an expert" not in text
    assert text.rstrip().endswith(f"Current working directory: {proj}")


def test_project_files_win_and_are_not_combined(dirs):
    proj, agent = dirs
    (agent / "SYSTEM.md").write_text("GLOBAL SYSTEM")
    (agent / "APPEND_SYSTEM.md").write_text("GLOBAL APPEND")
    (proj / ".pi" / "SYSTEM.md").write_text("PROJECT SYSTEM")
    (proj / ".pi" / "APPEND_SYSTEM.md").write_text("PROJECT APPEND")
    text = _prompt(proj, agent, ResourceOptions())
    assert text.startswith("PROJECT SYSTEM\n\nPROJECT APPEND")
    assert "GLOBAL" not in text


def test_untrusted_project_files_are_not_read(dirs):
    proj, agent = dirs
    (agent / "APPEND_SYSTEM.md").write_text("GLOBAL APPEND")
    (proj / ".pi" / "SYSTEM.md").write_text("PROJECT SYSTEM")
    (proj / ".pi" / "APPEND_SYSTEM.md").write_text("PROJECT APPEND")
    text = _prompt(proj, agent, ResourceOptions(allow_project=False))
    assert "PROJECT" not in text
    assert text.startswith("You are an expert") and "\n\nGLOBAL APPEND" in text
    files = load_prompt_files(str(proj), str(agent), allow_project=False)
    assert files.system is None and files.append is not None
    assert files.append.path == str(agent / "APPEND_SYSTEM.md")


def test_cli_flags_beat_the_files(dirs, tmp_path):
    proj, agent = dirs
    (proj / ".pi" / "SYSTEM.md").write_text("PROJECT SYSTEM")
    (proj / ".pi" / "APPEND_SYSTEM.md").write_text("PROJECT APPEND")
    extra = tmp_path / "extra.md"
    extra.write_text("FROM FILE")
    text = _prompt(proj, agent, ResourceOptions(system_prompt="CLISYS"))
    assert text.startswith("CLISYS\n\nPROJECT APPEND")
    text = _prompt(proj, agent, ResourceOptions(append_system_prompt=["CLI1", str(extra)]))
    assert text.startswith("PROJECT SYSTEM\n\nCLI1\n\nFROM FILE")
    assert "PROJECT APPEND" not in text


def test_no_context_files(dirs):
    proj, agent = dirs
    (proj / "AGENTS.md").write_text("Use tabs.")
    assert "Use tabs." in _prompt(proj, agent, ResourceOptions())
    assert "Use tabs." not in _prompt(proj, agent, ResourceOptions(no_context_files=True))
