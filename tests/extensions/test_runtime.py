"""The extension runtime with real extension files: loading, events, gates, transforms, errors."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.extensions.loader import ExtensionSource, discover
from pi_app.extensions.runner import ExtensionRunner
from pi_app.extensions.schema import validate_extension_arguments
from pi_app.session.store import SessionManager
from tests.agent_session.helpers import Script, entries, make_session, texts

from .helpers import session_with, write_ext

RECORDER = """
    EVENTS = []
    NAMES = ["session_start", "agent_start", "turn_start", "message_start", "message_end", "tool_execution_start",
             "tool_call", "tool_result", "tool_execution_end", "turn_end", "agent_end", "context",
             "before_agent_start", "input", "session_shutdown", "model_select", "thinking_level_select"]

    def register(pi):
        for name in NAMES:
            pi.on(name, lambda event, ctx, name=name: EVENTS.append((name, event)))
"""


def _module(runner: ExtensionRunner, index: int = 0):
    return runner.extensions[index].module


async def test_events_fire_in_order_over_a_tool_run(tmp_path, faux):
    ext = write_ext(tmp_path / "exts", "recorder.py", RECORDER)
    session, runner, errors = await session_with(tmp_path, ext)
    Script(faux, faux_tool("bash", {"command": "echo hi"}), faux_text("done"))
    await session.prompt("go")
    names = [n for n, _ in _module(runner).EVENTS]
    assert names[0] == "session_start"
    run = names[names.index("input") :]
    assert run[:3] == ["input", "before_agent_start", "agent_start"]
    i = run.index("tool_execution_start")
    assert run[i : i + 4] == ["tool_execution_start", "tool_call", "tool_result", "tool_execution_end"]
    assert run.count("turn_start") == 2 and run.count("context") == 2 and run[-1] == "agent_end"
    call = next(e for n, e in _module(runner).EVENTS if n == "tool_call")
    assert (call.tool_name, call.input) == ("bash", {"command": "echo hi"})
    assert errors == []


async def test_tool_call_gate_and_input_rewrite(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "gate.py",
        """
        def register(pi):
            def on_call(event, ctx):
                if "rm -rf" in event.input.get("command", ""):
                    return {"block": True, "reason": "Dangerous command blocked"}
                if event.tool_name == "bash":
                    event.input["command"] = "echo rewritten"
            pi.on("tool_call", on_call)
        """,
    )
    session, _, _ = await session_with(tmp_path, ext)
    script = Script(
        faux,
        faux_tool("bash", {"command": "rm -rf /"}),
        faux_tool("bash", {"command": "echo original"}),
        faux_text("ok"),
    )
    await session.prompt("go")
    results = [m for m in session.messages if m.role == "toolResult"]
    assert results[0].isError and results[0].content[0].text == "Dangerous command blocked"
    assert not results[1].isError and results[1].content[0].text.strip() == "rewritten"
    assert len(script.agent_requests) == 3


async def test_tool_result_context_and_input_transforms_chain(tmp_path, faux):
    first = write_ext(
        tmp_path / "a",
        "first.py",
        """
        def register(pi):
            pi.on("tool_result", lambda e, ctx: {"content": [{"type": "text", "text": "A:" + e.content[0].text}]})
            pi.on("input", lambda e, ctx: {"action": "transform", "text": e.text + " +a"})
            def context(event, ctx):
                return {"messages": [m for m in event.messages if m.role != "toolResult" or True]}
            pi.on("context", context)
        """,
    )
    second = write_ext(
        tmp_path / "b",
        "second.py",
        """
        from pi_app.extensions import InputResult, ToolResultPatch
        from pi_app.ai.types import TextContent
        def register(pi):
            pi.on("tool_result", lambda e, ctx: ToolResultPatch(content=[TextContent(text="B:" + e.content[0].text)]))
            pi.on("input", lambda e, ctx: InputResult("transform", text=e.text + " +b"))
            def context(event, ctx):
                from pi_app.session.messages import CustomMessage
                return {"messages": [*event.messages, CustomMessage(customType="note", content="injected")]}
            pi.on("context", context)
        """,
    )
    session, _, errors = await session_with(tmp_path, first, second)
    script = Script(faux, faux_tool("bash", {"command": "echo x"}), faux_text("done"))
    await session.prompt("hello")
    assert errors == []
    user = next(m for m in session.messages if m.role == "user")
    assert user.content[0].text == "hello +a +b"
    result = next(m for m in session.messages if m.role == "toolResult")
    assert result.content[0].text == "B:A:x\n"
    sent = texts(script.agent_requests[0].messages)
    assert sent[-1] == "user:injected"  # the context rewrite reached the request …
    assert "injected" not in json.dumps(entries(session.session_file))  # … and never the session file


async def test_input_handled_and_commands_never_reach_the_model(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "cmds.py",
        """
        SEEN = []
        def register(pi):
            async def hello(args, ctx):
                SEEN.append(("hello", args, ctx.mode))
            pi.register_command("hello", hello, description="Say hello")
            pi.on("input", lambda e, ctx: {"action": "handled"} if e.text == "ping" else None)
        """,
    )
    session, runner, _ = await session_with(tmp_path, ext)
    script = Script(faux, faux_text("unused"))
    await session.prompt("/hello to you")
    await session.prompt("ping")
    assert _module(runner).SEEN == [("hello", "to you", "print")]
    assert script.agent_requests == [] and session.messages == []
    assert session.get_commands()[0] == {
        "name": "hello",
        "description": "Say hello",
        "source": "extension",
        "location": "temporary",
        "path": str(ext.resolve()),
    }


async def test_custom_tool_with_pydantic_parameters_and_ajv_errors(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "greet.py",
        """
        from pydantic import BaseModel
        from pi_app.extensions import AgentToolResult, ToolDefinition

        class Params(BaseModel):
            name: str
            times: int = 1
            email: str | None = None

        async def run(call_id, params, signal, on_update, ctx):
            on_update(AgentToolResult.text("working"))
            return {"content": [{"type": "text", "text": ("hi " + params.name + " ") * params.times}],
                    "details": {"times": params.times}}

        def register(pi):
            pi.register_tool(ToolDefinition(name="greet", description="Greets", parameters=Params, execute=run,
                                            prompt_snippet="Greet someone by name"))
        """,
    )
    session, _, _ = await session_with(tmp_path, ext)
    assert "greet" in session.tool_names and "- greet: Greet someone by name" in session.system_prompt
    Script(
        faux,
        faux_tool("greet", {"name": "Ada", "times": "2"}),
        faux_tool("greet", {"times": 1}),
        faux_text("ok"),
    )
    await session.prompt("greet")
    ok, bad = [m for m in session.messages if m.role == "toolResult"]
    assert ok.content[0].text == "hi Ada hi Ada " and ok.details == {"times": 2}
    assert bad.isError and "must have required property 'name'" in bad.content[0].text


def test_json_schema_validation_covers_refs_and_formats():
    schema = {
        "type": "object",
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
        "properties": {"at": {"$ref": "#/$defs/Point"}, "mail": {"type": "string", "format": "email"}},
        "required": ["at"],
    }
    from pi_app.extensions.schema import inline_refs

    flat = inline_refs(schema)
    assert validate_extension_arguments("t", flat, {"at": {"x": "3"}}) == {"at": {"x": 3}}
    for bad, needle in (
        ({"at": {}}, "at: must have required property 'x'"),
        ({"at": {"x": 1}, "mail": "nope"}, 'mail: must match format "email"'),
    ):
        try:
            validate_extension_arguments("t", flat, bad)
        except ValueError as exc:
            assert needle in str(exc), str(exc)
        else:
            raise AssertionError("accepted " + json.dumps(bad))


async def test_handler_errors_are_reported_and_a_failing_gate_blocks(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "broken.py",
        """
        def register(pi):
            pi.on("agent_start", lambda e, ctx: 1 / 0)
            def gate(e, ctx):
                raise RuntimeError("policy unavailable")
            pi.on("tool_call", gate)
        """,
    )
    session, _, errors = await session_with(tmp_path, ext)
    Script(faux, faux_tool("bash", {"command": "echo hi"}), faux_text("finished"))
    await session.prompt("go")
    assert session.get_last_assistant_text() == "finished"  # the run went on
    assert [(e.event, e.error) for e in errors] == [
        ("agent_start", "ZeroDivisionError: division by zero"),
        ("tool_call", "RuntimeError: policy unavailable"),
    ]
    assert str(errors[0]) == "Extension error (broken): ZeroDivisionError: division by zero"
    result = next(m for m in session.messages if m.role == "toolResult")
    assert result.isError and "broken" in result.content[0].text


async def test_load_errors_name_file_and_line_and_others_still_load(tmp_path):
    bad = write_ext(
        tmp_path / "x",
        "bad.py",
        "def register(pi):\n    pi.on('input', lambda e, c: None)\n    raise ValueError('boom')\n",
    )
    syntax = write_ext(tmp_path / "y", "syntax.py", "def register(pi)\n    pass\n")
    good = write_ext(
        tmp_path / "z", "good.py", "def register(pi):\n    pi.register_command('ok', lambda a, c: None)\n"
    )
    session, runner, errors = await session_with(tmp_path, bad, syntax, good)
    assert [e.name for e in runner.extensions] == ["good"]
    assert f"{bad}:3: ValueError: boom" in errors[0].error
    assert f"{syntax}:1" in errors[1].error and "SyntaxError" in errors[1].error
    assert runner.command_infos()[0]["name"] == "ok" and not runner.has_handlers("input")


async def test_same_named_modules_are_isolated_and_packages_import_their_helpers(tmp_path):
    one = write_ext(tmp_path / "one", "tools.py", "VALUE = 1\ndef register(pi): pass\n")
    two = write_ext(tmp_path / "two", "tools.py", "VALUE = 2\ndef register(pi): pass\n")
    pkg = tmp_path / "three" / "pkgext"
    write_ext(pkg, "helpers.py", "WORD = 'from-helper'\n")
    write_ext(
        pkg,
        "__init__.py",
        "from .helpers import WORD\ndef register(pi): pi.register_command(WORD, lambda a, c: None)\n",
    )
    _, runner, errors = await session_with(tmp_path, one, two, pkg / "__init__.py")
    assert errors == []
    assert [_module(runner, i).VALUE for i in (0, 1)] == [1, 2]
    assert runner.command_infos()[0]["name"] == "from-helper"


def test_discovery_order_trust_gate_and_no_extensions(tmp_path):
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write_ext(agent / "extensions", "user_ext.py", "def register(pi): pass\n")
    write_ext(agent / "extensions", "_helper.py", "")
    write_ext(agent / "extensions" / "pkg", "__init__.py", "def register(pi): pass\n")
    write_ext(cwd / ".pi" / "extensions", "proj_ext.py", "def register(pi): pass\n")
    cli = write_ext(tmp_path / "cli", "cli_ext.py", "def register(pi): pass\n")
    setting = write_ext(tmp_path / "set", "set_ext.py", "def register(pi): pass\n")

    def names(**kw):
        base = {
            "agent_dir": str(agent),
            "cwd": str(cwd),
            "project_trusted": True,
            "setting_paths": [("../set/set_ext.py", str(agent))],
            "cli_paths": [str(cli)],
            "no_extensions": False,
        }
        sources, warnings = discover(**{**base, **kw})
        return [
            Path(s.path).parent.name if s.path.endswith("__init__.py") else Path(s.path).stem for s in sources
        ], warnings

    assert names() == (["cli_ext", "pkg", "user_ext", "set_ext", "proj_ext"], [])
    assert names(project_trusted=False)[0] == ["cli_ext", "pkg", "user_ext", "set_ext"]
    assert names(no_extensions=True)[0] == ["cli_ext"]
    missing = names(cli_paths=["nope.py"])[1]
    assert missing == [f"Extension not found: {cwd / 'nope.py'}"]
    assert setting.exists()


async def test_untrusted_project_extensions_are_never_imported(tmp_path):
    from pi_app.extensions.setup import load_extensions

    cwd = tmp_path / "proj"
    marker = tmp_path / "imported"
    write_ext(
        cwd / ".pi" / "extensions",
        "evil.py",
        f"open({str(marker)!r}, 'w').write('x')\ndef register(pi): pass\n",
    )
    session = await make_session(tmp_path)
    kw = dict(
        cwd=str(cwd),
        agent_dir=str(tmp_path / "agent"),
        settings=session.settings,
        model_registry=session.model_registry,
        cli_paths=[],
        no_extensions=False,
    )
    runner, _ = await load_extensions(project_trusted=False, **kw)
    assert runner.extensions == [] and not marker.exists()
    runner, _ = await load_extensions(project_trusted=True, **kw)
    assert [e.name for e in runner.extensions] == ["evil"] and marker.exists()


async def test_reload_calls_shutdown_and_picks_up_edits(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts", "live.py", "def register(pi):\n    pi.register_command('v1', lambda a, c: None)\n"
    )
    session, runner, _ = await session_with(tmp_path, ext)
    log = tmp_path / "log.txt"
    ext.write_text(
        "def register(pi):\n"
        "    pi.register_command('v2', lambda a, c: None)\n"
        f"    pi.on('session_start', lambda e, c: open({str(log)!r}, 'a').write(e.reason + '\\n'))\n",
        encoding="utf-8",
    )
    await session.reload()
    assert [c["name"] for c in session.get_commands() if c["source"] == "extension"] == ["v2"]
    assert log.read_text() == "reload\n"


async def test_custom_entries_survive_resume_and_messages_reach_the_model(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "state.py",
        """
        def register(pi):
            async def remember(args, ctx):
                pi.append_entry("state", {"value": args})
                await pi.send_message("note", "remember " + args, trigger_turn=True)
            pi.register_command("remember", remember)
        """,
    )
    session, _, _ = await session_with(tmp_path, ext)
    script = Script(faux, faux_text("noted"))
    await session.prompt("/remember blue")
    assert texts(script.agent_requests[0].messages)[-1] == "user:remember blue"
    reopened = SessionManager.open(session.session_file)
    custom = [e for e in reopened.raw_entries() if e.type == "custom"]
    assert [e.data["data"] for e in custom] == [{"value": "blue"}]
    assert [m.role for m in reopened.build_session_context().messages][-2:] == ["custom", "assistant"]


async def test_session_gates_cancel_and_compaction_takes_an_extension_summary(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "gates.py",
        """
        def register(pi):
            pi.on("session_before_fork", lambda e, c: {"cancel": True})
            pi.on("session_before_switch", lambda e, c: {"cancel": e.reason == "new"})
            pi.on("session_before_tree", lambda e, c: {"cancel": True})
            def compact(e, c):
                return {"compaction": {"summary": "EXTENSION SUMMARY"}}
            pi.on("session_before_compact", compact)
        """,
    )
    session, _, _ = await session_with(tmp_path, ext, settings={"compaction": {"keepRecentTokens": 1}})
    script = Script(faux, faux_text("one " * 50), faux_text("two " * 50))
    await session.prompt("first " * 50)
    await session.prompt("second " * 50)
    from pi_app.session.results import Cancelled

    for op in (
        lambda: session.fork(session.session_manager.leaf_id),
        session.new_session,
        lambda: session.navigate_tree(session.session_manager.get_branch()[0]["id"]),
    ):
        try:
            await op()
        except Cancelled:
            pass
        else:
            raise AssertionError("not cancelled")
    result = await session.compact()
    assert result.summary == "EXTENSION SUMMARY" and script.summary_requests == []
    compaction = [e for e in entries(session.session_file) if e["type"] == "compaction"]
    assert compaction[0]["summary"] == "EXTENSION SUMMARY" and compaction[0].get("fromHook") is True


async def test_user_bash_can_answer_instead_of_the_shell(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "remote.py",
        """
        def register(pi):
            pi.on("user_bash", lambda e, c: {"result": {"output": "remote: " + e.command, "exitCode": 0}})
        """,
    )
    session, _, _ = await session_with(tmp_path, ext)
    result = await session.execute_bash("touch should-not-exist")
    assert result.output == "remote: touch should-not-exist" and result.exit_code == 0
    assert not (Path(session.cwd) / "should-not-exist").exists()
    assert session.messages[-1].output == "remote: touch should-not-exist"


async def test_exec_reports_signals_as_a_shell_does(tmp_path):
    from pi_app.extensions.exec import run_exec

    done = await run_exec("sh", ["-c", "echo out; echo err >&2; exit 3"])
    assert (done.stdout, done.stderr, done.code, done.killed) == ("out\n", "err\n", 3, False)
    slow = await run_exec("sleep", ["30"], timeout=0.2)
    assert slow.killed and slow.code == 143
    missing = await run_exec("definitely-not-a-program-xyz")
    assert missing.code == 127


async def test_session_lifecycle_events_over_compaction_tree_fork_and_resume(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "life.py",
        """
        SEEN = []
        NAMES = ["session_start", "session_shutdown", "session_before_compact", "session_compact",
                 "session_before_tree", "session_tree", "session_before_fork", "session_before_switch"]

        def register(pi):
            for name in NAMES:
                pi.on(name, lambda e, c, name=name: SEEN.append((name, getattr(e, "reason", None))))
        """,
    )
    session, runner, _ = await session_with(tmp_path, ext, settings={"compaction": {"keepRecentTokens": 1}})
    seen = _module(runner).SEEN
    Script(faux, faux_text("one " * 40), faux_text("two " * 40))
    await session.prompt("first " * 40)
    await session.prompt("second " * 40)
    first_file = session.session_file
    await session.compact()
    user_id = next(e["id"] for e in session.session_manager.get_branch() if e.get("type") == "message")
    await session.navigate_tree(user_id)
    await session.fork(next(i for i, _ in session.get_fork_messages()))
    await session.switch_session(first_file)
    await session.new_session()
    assert seen == [
        ("session_start", "startup"),
        ("session_before_compact", "manual"),
        ("session_compact", "manual"),
        ("session_before_tree", None),
        ("session_tree", None),
        ("session_before_fork", None),
        ("session_shutdown", "fork"),
        ("session_start", "fork"),
        ("session_before_switch", "resume"),
        ("session_shutdown", "resume"),
        ("session_start", "resume"),
        ("session_before_switch", "new"),
        ("session_shutdown", "new"),
        ("session_start", "new"),
    ]


async def test_context_handlers_replace_messages_without_touching_the_session(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "mutate.py",
        """
        from pi_app.ai.types import TextContent

        def register(pi):
            def context(event, ctx):
                return {"messages": [
                    m.model_copy(update={"content": [TextContent(text="MUTATED")]}) if m.role == "user" else m
                    for m in event.messages
                ]}
            pi.on("context", context)
        """,
    )
    session, _, _ = await session_with(tmp_path, ext)
    script = Script(faux, faux_text("ok"))
    await session.prompt("original")
    assert texts(script.agent_requests[0].messages)[-1] == "user:MUTATED"  # the request saw the rewrite
    user = next(m for m in session.messages if m.role == "user")
    assert user.content[0].text == "original"  # the session did not


async def test_command_argument_completion_reaches_the_editor(tmp_path):
    from widgets.completion import DefaultCompletionProvider, SlashCommand

    ext = write_ext(
        tmp_path / "exts",
        "deploy.py",
        """
        def register(pi):
            envs = ["dev", "staging", "prod"]
            pi.register_command("deploy", lambda a, c: None,
                                get_argument_completions=lambda prefix: [e for e in envs if e.startswith(prefix)])
        """,
    )
    _, runner, _ = await session_with(tmp_path, ext)
    provider = DefaultCompletionProvider(
        [SlashCommand("deploy")], tmp_path, arguments=runner.command_completions
    )
    found = provider.get_completions("/deploy st", at_line_start=True, force=False)
    assert found is not None and [i.value for i in found.items] == ["staging"] and found.prefix == "st"
    assert provider.get_completions("/deploy x", at_line_start=True, force=False) is None
    assert [i.value for i in provider.get_completions("/dep", True, False).items] == ["/deploy"]


def test_tool_flags_decide_tools_that_appear_later_as_pi():
    from pi_app.tool_selection import ToolSelection, tool_selected

    names = ["mcp__docs__search", "mcp__web__fetch", "read_mcp_resource", "ping"]

    def kept(**kw) -> list[str]:
        return [n for n in names if tool_selected(ToolSelection(**kw), n)]

    assert kept() == names
    assert kept(allow=["read", "bash"]) == ["mcp__docs__search", "mcp__web__fetch", "read_mcp_resource"]
    assert kept(allow=["read", "mcp__docs__*"]) == ["mcp__docs__search"]  # an mcp__ entry filters MCP tools
    assert kept(exclude=["mcp__*"]) == ["read_mcp_resource", "ping"]
    assert kept(no_tools=True) == []


async def test_a_tool_registered_after_startup_follows_the_tool_flags(tmp_path, faux):
    from pi_app.tool_selection import ToolSelection

    ext = write_ext(
        tmp_path / "exts",
        "late.py",
        """
        from pi_app.extensions import ToolDefinition

        async def run(call_id, params, signal, on_update, ctx):
            return "ok"

        def register(pi):
            def start(event, ctx):
                for name in ("mcp__srv__a", "mcp__srv__b", "helper"):
                    pi.register_tool(ToolDefinition(name=name, description=name, execute=run))
            pi.on("session_start", start)
        """,
    )
    session = await make_session(tmp_path)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(ext), "temporary")])
    runner.tool_selection = ToolSelection(allow=["read", "helper", "mcp__srv__a"])
    runner.bind(session)
    await runner.start()
    active = session.tool_names
    assert "mcp__srv__a" in active and "helper" in active and "mcp__srv__b" not in active
    assert "mcp__srv__b" in [t.name for t in session.get_all_tools()]  # registered, just not active


async def test_tools_activated_during_a_run_are_declared_from_the_next_request(tmp_path, faux):
    ext = write_ext(
        tmp_path / "exts",
        "unlock.py",
        """
        from pi_app.extensions import ToolDefinition

        def register(pi):
            async def unlock(call_id, params, signal, on_update, ctx):
                pi.set_active_tools([*pi.get_active_tools(), "ls"])
                return "ls is available now"
            pi.register_tool(ToolDefinition(name="unlock", description="Enable ls", execute=unlock))
        """,
    )
    session, _, _ = await session_with(tmp_path, ext, tools=["read"])
    script = Script(faux, faux_tool("unlock", {}), faux_tool("ls", {"path": "."}), faux_text("listed"))
    await session.prompt("look around")
    declared = [sorted(t.name for t in (r.tools or [])) for r in script.agent_requests]
    assert declared[0] == ["read", "unlock"] and "ls" in declared[1]
    results = [m for m in session.messages if m.role == "toolResult"]
    assert not results[-1].isError  # the ls call of the same run was executed, not "Tool ls not found"
