"""The shipped examples in examples/extensions/, each loaded from its real file by the extension runtime and
driven through a real session: the faux provider in-process, the loopback server and ``pi -p`` as a
subprocess where the example talks to a provider or starts pi itself."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.providers.faux import faux_model, faux_text, faux_tool
from pi_app.ai.types import TextContent, dump
from pi_app.extensions import ExtensionError, ExtensionRunner
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.types import Mode, NoUI
from pi_app.session.agent_session import AgentSession
from pi_app.session.assembly import create_agent_session
from pi_app.session.config import AuthStorage, ModelRegistry, SettingsManager
from pi_app.session.store import SessionManager, load_session_file
from tests.loopback.openai_wire import chat_text_stream
from tests.loopback.server import STALL_S, Pause, Scripted
from tests.modes import scripts
from tests.modes.harness import PiEnv, make_env
from tests.waits import HANG_GUARD_S, wait_until

API = "openai-completions"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


class ScriptedUI(NoUI):
    """``ctx.ui`` of a mode with a UI, answering confirmations from a list and recording what it was asked."""

    def __init__(self, answers: Sequence[bool] = ()) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str]] = []
        self.notices: list[str] = []

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: Any = None
    ) -> bool:
        self.asked.append((title, message))
        return self.answers.pop(0)

    def notify(self, message: str, level: str = "info") -> None:  # type: ignore[override]
        self.notices.append(message)


@dataclass
class Run:
    session: AgentSession
    runner: ExtensionRunner
    errors: list[ExtensionError] = field(default_factory=list)

    @property
    def project(self) -> Path:
        return Path(self.session.cwd)

    def module(self, name: str) -> Any:
        return next(e.module for e in self.runner.extensions if e.name == name)

    def tool_results(self) -> list[Any]:
        return [m for m in self.session.messages if getattr(m, "role", None) == "toolResult"]


async def start(
    tmp_path: Path,
    *examples: str,
    mode: Mode = "print",
    ui: Any = None,
    manager: SessionManager | None = None,
    flags: dict[str, bool | str] | None = None,
) -> Run:
    """Load the example files as ``-e`` would, build a faux session with the same registry, bind, start."""
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key("faux", "test-key")
    registry = ModelRegistry(auth, None)
    settings = SettingsManager.in_memory({})
    runner = ExtensionRunner(cwd=str(project.resolve()), settings=settings, model_registry=registry)
    errors: list[ExtensionError] = []
    runner.on_error = errors.append
    await runner.load([ExtensionSource(str(EXAMPLES / f"{name}.py"), "temporary") for name in examples])
    assert runner.failures == [] and errors == []
    runner.flag_values = dict(flags or {})
    session = await create_agent_session(
        project,
        tmp_path / "agent",
        model=faux_model(),
        settings=settings,
        auth=auth,
        model_registry=registry,
        session=manager or SessionManager.create(str(project), tmp_path / "sessions"),
    )
    runner.bind(session, mode=mode, ui=ui)
    await runner.start()
    return Run(session, runner, errors)


def text_of(message: Any) -> str:
    return "".join(c.text for c in message.content if isinstance(c, TextContent))


def file_entries(path: str) -> list[dict[str, Any]]:
    loaded = load_session_file(path, rewrite_migrated=False)
    return [e.data if hasattr(e, "data") else e for e in loaded.entries]


# ====================================================================== permission_gate.py
DANGEROUS = {
    "rm -rf data": "rm -rf",
    "rm -r -f data": "rm -rf",
    "cd / && rm --recursive --force home": "rm -rf",
    "find . -print0 | xargs -0 rm -fr": "rm -rf",
    "sudo apt-get install thing": "sudo",
    "echo $(sudo cat /etc/shadow)": "sudo",
    "mkfs.ext4 /dev/sdb1": "mkfs",
    "dd if=/dev/zero of=/dev/sda bs=1M": "dd of=/dev/",
    "cat image.iso > /dev/sdb": "disk device",
    "chmod -R 777 /": "777",
    ":(){ :|:& };:": "fork bomb",
    "bomb() { bomb | bomb & }; bomb": "fork bomb",
}
SAFE = [
    "rm -r build",
    "rm -f out.txt",
    "ls -la",
    "echo 'rm -rf is dangerous'",
    "dd if=a.img of=b.img",
    "chmod 755 run.sh",
]


async def test_permission_gate_patterns(tmp_path):
    run = await start(tmp_path, "permission_gate")
    reason = run.module("permission_gate").dangerous_reason
    for command, expected in DANGEROUS.items():
        found = reason(command)
        assert found is not None and expected in found, command
    assert [c for c in SAFE if reason(c) is not None] == []


async def test_permission_gate_blocks_without_ui_and_lets_safe_commands_run(tmp_path, faux):
    run = await start(tmp_path, "permission_gate", mode="print")
    data = run.project / "data"
    data.mkdir()
    (data / "keep.txt").write_text("precious")
    faux.enqueue(
        faux_tool("bash", {"command": "rm -rf data"}),
        faux_tool("bash", {"command": "echo safe > out.txt"}),
        faux_text("done"),
    )
    await run.session.prompt("clean up")
    assert (data / "keep.txt").read_text() == "precious"
    blocked, allowed = run.tool_results()
    assert blocked.isError
    assert text_of(blocked) == (
        "Dangerous command blocked (deletes recursively without asking (rm -rf)); no UI to ask for permission"
    )
    assert not allowed.isError
    assert (run.project / "out.txt").read_text() == "safe\n"
    # the model was told why, in the request that followed
    assert "Dangerous command blocked" in json.dumps([dump(m) for m in faux.requests[1].messages])
    assert run.errors == []


@pytest.mark.parametrize("answer", [False, True])
async def test_permission_gate_asks_when_there_is_a_ui(tmp_path, faux, answer):
    ui = ScriptedUI([answer])
    run = await start(tmp_path, "permission_gate", mode="rpc", ui=ui)
    data = run.project / "data"
    data.mkdir()
    faux.enqueue(faux_tool("bash", {"command": "rm -rf data"}), faux_text("done"))
    await run.session.prompt("clean up")
    assert len(ui.asked) == 1
    title, message = ui.asked[0]
    assert "dangerous" in title.lower() and "rm -rf data" in message and "deletes recursively" in message
    (result,) = run.tool_results()
    if answer:
        assert not result.isError and not data.exists()
    else:
        assert result.isError
        assert (
            text_of(result) == "Blocked by the user: the command deletes recursively without asking (rm -rf)"
        )
        assert data.is_dir()


async def test_permission_gate_confirm_dialog_in_the_app(tmp_path, faux):
    from pi_app.extensions.loader import ExtensionSource
    from pi_app.tui.extension_ui import ExtensionDialog
    from tests.tui.conftest import SIZE, make_app
    from tests.tui.session_helpers import wait_for

    project = tmp_path / "proj"
    project.mkdir()
    (project / "data").mkdir()
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key("faux", "test-key")
    registry = ModelRegistry(auth, None)
    settings = SettingsManager.in_memory({})
    runner = ExtensionRunner(cwd=str(project), settings=settings, model_registry=registry)
    await runner.load([ExtensionSource(str(EXAMPLES / "permission_gate.py"), "temporary")])
    session = await create_agent_session(
        project, tmp_path / "agent", model=faux_model(), settings=settings, auth=auth, model_registry=registry,
        tools=["bash"],
    )  # fmt: skip
    runner.bind(session)  # as startup does; the app sets mode "tui" and its ctx.ui
    faux.enqueue(faux_tool("bash", {"command": "rm -rf data"}), faux_text("ok, left it alone"))
    app = make_app(session, extensions=runner)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("clean up")
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the confirmation dialog")
        dialog = app.screen
        assert isinstance(dialog, ExtensionDialog) and dialog.options == ["Yes", "No"]
        assert "rm -rf data" in dialog.message
        await pilot.press("down", "enter")  # "No"
        await wait_for(pilot, lambda: not session.is_streaming and len(faux.requests) == 2, "the run to end")
    (result,) = [m for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert result.isError and text_of(result).startswith("Blocked by the user")
    assert (project / "data").is_dir()


def test_permission_gate_blocks_in_print_mode(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (env.project / "data").mkdir()
    loopback.add(
        scripts.tool_call(API, "call_1", "bash", {"command": "rm -rf data"}),
        scripts.text(API, "I left data alone."),
    )
    result = env.call("--no-session", "-e", str(EXAMPLES / "permission_gate.py"), "-p", "remove data")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I left data alone.\n"
    assert (env.project / "data").is_dir()
    assert "Dangerous command blocked (deletes recursively" in scripts.request_text(loopback.requests[1].json)


# ====================================================================== progress_tool.py
async def test_progress_tool_streams_partial_results_with_details(tmp_path, faux):
    run = await start(tmp_path, "progress_tool")
    src = run.project / "src"
    src.mkdir()
    for i, lines in enumerate([3, 1, 7, 2, 5]):
        (src / f"m{i}.py").write_text("x\n" * lines)
    (src / "notes.txt").write_text("not matched\n")
    updates: list[Any] = []

    async def record(event: Any) -> None:
        if event.type == "tool_execution_update":
            updates.append(event.partial_result)

    run.session.subscribe(record)
    faux.enqueue(faux_tool("line_count", {"pattern": "src/*.py", "update_every": 2}), faux_text("18"))
    await run.session.prompt("how big is src?")
    assert [(u.details["done"], u.details["lines"], u.details["current"]) for u in updates] == [
        (2, 4, "src/m1.py"),
        (4, 13, "src/m3.py"),
        (5, 18, "src/m4.py"),
    ]
    assert text_of(updates[0]) == "Counted 2/5 files (4 lines so far)"
    (result,) = run.tool_results()
    assert not result.isError
    assert text_of(result).startswith(
        "18 lines in 5 files matching src/*.py.\nLargest:\n        7  src/m2.py"
    )
    assert result.details == {
        "done": 5,
        "total": 5,
        "lines": 18,
        "current": None,
        "largest": [
            {"path": "src/m2.py", "lines": 7},
            {"path": "src/m4.py", "lines": 5},
            {"path": "src/m0.py", "lines": 3},
            {"path": "src/m3.py", "lines": 2},
            {"path": "src/m1.py", "lines": 1},
        ],
    }
    # the details are kept in the session file for renderers and scripts
    stored = [e["message"] for e in file_entries(run.session.session_file) if e["type"] == "message"]
    assert [m["details"] for m in stored if m["role"] == "toolResult"] == [result.details]
    # the model saw the pydantic model's schema, descriptions and bounds included
    (tool,) = [t for t in faux.requests[0].tools if t.name == "line_count"]
    assert tool.parameters["required"] == ["pattern"]
    assert tool.parameters["properties"]["max_files"]["maximum"] == 10_000
    assert "Glob relative" in tool.parameters["properties"]["pattern"]["description"]


async def test_progress_tool_rejects_bad_arguments_and_reports_no_match(tmp_path, faux):
    run = await start(tmp_path, "progress_tool")
    faux.enqueue(
        faux_tool("line_count", {"pattern": "*.py", "max_files": 0}),
        faux_tool("line_count", {"pattern": "nothing/**/*.zz"}),
        faux_text("ok"),
    )
    await run.session.prompt("count")
    invalid, empty = run.tool_results()
    assert invalid.isError and text_of(invalid).startswith('Validation failed for tool "line_count":')
    assert "max_files: must be >= 1" in text_of(invalid)
    assert empty.isError and text_of(empty) == "No files match nothing/**/*.zz"
    assert run.errors == []


# ====================================================================== todo.py
TODO_ENTRY = "todo-state"


def todo_states(session_file: str) -> list[Any]:
    return [
        e["data"]
        for e in file_entries(session_file)
        if e["type"] == "custom" and e.get("customType") == TODO_ENTRY
    ]


async def test_todo_state_lives_in_custom_entries_and_the_command_shows_it(tmp_path, faux):
    ui = ScriptedUI()
    run = await start(tmp_path, "todo", ui=ui)
    faux.enqueue(
        faux_tool("todo", {"action": "add", "text": "write tests"}),
        faux_tool("todo", {"action": "add", "text": "fix bug"}),
        faux_tool("todo", {"action": "done", "id": 1}),
        faux_tool("todo", {"action": "list"}),
        faux_text("planned"),
    )
    await run.session.prompt("plan the work")
    final = {
        "todos": [
            {"id": 1, "text": "write tests", "done": True},
            {"id": 2, "text": "fix bug", "done": False},
        ],
        "nextId": 3,
    }
    states = todo_states(run.session.session_file)
    assert len(states) == 3 and states[-1] == final  # "list" changes nothing and appends nothing
    assert text_of(run.tool_results()[-1]) == "Todos:\n[x] #1 write tests\n[ ] #2 fix bug"
    assert run.tool_results()[-1].details == final
    # custom entries never reach the model
    assert TODO_ENTRY not in json.dumps([dump(m) for m in faux.requests[-1].messages])
    await run.session.prompt("/todos")
    assert ui.notices == ["Todos (1/2 done)\n[x] #1 write tests\n[ ] #2 fix bug"]
    assert len(faux.requests) == 5  # the command ran without the model

    # resumed in a fresh runtime (as `pi -c -e todo.py`): the list is back
    ui2 = ScriptedUI()
    resumed = await start(tmp_path, "todo", ui=ui2, manager=SessionManager.open(run.session.session_file))
    await resumed.session.prompt("/todos")
    assert ui2.notices == ["Todos (1/2 done)\n[x] #1 write tests\n[ ] #2 fix bug"]


async def test_todo_state_follows_resume_fork_and_tree(tmp_path, faux):
    ui = ScriptedUI()
    run = await start(tmp_path, "todo", ui=ui)
    session = run.session
    faux.enqueue(faux_tool("todo", {"action": "add", "text": "A"}), faux_text("added A"))
    await session.prompt("first")
    after_first = session.session_manager.leaf_id
    faux.enqueue(faux_tool("todo", {"action": "add", "text": "B"}), faux_text("added B"))
    await session.prompt("second")
    original = session.session_file
    assert original is not None
    after_second = session.session_manager.leaf_id

    async def shown() -> str:
        ui.notices.clear()
        await session.prompt("/todos")
        return ui.notices[-1]

    assert await shown() == "Todos (0/2 done)\n[ ] #1 A\n[ ] #2 B"
    # /tree back to the end of the first exchange: the list as it was there
    assert after_first is not None and after_second is not None
    await session.navigate_tree(after_first)
    assert await shown() == "Todos (0/1 done)\n[ ] #1 A"
    await session.navigate_tree(after_second)
    assert await shown() == "Todos (0/2 done)\n[ ] #1 A\n[ ] #2 B"

    # a new session starts empty; resuming the old one restores it
    await session.new_session()
    assert await shown() == "No todos yet."
    await session.switch_session(original)
    assert await shown() == "Todos (0/2 done)\n[ ] #1 A\n[ ] #2 B"

    # fork before the second prompt: only A, and numbering continues from that point
    second_user = next(
        e["id"]
        for e in session.session_manager.get_branch()
        if e["type"] == "message" and e["message"]["role"] == "user" and "second" in json.dumps(e["message"])
    )
    await session.fork(second_user)
    assert session.session_file != original
    assert await shown() == "Todos (0/1 done)\n[ ] #1 A"
    faux.enqueue(faux_tool("todo", {"action": "add", "text": "C"}), faux_text("added C"))
    await session.prompt("instead")
    assert await shown() == "Todos (0/2 done)\n[ ] #1 A\n[ ] #2 C"
    # the original file is untouched by the fork's work
    assert todo_states(original)[-1]["todos"][-1]["text"] == "B"
    assert run.errors == []


def test_todo_restored_by_pi_continue_in_print_mode(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    todo = str(EXAMPLES / "todo.py")
    loopback.add(
        scripts.tool_call(API, "call_1", "todo", {"action": "add", "text": "ship the examples"}),
        scripts.text(API, "Noted."),
    )
    first = env.call("-e", todo, "-p", "remember to ship the examples")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Noted.\n"
    again = env.call("-c", "-e", todo, "-p", "/todos")
    assert again.returncode == 0, again.stderr
    assert "Todos (0/1 done)\n[ ] #1 ship the examples" in again.stderr
    assert len(loopback.requests) == 2  # /todos did not call the model


# ====================================================================== local_provider.py
def test_local_provider_serves_a_print_mode_prompt(tmp_path, loopback):
    env = make_env(tmp_path)  # no models.json: the only model with a key is the extension's
    loopback.add(chat_text_stream("Hello from ", "the local server."))
    result = env.call(
        "--no-session",
        "-e",
        str(EXAMPLES / "local_provider.py"),
        "--model",
        "local/big-model",
        "-p",
        "hello local",
        PI_LOCAL_BASE_URL=loopback.url + "/v1/",
        PI_LOCAL_MODELS="small-model, big-model",
        PI_LOCAL_API_KEY="sk-local-secret",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the local server.\n"
    (request,) = loopback.requests
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "big-model"
    assert request.headers["authorization"] == "Bearer sk-local-secret"
    assert "hello local" in scripts.request_text(request.json)
    assert "sk-local-secret" not in result.stdout + result.stderr


def test_local_provider_models_are_listed(tmp_path):
    env = make_env(tmp_path)
    result = env.call(
        "-e",
        str(EXAMPLES / "local_provider.py"),
        "--list-models",
        "local",
        PI_LOCAL_BASE_URL="http://127.0.0.1:9/v1",
        PI_LOCAL_MODELS="alpha,beta",
        PI_LOCAL_CONTEXT="65536",
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("local")]
    assert [row[1] for row in rows] == ["alpha", "beta"]
    assert all(row[2] == "65.5K" for row in rows), result.stdout


# ====================================================================== trim_tool_results.py
async def test_trim_tool_results_shortens_old_results_in_the_request_only(tmp_path, faux):
    run = await start(tmp_path, "trim_tool_results", flags={"trim-keep-turns": "1"})
    for name, letter in (("a.txt", "A"), ("b.txt", "B"), ("c.txt", "C")):
        (run.project / name).write_text(letter * 400)
    faux.enqueue(
        faux_tool("read", {"path": "a.txt"}),
        faux_tool("read", {"path": "b.txt"}),
        faux_tool("read", {"path": "c.txt"}),
        faux_text("read them all"),
    )
    await run.session.prompt("read the files")

    def results(request: Any) -> list[str]:
        return [text_of(m) for m in request.messages if m.role == "toolResult"]

    full = {letter: letter * 400 for letter in "ABC"}
    trimmed_read = "[read result trimmed: 400 characters; run the tool again if you need it]"
    assert results(faux.requests[1]) == [full["A"]]
    assert results(faux.requests[2]) == [trimmed_read, full["B"]]
    assert results(faux.requests[3]) == [trimmed_read, trimmed_read, full["C"]]
    # the session (memory and file) keeps every result whole
    assert [text_of(m) for m in run.tool_results()] == [full["A"], full["B"], full["C"]]
    stored = [e["message"] for e in file_entries(run.session.session_file) if e["type"] == "message"]
    assert [m["content"][0]["text"] for m in stored if m["role"] == "toolResult"] == list(full.values())


async def test_trim_tool_results_default_keeps_two_turns_and_short_results(tmp_path, faux):
    run = await start(tmp_path, "trim_tool_results")
    (run.project / "big.txt").write_text("x" * 1000)
    faux.enqueue(
        faux_tool("bash", {"command": "echo ok"}),
        faux_tool("read", {"path": "big.txt"}),
        faux_tool("bash", {"command": "echo third"}),
        faux_tool("bash", {"command": "echo fourth"}),
        faux_text("done"),
    )
    await run.session.prompt("go")
    last = [text_of(m) for m in faux.requests[-1].messages if m.role == "toolResult"]
    assert last == [
        "ok\n",  # old but shorter than the placeholder: left as it is
        "[read result trimmed: 1000 characters; run the tool again if you need it]",
        "third\n",
        "fourth\n",
    ]


async def test_trim_tool_results_drops_old_images_and_leaves_the_given_messages_alone(tmp_path):
    from pi_app.ai.types import AssistantMessage, ImageContent, ToolCall, ToolResultMessage

    run = await start(tmp_path, "trim_tool_results")
    trim = run.module("trim_tool_results").trim

    def turn(n: int) -> list[Any]:
        call = ToolCall(id=f"c{n}", name="screenshot", arguments={})
        image = ImageContent(data="aGVsbG8=", mimeType="image/png")
        return [
            AssistantMessage(content=[call]),
            ToolResultMessage(toolCallId=f"c{n}", toolName="screenshot", content=[image]),
        ]

    messages = [*turn(1), *turn(2), *turn(3)]
    before = [dump(m) for m in messages]
    out = trim(messages, 2)
    assert [dump(m) for m in messages] == before  # new objects, the originals untouched
    assert [text_of(m) for m in out if m.role == "toolResult"][0] == (
        "[screenshot result trimmed: 0 characters; run the tool again if you need it]"
    )
    assert out[3] is messages[3] and out[5] is messages[5]  # the last two turns are kept as they are
    assert trim(messages, 3) == messages


def test_trim_tool_results_flag_on_the_command_line(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    (env.project / "log.txt").write_text("L" * 600)
    loopback.add(
        scripts.tool_call(API, "call_1", "read", {"path": "log.txt"}),
        scripts.tool_call(API, "call_2", "bash", {"command": "echo second"}),
        scripts.text(API, "Done."),
    )
    result = env.call(
        "--no-session", "-e", str(EXAMPLES / "trim_tool_results.py"), "--trim-keep-turns", "1", "-p", "go"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    second, third = (scripts.request_text(r.json) for r in loopback.requests[1:])
    assert "L" * 600 in second
    assert "L" * 600 not in third and "[read result trimmed: 600 characters" in third
    assert len(loopback.requests) == 3  # "1" was the flag's value, not a first prompt
    assert "go" in scripts.request_text(loopback.requests[0].json)


# ====================================================================== subagent.py
async def subagent_run(tmp_path: Path, loopback: Any, monkeypatch: pytest.MonkeyPatch) -> Run:
    """The parent on the faux provider; the sub-agent's ``pi -p`` finds a loopback provider in models.json
    of the agent dir both share (PI_CODING_AGENT_DIR, set for every test)."""
    monkeypatch.setenv("PI_OFFLINE", "1")
    agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
    PiEnv(agent_dir.parent.parent, tmp_path).write_models(loopback.url)
    assert (agent_dir / "models.json").is_file()
    return await start(tmp_path, "subagent")


async def test_subagent_runs_pi_print_mode_with_the_chosen_model_and_tools(
    tmp_path, faux, loopback, monkeypatch
):
    run = await subagent_run(tmp_path, loopback, monkeypatch)
    (run.project / "notes.txt").write_text("alpha\nbeta\n")
    loopback.add(
        scripts.tool_call(API, "call_r", "read", {"path": "notes.txt"}),
        scripts.text(API, "The notes list alpha and beta."),
    )
    task = {"task": "Summarise notes.txt", "model": "loop/loop-model", "tools": ["read", "subagent"]}
    faux.enqueue(faux_tool("subagent", task), faux_text("The sub-agent says: alpha and beta."))
    updates: list[Any] = []

    async def record(event: Any) -> None:
        if event.type == "tool_execution_update":
            updates.append(event.partial_result)

    run.session.subscribe(record)
    await run.session.prompt("delegate the summary")
    (result,) = run.tool_results()
    assert not result.isError, text_of(result)
    assert text_of(result) == "The notes list alpha and beta."
    assert result.details["model"] == "loop/loop-model"
    assert result.details["tools"] == ["read"]  # a sub-agent never gets the subagent tool
    assert result.details["exitCode"] == 0
    assert [text_of(u) for u in updates] == ["Sub-agent running on loop/loop-model…"]
    # the sub-agent's own requests: its model, only its tools, the task, then the file it read
    first, second = (r.json for r in loopback.requests)
    assert first["model"] == "loop-model"
    assert [t["function"]["name"] for t in first["tools"]] == ["read"]
    assert "Summarise notes.txt" in scripts.request_text(first)
    assert "alpha\\nbeta" in scripts.request_text(second)
    # the parent's context grew by the answer only
    parent = json.dumps([dump(m) for m in faux.requests[-1].messages])
    assert "The notes list alpha and beta." in parent and "alpha\\nbeta" not in parent
    assert not list(Path(os.environ["PI_CODING_AGENT_DIR"]).glob("sessions/**/*.jsonl"))  # --no-session


async def test_subagent_failure_reaches_the_model(tmp_path, faux, loopback, monkeypatch):
    run = await subagent_run(tmp_path, loopback, monkeypatch)
    faux.enqueue(
        faux_tool("subagent", {"task": "anything", "model": "nowhere/no-such-model"}), faux_text("ok")
    )
    await run.session.prompt("delegate")
    (result,) = run.tool_results()
    assert result.isError
    assert text_of(result).startswith("Sub-agent failed (exit 1):")
    assert 'Model "nowhere/no-such-model" not found' in text_of(result)
    assert loopback.requests == []
    assert "Sub-agent failed" in json.dumps([dump(m) for m in faux.requests[-1].messages])


async def test_subagent_timeout_kills_the_subprocess(tmp_path, faux, loopback, monkeypatch):
    run = await subagent_run(tmp_path, loopback, monkeypatch)
    loopback.add(Scripted(chunks=[Pause(STALL_S)]))  # the sub-agent's provider never answers
    faux.enqueue(
        faux_tool("subagent", {"task": "wait forever", "model": "loop/loop-model", "timeout_s": 3}),
        faux_text("gave up"),
    )
    await run.session.prompt("delegate")
    (result,) = run.tool_results()
    assert result.isError and text_of(result) == "Sub-agent timed out after 3 s"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the sub-agent's process in /proc")
async def test_subagent_stops_when_the_run_is_aborted(tmp_path, faux, loopback, monkeypatch):
    run = await subagent_run(tmp_path, loopback, monkeypatch)
    loopback.add(Scripted(chunks=[Pause(STALL_S)]))
    task = f"wait forever {tmp_path.name}"
    faux.enqueue(faux_tool("subagent", {"task": task, "model": "loop/loop-model"}))
    prompt = asyncio.create_task(run.session.prompt("delegate"))
    await wait_until(lambda: loopback.requests, "the sub-agent to reach its provider")
    assert sub_agents(task)
    await run.session.abort()
    await asyncio.wait_for(prompt, HANG_GUARD_S)
    await wait_until(lambda: not sub_agents(task), "the sub-agent process to end")
    (result,) = run.tool_results()
    assert result.isError
    assert "aborted" in text_of(result).lower()


def sub_agents(task: str) -> list[int]:
    """Live processes whose command line carries ``task`` (zombies included until reaped)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if task.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found
