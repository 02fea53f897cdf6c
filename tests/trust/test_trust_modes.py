"""Print, json and rpc never ask: undecided and distrusted folders run without their protected resources.

The measured hole: a project ``.pi/settings.json`` with ``shellCommandPrefix`` ran a command under ``pi -p``
with no question asked. Undecided, the prefix must not apply; once trusted (-a or a saved decision), it does.
"""

from __future__ import annotations

import json

import pytest

from tests.loopback.openai_wire import chat_text_stream
from tests.modes import scripts
from tests.modes.harness import json_lines, make_env

API = "openai-completions"
NOTICE = "Project resources in"


def _project_with_prefix(tmp_path):
    env = make_env(tmp_path)
    settings = env.project / ".pi" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"shellCommandPrefix": "touch prefix-ran"}))
    return env


def _bash_then_answer(loopback):
    loopback.add(
        scripts.tool_call(API, "call_b", "bash", {"command": "echo hello"}),
        scripts.text(API, "done"),
    )


def test_undecided_print_mode_skips_the_project_prefix_and_says_so_once(tmp_path, loopback):
    env = _project_with_prefix(tmp_path)
    env.write_models(loopback.url, API)
    _bash_then_answer(loopback)
    result = env.call("--no-session", "-p", "run it")
    assert result.returncode == 0, result.stderr
    assert not (env.project / "prefix-ran").exists()
    assert result.stderr.count(NOTICE) == 1
    assert "-a/--approve" in result.stderr
    assert not (env.agent_dir / "trust.json").exists()  # nothing is decided for the user


@pytest.mark.parametrize("how", ["flag", "saved", "default-always"])
def test_trusted_print_mode_applies_the_project_prefix(tmp_path, loopback, how):
    env = _project_with_prefix(tmp_path)
    env.write_models(loopback.url, API)
    _bash_then_answer(loopback)
    args = ["--no-session", "-p", "run it"]
    if how == "flag":
        args.insert(0, "-a")
    elif how == "saved":
        (env.agent_dir / "trust.json").write_text(json.dumps({str(env.project.resolve()): True}))
    else:
        (env.agent_dir / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    result = env.call(*args)
    assert result.returncode == 0, result.stderr
    assert (env.project / "prefix-ran").exists()
    assert NOTICE not in result.stderr


@pytest.mark.parametrize("how", ["flag", "saved", "default-never"])
def test_distrusted_print_mode_skips_even_with_project_default_always(tmp_path, loopback, how):
    env = _project_with_prefix(tmp_path)
    (env.project / ".pi" / "settings.json").write_text(
        json.dumps({"shellCommandPrefix": "touch prefix-ran", "defaultProjectTrust": "always"})
    )
    env.write_models(loopback.url, API)
    _bash_then_answer(loopback)
    args = ["--no-session", "-p", "run it"]
    if how == "flag":
        (env.agent_dir / "trust.json").write_text(json.dumps({str(env.project.resolve()): True}))
        args.insert(0, "-na")  # this process's flag wins over the saved decision
    elif how == "saved":
        (env.agent_dir / "trust.json").write_text(json.dumps({str(env.project.resolve()): False}))
    else:
        (env.agent_dir / "settings.json").write_text(json.dumps({"defaultProjectTrust": "never"}))
    result = env.call(*args)
    assert result.returncode == 0, result.stderr
    assert not (env.project / "prefix-ran").exists()


def test_changed_fingerprint_is_undecided_in_print_mode(tmp_path, loopback):
    env = _project_with_prefix(tmp_path)
    env.write_models(loopback.url, API)
    (env.agent_dir / "trust.json").write_text(json.dumps({str(env.project.resolve()): True}))
    loopback.add(chat_text_stream("first"))
    first = env.call("--no-session", "-p", "hi")  # records the fingerprint of what was trusted
    assert first.returncode == 0 and NOTICE not in first.stderr
    (env.project / ".pi" / "prompts").mkdir()
    (env.project / ".pi" / "prompts" / "new.md").write_text("new template")
    _bash_then_answer(loopback)
    result = env.call("--no-session", "-p", "run it")
    assert result.returncode == 0, result.stderr
    assert "changed since it was trusted" in result.stderr
    assert not (env.project / "prefix-ran").exists()


def test_json_mode_skips_and_notes_on_stderr(tmp_path, loopback):
    env = _project_with_prefix(tmp_path)
    env.write_models(loopback.url, API)
    _bash_then_answer(loopback)
    result = env.call("--no-session", "--mode", "json", "run it")
    assert result.returncode == 0, result.stderr
    assert not (env.project / "prefix-ran").exists()
    assert result.stderr.count(NOTICE) == 1
    json_lines(result.stdout)  # stdout stays pure JSON lines


def test_rpc_mode_skips_project_templates_and_notes_on_stderr(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url, API)
    prompts = env.project / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("Review this")
    commands = '{"id": "c", "type": "get_commands"}\n'
    untrusted = env.run("--no-session", "--mode", "rpc", input=commands)
    trusted = env.run("-a", "--no-session", "--mode", "rpc", input=commands)

    def names(out: str) -> list[str]:
        response = next(m for m in json_lines(out) if m.get("id") == "c")
        return [c["name"] for c in response["data"]["commands"]]

    assert names(untrusted.stdout) == ["mcp"]  # builtin:mcp's command only
    assert untrusted.stderr.count(NOTICE) == 1
    assert names(trusted.stdout) == ["mcp", "review"]
    assert NOTICE not in trusted.stderr


def test_context_files_load_regardless_of_trust(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url, API)
    (env.project / ".pi").mkdir()
    (env.project / ".pi" / "settings.json").write_text("{}")
    (env.project / "AGENTS.md").write_text("Always answer in haiku.")
    loopback.add(chat_text_stream("ok"))
    result = env.call("--no-session", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert "Always answer in haiku." in scripts.request_text(loopback.requests[0].json)
