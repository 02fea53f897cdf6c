"""pi 1.6 flags end to end: what the model is sent (tools, system prompt files, context files) and what
is refused, through ``pi``'s entry point (in this process: ``PiEnv.call``) against a loopback provider."""

from __future__ import annotations

import json

from tests.modes.harness import make_env


def _system_and_tools(request) -> tuple[str, list[str]]:
    body = request.json
    system = body["messages"][0]
    assert system["role"] in ("system", "developer")
    content = system["content"]
    text = content if isinstance(content, str) else "".join(part["text"] for part in content)
    return text, [t["function"]["name"] for t in body.get("tools") or []]


def _run(env, loopback, *args: str):
    from tests.loopback.openai_wire import chat_text_stream

    loopback.add(chat_text_stream("ok"))
    result = env.call("--no-session", *args, "-p", "hi")
    assert result.returncode == 0, result.stderr
    return result, _system_and_tools(loopback.requests[-1])


def test_tool_flags_decide_the_declared_tools(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    assert _run(env, loopback)[1][1] == ["read", "bash", "edit", "write"]
    assert _run(env, loopback, "-t", "+grep,-bash")[1][1] == ["read", "edit", "write", "grep"]
    assert _run(env, loopback, "--tools", "*", "-xt", "b*,w*")[1][1] == ["read", "edit", "grep", "find", "ls"]
    assert _run(env, loopback, "-nbt")[1][1] == []
    assert _run(env, loopback, "-nt")[1][1] == []


def test_system_md_files_and_flags(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (env.agent_dir / "SYSTEM.md").write_text("GLOBAL SYSTEM")
    (env.agent_dir / "APPEND_SYSTEM.md").write_text("GLOBAL APPEND")
    (system, _) = _run(env, loopback)[1]
    assert system.startswith("GLOBAL SYSTEM\n\nGLOBAL APPEND")
    (env.project / ".pi").mkdir()
    (env.project / ".pi" / "SYSTEM.md").write_text("PROJECT SYSTEM")
    (system, _) = _run(env, loopback)[1]  # a project's SYSTEM.md is a protected resource: not before trust
    assert system.startswith("GLOBAL SYSTEM\n\nGLOBAL APPEND") and "PROJECT SYSTEM" not in system
    (system, _) = _run(env, loopback, "-a")[1]
    assert system.startswith("PROJECT SYSTEM\n\nGLOBAL APPEND")
    extra = tmp_path / "extra.md"
    extra.write_text("FROM A FILE")
    appends = ("--append-system-prompt", "ONE", "--append-system-prompt", str(extra))
    (system, _) = _run(env, loopback, "-a", *appends)[1]
    assert system.startswith("PROJECT SYSTEM\n\nONE\n\nFROM A FILE") and "GLOBAL APPEND" not in system


def test_no_context_files(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (env.project / "AGENTS.md").write_text("Always use tabs.")
    assert "Always use tabs." in _run(env, loopback)[1][0]
    assert "Always use tabs." not in _run(env, loopback, "-nc")[1][0]


def test_session_id_creates_then_reopens(tmp_path, loopback):
    from tests.loopback.openai_wire import chat_text_stream

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(chat_text_stream("first answer"))
    result = env.call("--session-id", "my-job.1", "-p", "remember this")
    assert result.returncode == 0, result.stderr
    [path] = list((env.agent_dir / "sessions").rglob("*.jsonl"))
    assert path.name.endswith("_my-job.1.jsonl")
    assert json.loads(path.read_text().splitlines()[0])["id"] == "my-job.1"
    loopback.add(chat_text_stream("second answer"))
    result = env.call("--session-id", "my-job.1", "-p", "and now?")
    assert result.returncode == 0, result.stderr
    assert list((env.agent_dir / "sessions").rglob("*.jsonl")) == [path]
    assert "remember this" in json.dumps(loopback.requests[-1].json)


def test_refusals_are_one_line_and_send_nothing(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    for argv, needle in [
        (["list"], '"pi list" is not supported'),
        (["install", "npm:x"], '"pi install" is not supported'),
        (["-x", "-p", "hi"], "Unknown option: -x"),
        (["--tools", "read,+bash", "-p", "hi"], "cannot be mixed"),
        (["--tui-mode", "tiny", "-p", "hi"], 'Invalid TUI mode "tiny"'),
        (["--session-id", "a/b", "-p", "hi"], "Session id must be non-empty"),
    ]:
        result = env.call(*argv)
        assert result.returncode == 1, argv
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and needle in result.stderr, result.stderr
    assert loopback.requests == []


def test_missing_extension_path_warns(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    result, _ = _run(env, loopback, "-e", "./ext.py")
    assert "Extension not found: " in result.stderr and "ext.py" in result.stderr
