"""The commands issue 17 adds or fixes, driven through the app: /thinking, /scoped-models, /import,
/changelog, /name, /compact on a small session, /hotkeys, and their completion entries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pi_app.ai.providers.faux import faux_model, faux_text
from pi_app.tui.commands import NOTHING_BEFORE_LAST_EXCHANGE, changelog_path
from pi_app.tui.screens.choice import ChoiceScreen
from pi_app.tui.screens.scoped_models import ScopedModelsScreen
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from widgets.notices import ErrorNotice


async def send(app, text: str) -> None:
    app.submit(text)
    await app.wait_until_idle()


def last_text(app) -> str:
    return app.chat.items[-1].text


async def test_thinking_with_a_level_sets_clamps_and_rejects(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/thinking high")
        assert session.thinking_level == "high"
        assert app.editor.thinking_level == "high"
        assert last_text(app) == "Thinking level: high"
        await send(app, "/thinking xhigh")  # faux-1 has no xhigh: clamped, and said so
        assert session.thinking_level == "high"
        assert last_text(app) == "Thinking level: high (faux-1 does not support xhigh)"
        await send(app, "/thinking LOW")
        assert session.thinking_level == "low"
        await send(app, "/thinking lots")
        item = app.chat.items[-1]
        assert isinstance(item, ErrorNotice)
        assert (
            item.text == 'Unknown thinking level "lots". Levels: off, minimal, low, medium, high, xhigh, max'
        )
        assert session.thinking_level == "low"


async def test_thinking_without_a_level_opens_a_picker(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "/thinking")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the thinking picker")
        screen = app.screen
        assert [v for v, _ in screen.choices] == session.available_thinking_levels()
        await pilot.press("down")
        current = session.available_thinking_levels().index(session.thinking_level)
        expected = session.available_thinking_levels()[current + 1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.thinking_level == expected, "the chosen level")
        await wait_for(pilot, lambda: last_text(app) == f"Thinking level: {expected}", "the status")
        await send(app, "/thinking")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the picker again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceScreen), "the picker to close")
        assert session.thinking_level == expected


async def test_thinking_on_a_model_without_reasoning(project: Path, faux) -> None:
    session = await make_session(project, model=faux_model(reasoning=False))
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/thinking")
        assert last_text(app) == "faux-1 does not support thinking (level: off)"
        assert not isinstance(app.screen, ChoiceScreen)


def local_registry(project: Path):
    """A registry whose only provider is a models.json entry with a key: three usable models."""
    from pi_app.session.config import AuthStorage, ModelRegistry

    agent_dir = project.parent / "agent"
    agent_dir.mkdir()
    models = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "local-key",
                "models": [{"id": "m-a"}, {"id": "m-b"}, {"id": "m-c"}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    return ModelRegistry(AuthStorage.in_memory(), agent_dir / "models.json")


async def test_scoped_models_saves_enabled_models_and_ctrl_p_cycles_them(project: Path, faux) -> None:
    registry = local_registry(project)
    session = await make_session(project, model=registry.find("local", "m-a"), model_registry=registry)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "/scoped-models")
        await wait_for(pilot, lambda: isinstance(app.screen, ScopedModelsScreen), "the scoped models dialog")
        screen = app.screen
        assert screen.order == ["local/m-a", "local/m-b", "local/m-c"]
        await pilot.press("ctrl+x")  # none, then m-a and m-c
        await pilot.press("space")
        await pilot.press("down", "down", "space")
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.settings.settings.enabledModels is not None, "the setting")
        assert session.settings.settings.enabledModels == ["local/m-a", "local/m-c"]
        assert [f"{s.model.provider}/{s.model.id}" for s in session.scoped_models] == [
            "local/m-a",
            "local/m-c",
        ]
        await wait_for(pilot, lambda: "saved as enabledModels" in last_text(app), "the confirmation")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: session.model.id == "m-c", "ctrl+p to the next scoped model")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: session.model.id == "m-a", "ctrl+p back to the first")
        # all enabled again: the setting is removed, every model cycles
        await send(app, "/scoped-models")
        await wait_for(pilot, lambda: isinstance(app.screen, ScopedModelsScreen), "the dialog again")
        await pilot.press("ctrl+a", "enter")
        await wait_for(pilot, lambda: session.settings.settings.enabledModels is None, "the setting removed")
        assert session.scoped_models == []


def _session_file(path: Path, cwd: str, sid: str = "0190c0de-0000-7000-8000-000000000001") -> None:
    lines = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd},
        {
            "type": "message",
            "id": "a1b2c3d4",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "imported hello"}],
                "timestamp": 1,
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


async def test_import_copies_keeps_id_and_cwd_and_opens_it(project: Path, faux) -> None:
    source = project.parent / "elsewhere" / "shared session.jsonl"
    source.parent.mkdir()
    _session_file(source, "/some/other/project")
    original = source.read_bytes()
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        before = session.session_file
        await send(app, f'/import "{source}"')
        await wait_for(pilot, lambda: last_text(app).startswith("Imported session: "), "the import")
        target = Path(session.session_file)
        assert target != source and target.parent == Path(before).parent
        assert target.name == "shared session.jsonl"
        assert target.read_bytes().startswith(original)  # a copy, its id and cwd unchanged
        assert session.session_id == "0190c0de-0000-7000-8000-000000000001"
        assert session.session_manager.get_header().cwd == "/some/other/project"
        assert source.read_bytes() == original  # the original is not touched
        assert "imported hello" in [getattr(w, "text", None) for w in app.chat.items]
        # importing the same name again does not overwrite the first copy
        await send(app, "/new")
        await send(app, f"/import {shutil.copy(source, project.parent / 'x.jsonl')}")
        await wait_for(pilot, lambda: last_text(app).startswith("Imported session: "), "a second import")


async def test_import_errors_are_clear_and_leave_nothing(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    bad = project / "notes.txt"
    empty = project / "empty.jsonl"
    empty.write_text("")
    async with app.run_test(size=SIZE):
        sessions_dir = Path(session.session_file).parent
        listed = sorted(sessions_dir.iterdir()) if sessions_dir.exists() else []
        cases = {
            "/import": "Usage: /import <path to a .jsonl session file>",
            "/import missing.jsonl": f"Import failed: File not found: {project / 'missing.jsonl'}",
            "/import src": f"Import failed: Not a file: {project / 'src'}",
            "/import notes.txt": f"Import failed: Not a session file: {bad} (line 1 is not valid JSON",
            "/import empty.jsonl": f"Import failed: Not a session file: {empty} (it is empty)",
        }
        for command, message in cases.items():
            await send(app, command)
            item = app.chat.items[-1]
            assert isinstance(item, ErrorNotice), command
            assert item.text.startswith(message), (command, item.text)
        after = sorted(sessions_dir.iterdir()) if sessions_dir.exists() else []
        assert after == listed


async def test_changelog_shows_the_project_changelog(project: Path, faux) -> None:
    from pi_app.tui.screens.changelog import ChangelogView

    text = Path(changelog_path()).read_text(encoding="utf-8")
    assert text.startswith("# Changelog")
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/changelog")
        view = app.chat.items[-1]
        assert isinstance(view, ChangelogView) and view.text == text


async def test_name_confirms_and_completion_lists_the_new_commands(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/name release prep")
        assert last_text(app) == "Session name set: release prep"
        await send(app, "/name")
        assert last_text(app) == "Session name: release prep"
        names = {c.name for c in app.editor.completion.commands}
        assert {"thinking", "scoped-models", "import", "changelog", "name", "hotkeys"} <= names


async def test_compact_on_a_small_session(project: Path, faux) -> None:
    faux.enqueue(faux_text("A1"), faux_text("A2"), faux_text("SUMMARY OF Q1"))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "Q1")
        await send(app, "/compact")
        assert last_text(app) == NOTHING_BEFORE_LAST_EXCHANGE
        assert len(faux.requests) == 1  # nothing was sent to summarise
        await send(app, "Q2")
        await send(app, "/compact")
        assert len(faux.requests) == 3
        entries = session.session_manager.raw_entries()
        compaction = [e for e in entries if e.get("type") == "compaction"][-1]
        kept = session.session_manager.get_raw_entry(compaction["firstKeptEntryId"])
        assert kept["message"]["content"][0]["text"] == "Q2"
        await send(app, "/compact")
        assert last_text(app) == "Already compacted: nothing new since the last compaction"


async def test_hotkeys_lists_pi_sections_not_textarea_internals(project: Path, faux) -> None:
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/hotkeys")
        text = last_text(app)
        for title in ("Application", "Editor", "Transcript", "Session tree (/tree)"):
            assert f"\n{title}\n" in text
        assert "Cycle thinking level" in text and "Queue follow-up" in text
        for internal in ("super+", "Cut", "Select line", "^q", "Quit", "f6"):
            assert internal not in text, internal
        line = next(ln for ln in text.splitlines() if "Next model" in ln)
        assert line.split()[0] == "ctrl+p"


async def test_hotkeys_follow_keybindings_json(project: Path, faux) -> None:
    import os

    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "keybindings.json").write_text(
        json.dumps({"app.model.cycleForward": "ctrl+n", "submit": "ctrl+s"})
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        await send(app, "/hotkeys")
        lines = last_text(app).splitlines()
        assert next(ln for ln in lines if "Next model" in ln).split()[0] == "ctrl+n"
        assert next(ln for ln in lines if "Send message" in ln).split()[0] == "ctrl+s"


async def test_first_run_names_the_agent_dir_and_model_lists_what_each_provider_needs(
    project: Path, faux, monkeypatch, tmp_path
) -> None:
    from widgets.no_model import NoModelPanel

    agent = tmp_path / "custom-agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    session = await make_session(project, model=None)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        [panel] = app.query(NoModelPanel)
        assert f"`{agent}/models.json`" in panel.text and f"`{agent}/auth.json`" in panel.text
        assert "sign in with a subscription" not in panel.text
        assert "not available here yet" in panel.text
        await send(app, "/model")
        await wait_for(pilot, lambda: "No model has credentials yet" in last_text(app), "the /model hint")
        text = last_text(app)
        assert (
            "anthropic" in text
            and "ANTHROPIC_API_KEY (or ANTHROPIC_OAUTH_TOKEN), or /login anthropic" in text
        )
        assert "OPENAI_API_KEY, or /login openai" in text
        assert app.screen is app.screen_stack[0]  # no selector full of models that would fail


async def test_model_selector_offers_only_models_with_credentials(project: Path, faux) -> None:
    from pi_app.tui.screens.model_select import ModelSelectScreen

    registry = local_registry(project)
    registry.auth.set_runtime_api_key("anthropic", "sk-test")  # one built-in provider has a key too
    session = await make_session(project, model=registry.find("local", "m-a"), model_registry=registry)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelSelectScreen), "the selector")
        assert {m.provider for m in app.screen.models} == {"local", "anthropic"}
        assert len(registry.get_all()) > len(app.screen.models)
        assert app.screen.models == registry.get_available()
        assert all(registry.get_api_key_sync(m) for m in app.screen.models)


def burst(app, *keys: str) -> None:
    """Keys arriving together, as a terminal delivers a fast typist's input: all queued before any is handled
    (Pilot.press would wait for each)."""
    from textual import events

    for key in keys:
        app.post_message(events.Key(key, " " if key == "space" else None))


async def test_dialog_keys_typed_in_a_burst_apply_in_order(project: Path, faux) -> None:
    """Space/down/enter typed faster than the app handles them: a list key must not be handled after the
    priority keys that followed it (seen in tmux: toggles landed on the wrong model)."""
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "/thinking")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the thinking picker")
        levels = session.available_thinking_levels()
        start = levels.index(session.thinking_level)
        burst(app, "down", "down", "enter")
        expected = levels[(start + 2) % len(levels)]
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceScreen), "the picker to close")
        await wait_for(pilot, lambda: last_text(app).startswith("Thinking level"), "the status")
        assert session.thinking_level == expected
        result: list[list[str] | None] = []
        app.push_screen(ScopedModelsScreen(["p/a", "p/b", "p/c"], []), result.append)
        await wait_for(pilot, lambda: bool(app.screen.query("#scoped-options")), "the scoped models list")
        burst(app, "ctrl+x", "space", "down", "down", "space", "enter")
        await wait_for(pilot, lambda: bool(result), "the dialog to save")
        assert result == [["p/a", "p/c"]]
