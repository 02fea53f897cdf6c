"""builtin:mcp through the real ``pi`` command: loaded by default, the ways to turn it off, and a session
without MCP servers never importing the SDK."""

from __future__ import annotations

import json

from pi_app.extensions.builtin import builtin_path, enabled_builtins
from pi_app.extensions.loader import discover
from tests.loopback.openai_wire import chat_text_stream
from tests.modes.harness import make_env

from .helpers import stdio, write_mcp

PROBE = """
import json, os, sys

def register(pi):
    def done(event, ctx):
        names = [c["name"] for c in pi.get_commands()]
        with open(os.environ["PROBE_OUT"], "w") as f:
            json.dump({"mcp_imported": "mcp" in sys.modules, "has_mcp_command": "mcp" in names,
                       "tools": pi.get_active_tools()}, f)
    pi.on("agent_end", done)
"""


def test_discover_places_builtins_last_and_resolves_builtin_refs(tmp_path):
    mcp = builtin_path("mcp")
    sources, warnings = discover(
        agent_dir=str(tmp_path / "agent"),
        cwd=str(tmp_path),
        project_trusted=True,
        setting_paths=[],
        cli_paths=["builtin:nope"],
        no_extensions=False,
        builtins=["mcp"],
    )
    assert [s.path for s in sources] == [mcp] and sources[0].name == "mcp"
    assert warnings == ["Unknown built-in extension: builtin:nope"]
    sources, _ = discover(
        agent_dir=str(tmp_path), cwd=str(tmp_path), project_trusted=True, setting_paths=[],
        cli_paths=[], no_extensions=True, builtins=["mcp"],
    )  # fmt: skip
    assert sources == []
    sources, _ = discover(
        agent_dir=str(tmp_path), cwd=str(tmp_path), project_trusted=True, setting_paths=[],
        cli_paths=["builtin:mcp"], no_extensions=True, builtins=["mcp"],
    )  # fmt: skip
    assert [s.path for s in sources] == [mcp]


def test_the_extensions_setting_toggles_builtins_later_entries_win():
    assert enabled_builtins([]) == ["mcp"]
    assert enabled_builtins(["-builtin:mcp"]) == []
    assert enabled_builtins(["-builtin:mcp", "+builtin:mcp"]) == ["mcp"]
    assert enabled_builtins(["-builtin:mcp", "builtin:mcp", "./ext.py"]) == ["mcp"]
    assert enabled_builtins(["+builtin:mcp"], disabled=["mcp"]) == []


def _run(env, loopback, tmp_path, *args: str, process: bool = False) -> dict:
    """``pi -p hi`` with the probe extension; in this process unless the test is about imports (a process
    starts with a clean ``sys.modules``)."""
    out = tmp_path / "probe.json"
    out.unlink(missing_ok=True)
    loopback.add(chat_text_stream("answer"))
    runner = env.run if process else env.call
    result = runner(
        "--no-session", "-e", str(tmp_path / "probe.py"), *args, "-p", "hi", PROBE_OUT=str(out), timeout=90
    )
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text())


def test_pi_loads_builtin_mcp_by_default_and_every_switch_turns_it_off(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (tmp_path / "probe.py").write_text(PROBE)

    default = _run(env, loopback, tmp_path, process=True)
    assert default["has_mcp_command"] is True
    assert default["mcp_imported"] is False  # no mcp.json: the SDK is never imported
    assert _run(env, loopback, tmp_path, "--no-mcp")["has_mcp_command"] is False
    assert _run(env, loopback, tmp_path, "-ne")["has_mcp_command"] is False
    assert _run(env, loopback, tmp_path, "-ne", "-e", "builtin:mcp")["has_mcp_command"] is True
    assert _run(env, loopback, tmp_path, "--no-mcp", "-e", "builtin:mcp")["has_mcp_command"] is False
    (env.agent_dir / "settings.json").write_text(json.dumps({"extensions": ["-builtin:mcp"]}))
    assert _run(env, loopback, tmp_path)["has_mcp_command"] is False
    (env.agent_dir / "settings.json").unlink()

    # with a server configured the SDK is imported (whether the server connects within the first prompt's
    # 10 s wait depends on the machine: tests/mcp/test_stdio_session.py checks the tools deterministically)
    write_mcp(env.agent_dir / "mcp.json", {"t": stdio()})  # deferred: the prompt does not wait for it
    assert _run(env, loopback, tmp_path, process=True)["mcp_imported"] is True
