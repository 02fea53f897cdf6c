"""Extensions in each mode: print and rpc through the real ``pi`` command, the TUI through Pilot."""

from __future__ import annotations

import json
import subprocess

from pi_app.ai.providers.faux import faux_text
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from tests.loopback.openai_wire import chat_text_stream
from tests.modes.harness import PI_CMD, make_env
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

from .helpers import write_ext

EXT = """
def register(pi):
    pi.register_flag("temp", description="Sampling temperature", type="string")

    def payload(event, ctx):
        value = pi.get_flag("temp")
        return {**event.payload, "temperature": float(value)} if value else None

    pi.on("before_provider_request", payload)
    pi.on("agent_start", lambda e, ctx: 1 / 0)

    async def where(args, ctx):
        ctx.ui.notify("mode=" + ctx.mode + " args=" + args)

    pi.register_command("where", where, description="Report the mode")
    pi.register_shortcut("f9", lambda ctx: ctx.ui.set_editor_text("from shortcut"), description="Fill the editor")
    pi.register_shortcut("ctrl+g", lambda ctx: None, description="Clashes with the external editor")
"""


def test_print_mode_flags_payload_rewrite_commands_and_errors(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    ext = write_ext(tmp_path / "ext", "probe.py", EXT)
    loopback.add(chat_text_stream("answer"))
    result = env.call("--no-session", "-e", str(ext), "--temp", "0.25", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "answer\n"
    assert loopback.requests[-1].json["temperature"] == 0.25
    assert "Extension error (probe): ZeroDivisionError: division by zero" in result.stderr

    result = env.call("--no-session", "-e", str(ext), "-p", "/where a b")
    assert result.returncode == 0 and "mode=print args=a b" in result.stderr
    assert len(loopback.requests) == 1  # the command never reached the model

    loopback.add(chat_text_stream("json answer"))
    streamed = env.call("--no-session", "-e", str(ext), "--mode", "json", "hi")
    assert streamed.returncode == 0 and "Extension error (probe): ZeroDivisionError" in streamed.stderr
    assert '"type":"agent_settled"' in streamed.stdout.replace(" ", "")  # the run went on to the end

    refused = env.call("--no-session", "--temp", "1", "-p", "hi")
    assert refused.returncode == 1 and "Unknown option: --temp" in refused.stderr


def test_rpc_lists_commands_runs_them_and_emits_extension_error(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    ext = write_ext(tmp_path / "ext", "probe.py", EXT)
    loopback.add(chat_text_stream("answer"))
    lines = [
        {"id": "1", "type": "get_commands"},
        {"id": "2", "type": "prompt", "message": "hi"},
    ]
    proc = subprocess.Popen(
        [*PI_CMD, "--mode", "rpc", "--no-session", "-e", str(ext)],
        cwd=env.project,
        env=env.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
    proc.stdin.flush()
    records = []
    for raw in proc.stdout:
        records.append(json.loads(raw))
        if records[-1].get("type") == "agent_settled":
            break
    proc.stdin.close()
    proc.wait(timeout=15)
    commands = next(r for r in records if r.get("id") == "1")["data"]["commands"]
    assert commands[0]["name"] == "where" and commands[0]["source"] == "extension"
    assert commands[0]["sourceInfo"]["path"] == str(ext.resolve())
    error = next(r for r in records if r.get("type") == "extension_error")
    assert error == {
        "type": "extension_error",
        "extensionPath": str(ext.resolve()),
        "event": "agent_start",
        "error": "ZeroDivisionError: division by zero",
    }
    assert any(r.get("type") == "agent_end" for r in records)


async def test_tui_shows_extension_errors_and_runs_commands(faux, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    ext = write_ext(tmp_path / "ext", "probe.py", EXT)
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(ext), "temporary")])
    runner.bind(session)  # as startup does; the app then sets mode "tui" and its ctx.ui
    faux.enqueue(faux_text("hello there"))
    app = make_app(session, extensions=runner)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/where now")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "mode=tui args=now" in _chat_text(app), "the command's notice")
        app.editor.load_text("hi")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                "Extension error (probe): ZeroDivisionError" in _chat_text(app)
                and session.get_last_assistant_text() == "hello there"
            ),
            "the error notice and the answer",
        )
        assert not session.is_streaming
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.editor.text == "from shortcut", "the shortcut's editor text")
        assert "Fill the editor (probe)" in app.hotkeys_text()
        assert "Extension shortcut ctrl+g (probe) is already bound to" in _chat_text(app)


def _chat_text(app) -> str:
    from textual.widgets import Static

    return "\n".join(str(w.render()) for w in app.chat.query(Static))


TOOL_EXT = """
from pi_app.extensions import ToolDefinition

async def run(call_id, params, signal, on_update, ctx):
    return "pong"

def register(pi):
    pi.register_tool(ToolDefinition(name="ping", description="Answers pong", execute=run))
"""


def test_tool_flags_cover_extension_tools(tmp_path, loopback):
    from tests.cli.test_pi16_cli import _system_and_tools

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    ext = write_ext(tmp_path / "ext", "ping.py", TOOL_EXT)
    declared = {}
    for flags in ((), ("--tools", "read,ping"), ("-xt", "ping"), ("-nbt",), ("-nt",)):
        loopback.add(chat_text_stream("ok"))
        result = env.call("--no-session", "-e", str(ext), *flags, "-p", "hi")
        assert result.returncode == 0 and "Unknown tool" not in result.stderr, result.stderr
        declared[flags] = _system_and_tools(loopback.requests[-1])[1]
    assert declared[()] == ["read", "bash", "edit", "write", "ping"]
    assert declared[("--tools", "read,ping")] == ["read", "ping"]
    assert declared[("-xt", "ping")] == ["read", "bash", "edit", "write"]
    assert declared[("-nbt",)] == ["ping"]
    assert declared[("-nt",)] == []


def test_project_trust_decided_by_a_user_extension_then_project_extensions_load(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    marker = tmp_path / "project-ext-imported"
    write_ext(
        env.project / ".pi" / "extensions",
        "proj.py",
        f"open({str(marker)!r}, 'w').write('x')\n"
        "def register(pi):\n    pi.register_command('proj', lambda a, c: c.ui.notify('project command ran'))\n",
    )
    loopback.add(chat_text_stream("ok"), chat_text_stream("ok"))
    # without a decision the folder is untrusted in print mode: the project extension is never imported
    assert env.call("--no-session", "-p", "/proj").returncode == 0
    assert not marker.exists()
    write_ext(
        env.agent_dir / "extensions",
        "trust_all.py",
        """
        def register(pi):
            pi.on("project_trust", lambda event, ctx: {"trusted": "yes", "remember": True})
        """,
    )
    result = env.call("--no-session", "-p", "/proj")
    assert result.returncode == 0 and "project command ran" in result.stderr, result.stderr
    assert marker.exists()
    saved = json.loads((env.agent_dir / "trust.json").read_text())
    assert list(saved.values()) == [True]  # remembered: the next run trusts without asking


def test_help_lists_extension_flags(tmp_path):
    env = make_env(tmp_path)
    ext = write_ext(tmp_path / "ext", "probe.py", EXT)
    shown = env.call("-e", str(ext), "--help")
    assert (
        shown.returncode == 0
        and "Extension options:\n  --temp <value>  Sampling temperature\n" in shown.stdout
    )
    assert "Extension options" not in env.call("--help").stdout
