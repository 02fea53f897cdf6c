"""Fault injection for configuration: bad bytes, deep JSON, out-of-range values, bad reloads, unusable
directories, symlink loops and secrets in models.json. ``pi`` over the faux provider: its entry point in this
process (``PiEnv.call``), rpc mode and the read-only case as real processes.

Every case asserts: no traceback, the specific warning (file and key), the file left byte-identical, and a
bounded run time (the call's or the subprocess's timeout).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_app.session.config import AuthStorage, SettingsManager
from pi_app.session.resources.skills import load_skills
from pi_app.session.resources.templates import load_prompt_templates
from tests.modes.harness import PI_CMD, PiEnv, make_env

SECRET = "tok-SECRET-123"
DEEP = "[" * 100_000 + "]" * 100_000


def _env(tmp_path: Path, *, headers: bool = False) -> PiEnv:
    env = make_env(tmp_path)
    env.agent_dir.mkdir(parents=True)
    provider: dict[str, Any] = {
        "baseUrl": "http://fx.invalid",
        "api": "faux",
        "apiKey": "k",
        "models": [{"id": "m1"}],
    }
    if headers:
        provider["headers"] = {"X-Api-Token": SECRET}
        provider["authHeader"] = True
    (env.agent_dir / "models.json").write_text(json.dumps({"providers": {"fx": provider}}), encoding="utf-8")
    script = [{"steps": [{"kind": "text", "text": "the answer"}]}] * 4
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    return env


def _pi(
    env: PiEnv, tmp_path: Path, *args: str, input: str | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``pi`` in this process (``PiEnv.call``); rpc mode, which reads file descriptor 0, in its own."""
    run = env.run if "rpc" in args else env.call
    result = run(*args, input=input, timeout=60, PI_FAUX_SCRIPT=str(tmp_path / "script.json"), **extra)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _print(env: PiEnv, tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    # -a: these tests are about how project files load once trusted (tests/trust covers the gate)
    return _pi(env, tmp_path, "-a", "-p", "--model", "fx/m1", "hi", **extra)


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Warning:")]


# ------------------------------------------------------------------ bytes that are not UTF-8


@pytest.mark.parametrize("where", ["global", "project"])
def test_settings_json_that_is_not_utf8_is_one_warning(tmp_path, where):
    env = _env(tmp_path)
    path = env.agent_dir / "settings.json" if where == "global" else env.project / ".pi" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = b'{"theme": "dark\xff"}'
    path.write_bytes(raw)
    result = _print(env, tmp_path)
    assert result.returncode == 0 and "the answer" in result.stdout
    assert _warnings(result.stderr) == [
        f"Warning: {path}: not valid UTF-8 (byte 0xff at offset {raw.index(0xFF)}); using defaults"
    ]
    assert path.read_bytes() == raw


def test_models_json_that_is_not_utf8_is_one_warning_printed_once(tmp_path):
    env = _env(tmp_path)
    raw = b'{"providers": {"\xfe": {}}}'
    (env.agent_dir / "models.json").write_bytes(raw)
    result = _print(env, tmp_path)
    assert result.returncode == 1 and 'Error: Model "fx/m1" not found' in result.stderr
    assert result.stderr.count(f"not valid UTF-8 (byte 0xfe at offset {raw.index(0xFE)})") == 1
    assert result.stderr.count(f"File: {env.agent_dir / 'models.json'}") == 1
    no_model = _pi(env, tmp_path, "-p", "hi")
    assert no_model.returncode == 1 and "No models available" in no_model.stderr
    assert no_model.stderr.count("not valid UTF-8") == 1
    assert (env.agent_dir / "models.json").read_bytes() == raw


def test_models_json_schema_error_is_printed_once(tmp_path):
    env = _env(tmp_path)
    (env.agent_dir / "models.json").write_text('{"providers": {"x": {}}}', encoding="utf-8")
    result = _print(env, tmp_path)
    assert result.stderr.count('Provider x: must specify "baseUrl"') == 1
    listed = _pi(env, tmp_path, "--list-models")
    assert listed.stderr.count('Provider x: must specify "baseUrl"') == 1


def test_skill_and_prompt_template_with_a_bad_byte_are_loaded_with_a_warning(tmp_path):
    env = _env(tmp_path)
    skill = env.project / ".pi" / "skills" / "bad-skill" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill_raw = b"---\nname: bad-skill\ndescription: has a \xff byte\n---\nbody\n"
    skill.write_bytes(skill_raw)
    template = env.project / ".pi" / "prompts" / "tmpl.md"
    template.parent.mkdir(parents=True)
    template_raw = b"hello \xc3 there\n"
    template.write_bytes(template_raw)
    result = _print(env, tmp_path)
    assert result.returncode == 0 and "the answer" in result.stdout
    warnings = "\n".join(_warnings(result.stderr))
    assert f"{skill}: not valid UTF-8 (byte 0xff at offset {skill_raw.index(0xFF)})" in warnings
    assert f"{template}: not valid UTF-8 (byte 0xc3 at offset {template_raw.index(0xC3)})" in warnings
    assert skill.read_bytes() == skill_raw and template.read_bytes() == template_raw
    skills = load_skills(str(env.project), str(env.agent_dir)).skills
    assert [s.description for s in skills] == ["has a \ufffd byte"]
    templates = load_prompt_templates(str(env.project), str(env.agent_dir)).templates
    assert [t.content for t in templates] == ["hello \ufffd there\n"]


# ------------------------------------------------------------------ deeply nested JSON


def test_deeply_nested_json_in_every_config_file_is_one_warning(tmp_path):
    env = _env(tmp_path)
    settings = env.agent_dir / "settings.json"
    project_settings = env.project / ".pi" / "settings.json"
    auth = env.agent_dir / "auth.json"
    project_settings.parent.mkdir(parents=True)
    for path in (settings, project_settings, auth):
        path.write_text(DEEP, encoding="utf-8")
    result = _print(env, tmp_path)
    assert result.returncode == 0 and "the answer" in result.stdout
    warnings = _warnings(result.stderr)
    assert f"Warning: {settings}: invalid JSON (nested too deeply); using defaults" in warnings
    assert f"Warning: {project_settings}: invalid JSON (nested too deeply); using defaults" in warnings
    assert any(w.startswith(f"Warning: {auth}: invalid JSON (nested too deeply)") for w in warnings)
    for path in (settings, project_settings, auth):
        assert path.read_text(encoding="utf-8") == DEEP

    (env.agent_dir / "models.json").write_text(DEEP, encoding="utf-8")
    result = _print(env, tmp_path)
    assert result.stderr.count("Failed to parse models.json: nested too deeply") == 1


def test_deep_json_in_a_theme_file_is_skipped_with_a_warning(tmp_path):
    from themes.loader import load_theme_file

    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    spec, warnings = load_theme_file(path, None)
    assert spec is None and [w.message for w in warnings] == ["invalid JSON (nested too deeply); skipped"]


def test_shared_json_reader_names_the_file(tmp_path):
    from pi_app.session.config.jsonfile import ConfigFileError, load_json_file

    bad = tmp_path / "x.json"
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ConfigFileError, match=r"x\.json: not valid UTF-8 \(byte 0xff at offset 7\)"):
        load_json_file(bad)
    bad.write_text(DEEP, encoding="utf-8")
    with pytest.raises(ConfigFileError, match=r"x\.json: invalid JSON \(nested too deeply\)"):
        load_json_file(bad)
    assert load_json_file(tmp_path / "missing.json") is None


# ------------------------------------------------------------------ per-key validation


def test_an_out_of_range_value_drops_only_that_key(tmp_path):
    env = _env(tmp_path)
    path = env.agent_dir / "settings.json"
    raw = json.dumps(
        {"theme": "light", "defaultThinkingLevel": "high", "retry": {"maxRetries": 1e20, "baseDelayMs": 7}}
    )
    path.write_text(raw, encoding="utf-8")
    result = _print(env, tmp_path)
    assert result.returncode == 0 and "the answer" in result.stdout
    assert _warnings(result.stderr) == [
        f'Warning: {path}: ignoring setting "retry.maxRetries" = 1e+20: out of range (at most 9007199254740991)'
    ]
    assert path.read_text(encoding="utf-8") == raw
    settings = SettingsManager.create(env.project, env.agent_dir).settings
    assert (settings.theme, settings.defaultThinkingLevel) == ("light", "high")
    assert (settings.retry.maxRetries, settings.retry.baseDelayMs) == (3, 7)


def test_wrong_values_anywhere_are_dropped_one_by_one(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "theme": "nord",
                "editorPaddingX": float("nan"),
                "compaction": {"enabled": "yes", "reserveTokens": 1000},
                "terminal": 5,
                "tools": {"bashTimeout": float("inf"), "maxLines": 10},
            }
        ),
        encoding="utf-8",
    )
    mgr = SettingsManager(path, None)
    dotted = sorted(w.split('"')[1] for w in mgr.warnings)
    assert dotted == ["compaction.enabled", "editorPaddingX", "terminal", "tools.bashTimeout"]
    assert all(w.startswith(f"{path}: ignoring setting") for w in mgr.warnings)
    s = mgr.settings
    assert (s.theme, s.compaction.reserveTokens, s.tools.maxLines, s.compaction.enabled) == (
        "nord",
        1000,
        10,
        True,
    )


# ------------------------------------------------------------------ reload keeps the last good values


def test_settings_reload_keeps_the_last_good_values(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "light", "retry": {"maxRetries": 9}}), encoding="utf-8")
    mgr = SettingsManager(path, None)
    assert mgr.drain_warnings() == []
    for broken in (b'{"theme": ', b'{"theme": "\xff"}', DEEP.encode(), b"[1, 2]"):
        path.write_bytes(broken)
        mgr.reload()
        (warning,) = mgr.drain_warnings()
        assert warning.startswith(f"{path}: ") and warning.endswith("; keeping the settings loaded before")
        assert (mgr.settings.theme, mgr.settings.retry.maxRetries) == ("light", 9)
        mgr.set("quietStartup", True)  # in memory only: an unusable file is never written
        assert path.read_bytes() == broken
    path.write_text(json.dumps({"theme": "dark"}), encoding="utf-8")
    mgr.reload()
    assert (mgr.settings.theme, mgr.settings.retry.maxRetries) == ("dark", 3)


def test_auth_reload_keeps_the_last_good_credentials(tmp_path):
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"fx": {"type": "api_key", "key": "good-key"}}), encoding="utf-8")
    auth = AuthStorage(path)
    assert auth.get_api_key_sync("fx") == "good-key"
    for broken in (b"{", b'{"fx": "\xff"}', DEEP.encode()):
        path.write_bytes(broken)
        auth.reload()
        (warning,) = auth.drain_warnings()
        assert warning.startswith(f"{path}: ")
        assert "keeping the credentials loaded before and the file will not be changed" in warning
        assert auth.get_api_key_sync("fx") == "good-key"
        with pytest.raises(ValueError, match="cannot save credentials"):
            auth.set_api_key("other", "x")
        assert path.read_bytes() == broken


# ------------------------------------------------------------------ directories


def test_agent_dir_that_is_a_file_is_a_clear_error(tmp_path):
    env = _env(tmp_path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    result = _print(env, tmp_path, PI_CODING_AGENT_DIR=str(blocker))
    assert result.returncode == 1
    assert result.stderr.strip() == f"Error: PI_CODING_AGENT_DIR is not a directory: {blocker}"
    below = _print(env, tmp_path, PI_CODING_AGENT_DIR=str(blocker / "agent"))
    assert below.returncode == 1
    assert (
        below.stderr.strip()
        == f"Error: PI_CODING_AGENT_DIR is not a directory: {blocker / 'agent'} ({blocker} is not a directory)"
    )
    assert blocker.read_text(encoding="utf-8") == "x"


def test_sessions_dir_blocked_by_a_file_runs_unsaved_and_says_so_once(tmp_path):
    env = _env(tmp_path)
    (env.agent_dir / "sessions").write_text("x", encoding="utf-8")
    result = _print(env, tmp_path)
    assert result.returncode == 0 and "the answer" in result.stdout
    (warning,) = _warnings(result.stderr)
    assert warning.startswith("Warning: cannot save sessions (Not a directory: ")
    assert warning.endswith("); this session will not be saved")


def _without_dac(cmd: list[str]) -> list[str] | None:
    """``cmd`` run so that file permissions apply: as is for a normal user; for root, with the
    capabilities that bypass them dropped (setpriv), or None when that is not possible here."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    probe = subprocess.run(
        [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "true"], capture_output=True
    )
    if probe.returncode != 0:
        return None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", *cmd]


def test_read_only_sessions_dir_runs_unsaved_and_says_so_once(tmp_path):
    env = _env(tmp_path)
    cmd = _without_dac([*PI_CMD, "-p", "--model", "fx/m1", "hi"])
    if cmd is None:
        pytest.skip("running as root without setpriv: permissions cannot be enforced")
    sessions = env.agent_dir / "sessions"
    sessions.mkdir()
    sessions.chmod(0o555)
    try:
        result = subprocess.run(
            cmd,
            cwd=env.project,
            env=env.env(PI_FAUX_SCRIPT=str(tmp_path / "script.json")),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    finally:
        sessions.chmod(0o755)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0 and "the answer" in result.stdout
    (warning,) = _warnings(result.stderr)
    assert warning.startswith("Warning: cannot save sessions (Permission denied: ")
    assert list(sessions.iterdir()) == []


# ------------------------------------------------------------------ symlink loops


def test_symlink_loops_under_skills_end(tmp_path):
    env = _env(tmp_path)
    root = env.project / ".pi" / "skills"
    good = root / "good" / "SKILL.md"
    good.parent.mkdir(parents=True)
    good.write_text("---\nname: good\ndescription: a fine skill\n---\nbody\n", encoding="utf-8")
    loops = root / "loops" / "deeper"
    loops.mkdir(parents=True)
    for i in range(4):  # 4 links per level to the levels above: exponential without a visited set
        (loops / f"up{i}").symlink_to("..")
        (loops / f"root{i}").symlink_to(root)
    (root / "self").symlink_to(".")
    (root / "dangling").symlink_to("nowhere")
    (root / "cycle-a").symlink_to("cycle-b")
    (root / "cycle-b").symlink_to("cycle-a")
    prompts = env.project / ".pi" / "prompts"
    prompts.mkdir()
    (prompts / "back").symlink_to(prompts)
    commands = '{"id": "c", "type": "get_commands"}\n'
    result = _pi(env, tmp_path, "-a", "--mode", "rpc", "--model", "fx/m1", input=commands)
    assert result.returncode == 0
    response = next(json.loads(line) for line in result.stdout.splitlines() if '"id":"c"' in line)
    names = [c["name"] for c in response["data"]["commands"]]
    assert names == ["mcp", "skill:good"]  # builtin:mcp's command, then the skill


# ------------------------------------------------------------------ secrets


def test_header_values_from_models_json_never_reach_rpc_output(tmp_path):
    env = _env(tmp_path, headers=True)
    commands = [
        {"id": "s", "type": "get_state"},
        {"id": "a", "type": "get_available_models"},
        {"id": "m", "type": "set_model", "provider": "fx", "modelId": "m1"},
        {"id": "c", "type": "cycle_model"},
        {"id": "t", "type": "get_session_stats"},
    ]
    result = _pi(
        env,
        tmp_path,
        "--mode",
        "rpc",
        "--model",
        "fx/m1",
        input="".join(json.dumps(c) + "\n" for c in commands),
    )
    assert result.returncode == 0
    responses = {
        r["id"]: r for r in map(json.loads, result.stdout.splitlines()) if r.get("type") == "response"
    }
    assert all(r["success"] for r in responses.values()), responses
    assert SECRET not in result.stdout and SECRET not in result.stderr
    assert "Bearer k" not in result.stdout  # the authHeader built from the apiKey
    headers = responses["s"]["data"]["model"]["headers"]
    assert headers == {"X-Api-Token": "[redacted]", "Authorization": "[redacted]"}
    (model,) = [m for m in responses["a"]["data"]["models"] if m["provider"] == "fx"]
    assert model["headers"] == headers and responses["m"]["data"]["headers"] == headers
