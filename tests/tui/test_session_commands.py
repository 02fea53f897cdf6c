"""/fork, /clone, /export, /resume and ``pi -r`` in the running app."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from pi_app.session.store import SessionManager
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import (
    FIRST_USER,
    branched_copy,
    branched_session,
    run_command,
    statuses,
    user_texts,
    wait_for,
)
from widgets.fork_picker import ForkPickerScreen
from widgets.session_picker import SessionPickerScreen


async def _idle(app, pilot) -> None:
    await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the picker to close")
    await app.wait_until_idle()
    await pilot.pause()


async def test_fork_picker_newest_first_forks_into_new_file(project: Path, faux) -> None:
    session = await branched_session(project)
    original = session.session_file
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/fork")
        await wait_for(pilot, lambda: isinstance(app.screen, ForkPickerScreen), "the fork picker")
        picker = app.screen
        assert [m.text for m in picker.messages] == [FIRST_USER, "Use argparse", "Use click instead"]
        assert picker.query_one("OptionList").highlighted == 2  # newest selected first
        await pilot.press("up", "enter")
        await _idle(app, pilot)
        assert session.session_file != original
        assert app.editor.text == "Use argparse"
        assert user_texts(app) == [FIRST_USER]
        assert any(s.startswith("Branched to new session") for s in statuses(app))
        header = json.loads(Path(session.session_file).read_text(encoding="utf-8").splitlines()[0])
        assert header["parentSession"] == original


async def test_clone_duplicates_path_and_says_where(project: Path, faux) -> None:
    session = await branched_session(project)
    original = session.session_file
    before = [m.role for m in session.messages]
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/clone")
        await app.wait_until_idle()
        await pilot.pause()
        clone = session.session_file
        assert clone != original and Path(clone).exists()
        assert [m.role for m in session.messages] == before
        assert f"Cloned to new session: {clone}" in statuses(app)
        assert user_texts(app) == [FIRST_USER, "Use click instead"]


async def test_export_html_and_jsonl_copy(project: Path, faux) -> None:
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/export out/session.html")
        await app.wait_until_idle()
        await pilot.pause()
        assert not (project / "out").exists()  # a missing folder is an error, said so
        assert any("Failed to export session" in s for s in statuses(app))
        await run_command(app, pilot, "/export session.html")
        await app.wait_until_idle()
        html = project / "session.html"
        assert html.exists() and "Use click instead" in html.read_text(encoding="utf-8")
        assert f"Session exported to: {html}" in statuses(app)
        await run_command(app, pilot, "/export copy.jsonl")
        await app.wait_until_idle()
        await pilot.pause()
        copy = project / "copy.jsonl"
        assert copy.read_bytes() == Path(session.session_file).read_bytes()
        assert f"Session exported to: {copy}" in statuses(app)


def _other_session(project: Path, text: str) -> str:
    from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
    from pi_app.session.store.paths import default_session_dir

    sm = SessionManager.create(str(project), default_session_dir(str(project)))
    sm.append_message(UserMessage(content=[TextContent(text=text)]))
    sm.append_message(AssistantMessage(content=[TextContent(text="ok")], model="faux-1", provider="faux"))
    assert sm.session_file is not None
    return sm.session_file


async def _choose(app, pilot, path: str) -> None:
    picker = app.screen
    assert isinstance(picker, SessionPickerScreen)
    paths = [r.info.path for r in picker.rows]
    assert path in paths, paths
    picker.selected = paths.index(path)
    await pilot.press("enter")


async def test_resume_opens_chosen_session_rename_and_delete(project: Path, faux) -> None:
    other = _other_session(project, "Write the README")
    doomed = _other_session(project, "Throwaway idea")
    session = await branched_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        picker = app.screen
        assert {r.info.path for r in picker.rows} >= {other, doomed, session.session_file}
        # rename another file: a session_info entry appended to it
        picker.selected = [r.info.path for r in picker.rows].index(other)
        await pilot.press("ctrl+r", *"docs", "enter")
        await pilot.pause()
        last = json.loads(Path(other).read_text(encoding="utf-8").splitlines()[-1])
        assert last["type"] == "session_info" and last["name"] == "docs"
        # delete asks first, then unlinks
        picker.selected = [r.info.path for r in picker.rows].index(doomed)
        await pilot.press("ctrl+d")
        assert picker.confirming_delete == doomed and Path(doomed).exists()
        await pilot.press("enter")
        await pilot.pause()
        assert not Path(doomed).exists()
        await _choose(app, pilot, other)
        await _idle(app, pilot)
        assert session.session_file == other
        assert user_texts(app) == ["Write the README"]
        assert "Resumed session" in statuses(app)
        assert app.footer.data is not None


async def test_pi_r_opens_picker_then_sends_the_message(project: Path, faux) -> None:
    faux.enqueue(faux_text("sure"))
    other = _other_session(project, "Write the README")
    session = await make_session(project)
    app = make_app(session)
    app.resume_at_start = True
    app.initial_message = "and add a license"
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        assert app.session.is_streaming is False and faux.requests == []  # nothing sent before choosing
        await _choose(app, pilot, other)
        await _idle(app, pilot)
        await wait_for(pilot, lambda: len(user_texts(app)) == 2, "the initial message")
        await app.wait_until_idle()
        assert session.session_file == other
        assert user_texts(app) == ["Write the README", "and add a license"]


async def test_pi_r_cancel_quits(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    app.resume_at_start = True
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        await pilot.press("escape")
        await pilot.pause()
    assert not app.is_running


async def test_initial_messages_are_sent_in_order(project: Path, faux) -> None:
    faux.enqueue(faux_text("one"), faux_text("two"))
    session = await make_session(project)
    app = make_app(session)
    app.initial_message = "first"
    app.initial_messages = ["second"]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(user_texts(app)) == 2, "both messages")
        await app.wait_until_idle()
        assert user_texts(app) == ["first", "second"]
        assert len(faux.requests) == 2


async def test_resume_of_another_projects_fixture(project: Path, faux) -> None:
    """The fixture file lives in this project's folder; /resume lists it with its first message."""
    path = branched_copy(project, "2025-11-11T00-00-00-000Z_copy.jsonl")
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        await _choose(app, pilot, str(path))
        await _idle(app, pilot)
        assert user_texts(app) == [FIRST_USER, "Use click instead"]


async def test_startup_passes_resume_messages_and_themes_to_the_app(project: Path, faux, monkeypatch) -> None:
    """The composition root hands the command line to the app and runs it on the loop that built the session."""
    import asyncio

    from pi_app.cli import run_interactive
    from pi_app.cli_args import parse_args
    from pi_app.modes.startup import Config, Launch, initial_prompt
    from pi_app.tui.app import PiApp

    captured: list[tuple[PiApp, asyncio.AbstractEventLoop]] = []

    async def fake_run_async(self: PiApp, **_: object) -> None:
        captured.append((self, asyncio.get_running_loop()))

    monkeypatch.setattr(PiApp, "run_async", fake_run_async)
    args = parse_args(["-r", "--theme", "nord", "--no-themes", "first", "second"])
    first, images, rest = initial_prompt(args, str(project))
    session = await make_session(project)
    cfg = Config(str(project), str(project), session.settings, None, session.model_registry)
    launch = Launch(args, cfg, session, first, images, rest, ["Warning: something"])
    assert await run_interactive(launch) == 0
    app, loop = captured[0]
    assert loop is asyncio.get_running_loop()
    assert app.session is session
    assert app.resume_at_start is True
    assert (app.initial_message, app.initial_messages) == ("first", ["second"])
    assert app.cli_themes == ["nord"] and app.no_themes is True
    assert app.startup_warnings == ["Warning: something"]
