"""pi's keybindings.json: the pure loader, key translation, and the remapped keys in the running app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.session.config.paths import agent_dir
from pi_app.tui.keybindings import load_keybindings, translate_key
from tests.tui.conftest import SIZE, make_app, make_session
from widgets.notices import Notice


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("pi_key", "textual"),
    [
        ("ctrl+shift+p", "ctrl+shift+p"),
        ("shift+ctrl+p", "ctrl+shift+p"),
        ("alt+enter", "alt+enter"),
        ("shift+tab", "shift+tab"),
        ("escape", "escape"),
        ("esc", "escape"),
        ("return", "enter"),
        ("pageUp", "pageup"),
        ("ctrl+-", "ctrl+minus"),
        ("ctrl++", "ctrl+plus"),
        ("ctrl+alt+]", "alt+ctrl+right_square_bracket"),
        ("f12", "f12"),
        ("ctrl+1", "ctrl+1"),
    ],
)
def test_translate_key(pi_key: str, textual: str) -> None:
    assert translate_key(pi_key) == textual


@pytest.mark.parametrize("bad", ["", "ctrl+", "hyper+a", "ctrl+ctrl+a", "ctrl+foo", "f13", "ctrl+é"])
def test_translate_key_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        translate_key(bad)


def test_missing_file_is_no_bindings(tmp_path: Path) -> None:
    assert load_keybindings(tmp_path / "keybindings.json") == ({}, [])


def test_valid_file_with_both_id_spellings(tmp_path: Path) -> None:
    path = write(
        tmp_path / "keybindings.json",
        {
            "cycleThinkingLevel": "ctrl+y",
            "tui.input.newLine": ["shift+enter", "ctrl+n"],
            "app.model.cycleBackward": "shift+ctrl+p",
            "app.session.tree": [],
            "cursorUp": ["up", "ctrl+p"],
        },
    )
    bindings, warnings = load_keybindings(path)
    assert warnings == []
    assert bindings == {
        "cycleThinkingLevel": ["ctrl+y"],
        "newLine": ["shift+enter", "ctrl+n"],
        "cycleModelBackward": ["ctrl+shift+p"],
        "tree": [],
        "cursorUp": ["up", "ctrl+p"],
    }


def test_namespaced_spelling_wins_over_snapshot_spelling(tmp_path: Path) -> None:
    path = write(tmp_path / "k.json", {"app.thinking.cycle": "ctrl+y", "cycleThinkingLevel": "ctrl+u"})
    assert load_keybindings(path) == ({"cycleThinkingLevel": ["ctrl+y"]}, [])


def test_invalid_json_warns_and_keeps_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "keybindings.json", '{"interrupt": "ctrl+x",')
    bindings, warnings = load_keybindings(path)
    assert bindings == {}
    assert len(warnings) == 1 and str(path) in warnings[0] and "invalid JSON" in warnings[0]


def test_bad_bytes_and_deep_nesting_are_one_warning_and_the_file_is_left_alone(tmp_path: Path) -> None:
    bad_bytes = tmp_path / "bytes.json"
    bad_bytes.write_bytes(b'{"interrupt": "ctrl+\xff"}')
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for path, why in ((bad_bytes, "not valid UTF-8 (byte 0xff at offset 20)"), (deep, "nested too deeply")):
        before = path.read_bytes()
        assert load_keybindings(path) == (
            {},
            [f"Ignoring {path}: {why}" if "UTF-8" in why else f"Ignoring {path}: invalid JSON ({why})"],
        )
        assert path.read_bytes() == before


def test_not_an_object_warns(tmp_path: Path) -> None:
    bindings, warnings = load_keybindings(write(tmp_path / "k.json", ["ctrl+x"]))
    assert bindings == {} and "expected a JSON object" in warnings[0]


def test_unknown_action_and_bad_keys_are_named_and_skipped(tmp_path: Path) -> None:
    path = write(
        tmp_path / "keybindings.json",
        {
            "launchRockets": "ctrl+r",
            "selectModel": "ctrl+bogus",
            "expandTools": 5,
            "toggleThinking": ["ctrl+e", 7],
            "clear": "ctrl+x",
        },
    )
    bindings, warnings = load_keybindings(path)
    assert bindings == {"clear": ["ctrl+x"]}
    assert len(warnings) == 4
    assert all(str(path) in w for w in warnings)
    for name in ("launchRockets", "selectModel", "expandTools", "toggleThinking"):
        assert sum(name in w for w in warnings) == 1
    assert "'bogus'" in next(w for w in warnings if "selectModel" in w)


async def test_remapped_keys_work_and_old_keys_do_not(project: Path, faux) -> None:
    write(
        agent_dir() / "keybindings.json",
        {"app.thinking.cycle": "ctrl+y", "newLine": "ctrl+n", "launchRockets": "ctrl+r"},
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        warnings = [w for w in app.chat.items if isinstance(w, Notice) and "launchRockets" in w.text]
        assert len(warnings) == 1 and "keybindings.json" in warnings[0].text

        before = session.thinking_level
        await pilot.press("shift+tab")  # no longer bound
        await pilot.pause()
        assert session.thinking_level == before
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert session.thinking_level != before
        assert app.chat.items[-1].text == f"Thinking level: {session.thinking_level}"

        await pilot.press("a", "ctrl+n", "b")
        assert app.editor.text == "a\nb"
        await pilot.press("shift+enter")  # the old newline key does nothing now
        await pilot.pause()
        assert app.editor.text == "a\nb"

        hotkeys = app.hotkeys_text()
        assert "Cycle thinking level" in hotkeys
        thinking_row = next(line for line in hotkeys.splitlines() if "Cycle thinking level" in line)
        assert "shift" not in thinking_row.lower()
        assert "y" in thinking_row.lower()


async def test_unbinding_and_binding_a_session_action(project: Path, faux) -> None:
    write(agent_dir() / "keybindings.json", {"expandTools": [], "tree": "ctrl+e"})
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not app.chat.tools_expanded
        assert "Open the session tree" in app.hotkeys_text()
        await pilot.press("ctrl+e")
        await app.wait_until_idle()
        await pilot.pause()
        assert type(app.screen).__name__ == "TreeBrowserScreen"


async def test_text_editing_keys_and_conflicts(project: Path, faux) -> None:
    write(
        agent_dir() / "keybindings.json",
        {"deleteWordBackward": "ctrl+b", "tui.input.submit": "ctrl+t", "newLine": ["ctrl+n"]},
    )
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        conflicts = [w.text for w in app.chat.items if isinstance(w, Notice) and "also bound" in w.text]
        # submit on ctrl+t would never fire: the app's thinking toggle holds that key
        assert len(conflicts) == 1 and "'ctrl+t'" in conflicts[0] and "Show/hide thinking" in conflicts[0]

        await pilot.press(*"foo bar")
        await pilot.press("ctrl+w")  # the old key no longer deletes a word
        assert app.editor.text == "foo bar"
        await pilot.press("ctrl+b")
        assert app.editor.text == "foo "


async def test_reload_reapplies_the_file_and_restores_removed_entries(project: Path, faux) -> None:
    path = write(agent_dir() / "keybindings.json", {"app.thinking.cycle": "ctrl+y"})
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        write(path, {"newLine": "ctrl+n"})  # the thinking entry is gone: shift+tab is back
        app.editor.insert("/reload")
        await pilot.press("enter")
        await app.wait_until_idle()
        await pilot.pause()
        assert "key bindings" in app.chat.items[-1].text
        before = session.thinking_level
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert session.thinking_level == before
        await pilot.press("shift+tab")
        await pilot.pause()
        assert session.thinking_level != before
        await pilot.press("a", "ctrl+n", "b")
        assert app.editor.text == "a\nb"
