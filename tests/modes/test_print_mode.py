"""``pi -p`` end to end: a models.json provider, the loopback server; the installed command where the process
matters (exit code, stderr, piped stdin), else its entry point in this process (``PiEnv.call``)."""

from __future__ import annotations

import pytest

from tests.loopback.openai_wire import api_error, chat_text_stream
from tests.modes import scripts
from tests.modes.harness import make_env

APIS = ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]


@pytest.mark.parametrize("api", APIS)
def test_print_mode_runs_tools_that_change_files(tmp_path, loopback, api):
    env = make_env(tmp_path)
    env.write_models(loopback.url, api)
    loopback.add(
        scripts.tool_call(api, "call_w", "write", {"path": "notes.txt", "content": "alpha\nbeta\n"}),
        scripts.tool_call(
            api, "call_e", "edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}
        ),
        scripts.tool_call(api, "call_r", "read", {"path": "notes.txt"}),
        scripts.text(api, "The file now says alpha and BETA."),
    )
    result = env.call("--no-session", "-p", "Write notes.txt, fix it, read it back")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The file now says alpha and BETA.\n"
    assert (env.project / "notes.txt").read_text() == "alpha\nBETA\n"
    assert len(loopback.requests) == 4
    # the read tool's result went back to the model in the last request
    last = scripts.request_text(loopback.requests[-1].json)
    assert "alpha" in last and "BETA" in last
    assert "Write notes.txt, fix it, read it back" in scripts.request_text(loopback.requests[0].json)
    assert not (env.agent_dir / "sessions").exists()  # --no-session writes nothing


def test_print_mode_sends_every_message_in_turn_and_prints_the_last_answer(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(chat_text_stream("first answer"), chat_text_stream("second ", "answer"))
    result = env.run("-p", "one", "two")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second answer\n"
    second = scripts.request_text(loopback.requests[1].json)
    assert "one" in second and "first answer" in second and "two" in second
    # persisted: a session file under the agent dir
    files = list((env.agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 1


def test_provider_error_goes_to_stderr_with_exit_1(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(api_error(400, "model does not support this"))
    result = env.run("--no-session", "-p", "hi")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "model does not support this" in result.stderr
    assert "Traceback" not in result.stderr


def test_piped_stdin_forces_print_mode_and_comes_first(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(chat_text_stream("first"), chat_text_stream("got it"))
    (env.project / "ctx.md").write_text("CONTEXT-FILE-BODY")
    result = env.run("--no-session", "@ctx.md", "summarise", input="PIPED-TEXT\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "got it\n"
    body = loopback.requests[0].json
    user_texts = [m for m in body["messages"] if m["role"] == "user"]
    sent = scripts.request_text(user_texts)
    # pi: stdin becomes the first message; @file text is prepended to it, "summarise" is the next prompt
    assert "CONTEXT-FILE-BODY" in sent and "PIPED-TEXT" in sent
    assert sent.index("CONTEXT-FILE-BODY") < sent.index("PIPED-TEXT")
    assert "summarise" not in sent
    assert "summarise" in scripts.request_text(loopback.requests[1].json)


def test_continue_and_session_id_pick_up_the_earlier_conversation(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(
        chat_text_stream("remembered: 42"), chat_text_stream("it was 42"), chat_text_stream("still 42")
    )
    assert env.call("-p", "remember 42").returncode == 0
    result = env.call("-c", "-p", "what was it?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "it was 42\n"
    assert "remember 42" in scripts.request_text(loopback.requests[1].json)
    [session_file] = list((env.agent_dir / "sessions").rglob("*.jsonl"))
    session_id = session_file.stem.split("_")[-1]
    result = env.call("--session", session_id[:8], "-p", "and now?")
    assert result.returncode == 0, result.stderr
    assert "what was it?" in scripts.request_text(loopback.requests[2].json)
    assert len(list((env.agent_dir / "sessions").rglob("*.jsonl"))) == 1
