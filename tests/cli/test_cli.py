"""The ``pi`` command's own behaviour: fast paths, one-line errors, --list-models, --export.

The fast paths and a refusal run the real command; the rest call its entry point in this process
(``PiEnv.call``: same argv, environment, cwd and streams, ~1 s less per call)."""

from __future__ import annotations

import json

from pi_app import __version__
from pi_app.cli_help import HELP_TEXT
from tests.modes.harness import make_env


def test_version_and_help_go_to_stdout(tmp_path):
    env = make_env(tmp_path)
    result = env.run("--version")  # its speed is measured by bench/bench_startup.py, never asserted here
    assert (result.returncode, result.stdout, result.stderr) == (0, f"{__version__}\n", "")
    result = env.run("-h")
    assert (result.returncode, result.stdout, result.stderr) == (0, HELP_TEXT, "")


def test_version_imports_nothing_heavy():
    import subprocess
    import sys

    code = (
        "import sys\nfrom pi_app.cli import main\nmain(['--version'])\n"
        "heavy = [m for m in ('pydantic', 'textual', 'openai', 'anthropic', 'httpx2', 'tiktoken', 'rich')"
        " if m in sys.modules]\nprint(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]"


def _one_line_error(result, *needles: str) -> None:
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_unknown_flag(tmp_path):
    env = make_env(tmp_path)
    _one_line_error(env.call("--bogus", "-p", "hi"), "Unknown option: --bogus")


def test_missing_at_file(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    _one_line_error(env.call("-p", "@nope.txt", "hi"), "File not found", "nope.txt")
    assert loopback.requests == []


def test_no_model_explains_how_to_configure_one(tmp_path):
    env = make_env(tmp_path)
    result = env.call("-p", "hi")
    _one_line_error(result, "No models available", "API_KEY", "/login", "models.json")


def test_unknown_model(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    result = env.call("--model", "no-such-model-xyz", "-p", "hi")
    _one_line_error(result, "no-such-model-xyz")


def test_rpc_rejects_file_arguments(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (env.project / "a.txt").write_text("x")
    _one_line_error(env.call("--mode", "rpc", "@a.txt"), "not supported in RPC mode")


def test_interactive_without_terminal_says_what_to_use(tmp_path):
    env = make_env(tmp_path)
    _one_line_error(env.call(), "-p")


def test_list_models_table_and_search(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    result = env.call("--list-models")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert lines[1].split() == ["loop", "loop-model", "128K", "16.4K", "no", "no"]
    assert lines[0].index("model") == lines[1].index("loop-model")  # aligned columns
    assert env.call("--list-models", "lpmdl").stdout.splitlines()[1].startswith("loop ")
    assert env.call("--list-models", "zzzz").stdout == 'No models matching "zzzz"\n'


def _write_session(path, cwd: str) -> None:
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "0197a000-0000-7000-8000-000000000001",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": cwd,
        },
        {
            "type": "message",
            "id": "a1b2c3d4",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "hello <export>"}],
                "timestamp": 1,
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_export_html_and_errors(tmp_path):
    env = make_env(tmp_path)
    session = env.project / "s.jsonl"
    _write_session(session, str(env.project))
    result = env.call("--export", "s.jsonl", "out.html")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Exported to: out.html\n"
    html = (env.project / "out.html").read_text()
    assert "hello &lt;export&gt;" in html
    _one_line_error(env.call("--export", "missing.jsonl"), "missing.jsonl")


def test_session_selection_errors_and_resume_listing(tmp_path, loopback):
    from tests.loopback.openai_wire import chat_text_stream

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    _one_line_error(env.call("--session", "deadbeef", "-p", "hi"), "No session found matching 'deadbeef'")
    loopback.add(chat_text_stream("noted"))
    assert env.call("-p", "a first prompt").returncode == 0
    [session_file] = list((env.agent_dir / "sessions").rglob("*.jsonl"))
    session_id = session_file.stem.split("_")[-1]
    result = env.call("-r", "-p")  # no terminal: list the sessions instead of a picker
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(session_id) and "a first prompt" in result.stdout
    assert "--session" in result.stderr
    # --fork copies the history into a new file
    loopback.add(chat_text_stream("forked answer"))
    result = env.call("--fork", session_id[:6], "-p", "after fork")
    assert result.returncode == 0, result.stderr
    files = list((env.agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 2
    assert "a first prompt" in json.dumps(loopback.requests[-1].json)


def test_api_key_flag_needs_a_model_and_overrides_keys(tmp_path, loopback):
    from tests.loopback.openai_wire import chat_text_stream

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    loopback.add(chat_text_stream("ok"))
    result = env.call("--no-session", "--model", "loop/loop-model", "--api-key", "sk-runtime", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert loopback.requests[0].headers["authorization"] == "Bearer sk-runtime"
