from textual import events
from textual.app import ComposeResult

from tests.widgets.harness import PiTestApp
from widgets.completion import CompletionMenu, DefaultCompletionProvider, SlashCommand
from widgets.editor import PromptEditor
from widgets.history import History
from widgets.paste import PasteStore, is_large_paste


class EditorApp(PiTestApp):
    def __init__(self, tmp_path, history=None):
        super().__init__()
        self.menu = CompletionMenu()
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / "main.py").write_text("")
        (tmp_path / "setup.cfg").write_text("")
        provider = DefaultCompletionProvider(
            [
                SlashCommand("model", "Select model"),
                SlashCommand("compact", "Compact"),
                SlashCommand("copy", "Copy"),
            ],
            tmp_path,
        )
        self.editor = PromptEditor(history=history, completion=provider, menu=self.menu, blink=False)
        self.got: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield self.editor
        yield self.menu

    def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        self.got.append((type(event).__name__, event.text))

    def on_prompt_editor_follow_up(self, event: PromptEditor.FollowUp) -> None:
        self.got.append((type(event).__name__, event.text))


def test_history_pure(tmp_path):
    path = tmp_path / "h.jsonl"
    h = History(path)
    for text in ["one", "two", "two", "three"]:
        h.add(text)
    assert h.entries == ["one", "two", "three"]
    assert h.previous("draft") == "three" and h.previous() == "two" and h.previous() == "one"
    assert h.previous() is None
    assert h.next() == "two" and h.next() == "three" and h.next() == "draft" and not h.browsing
    assert History(path).entries == ["one", "two", "three"]
    capped = History(max_entries=100)
    for i in range(150):
        capped.add(str(i))
    assert len(capped.entries) == 100 and capped.entries[0] == "50"


def test_paste_markers_pure():
    store = PasteStore()
    assert (
        not is_large_paste("a\n" * 9 + "a")
        and is_large_paste("a\n" * 10 + "a")
        and is_large_paste("x" * 1001)
    )
    big = "\n".join(str(i) for i in range(12))
    marker = store.add(big)
    assert marker == "[paste #1 +12 lines]"
    assert store.add("y" * 1200) == "[paste #2 1200 chars]"
    assert store.expand(f"see {marker} and [paste #9 +3 lines]") == f"see {big} and [paste #9 +3 lines]"


async def test_enter_alt_enter_newlines(tmp_path):
    app = EditorApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("h", "i", "shift+enter", "x", "ctrl+j", "y")
        assert app.editor.text == "hi\nx\ny"
        await pilot.press("enter")
        await pilot.pause()
        assert app.got == [("Submitted", "hi\nx\ny")] and app.editor.text == ""
        await pilot.press("f", "u", "alt+enter")
        await pilot.pause()
        assert app.got[-1] == ("FollowUp", "fu")
        await pilot.press("enter")  # empty: nothing is sent
        await pilot.pause()
        assert len(app.got) == 2


async def test_history_up_and_bash_mode(tmp_path):
    app = EditorApp(tmp_path, history=History())
    async with app.run_test(size=(120, 40)) as pilot:
        for word in ("first", "!ls"):
            app.editor.insert(word)
            await pilot.press("enter")
        await pilot.pause()
        await pilot.press("up")
        assert app.editor.text == "!ls" and app.editor.has_class("-bash")
        await pilot.press("up")
        assert app.editor.text == "first" and not app.editor.has_class("-bash")
        await pilot.press("down", "down")
        assert app.editor.text == ""
        app.editor.thinking_level = "high"
        await pilot.pause()
        assert app.editor.has_class("-thinking-high") and not app.editor.has_class("-thinking-off")


async def test_paste_marker_expanded_on_submit(tmp_path):
    app = EditorApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        big = "\n".join(f"line {i}" for i in range(20))
        app.post_message(events.Paste(big))
        await pilot.pause()
        assert app.editor.text == "[paste #1 +20 lines]"
        app.post_message(events.Paste("small"))
        await pilot.pause()
        assert app.editor.text == "[paste #1 +20 lines]small"
        await pilot.press("enter")
        await pilot.pause()
        assert app.got[-1] == ("Submitted", big + "small")


async def test_completion_popup(tmp_path):
    app = EditorApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("/", "c")
        await pilot.pause()
        assert app.menu.is_open and [i.value for i in app.menu.completions.items] == ["/compact", "/copy"]
        await pilot.press("down", "tab")
        await pilot.pause()
        assert app.editor.text == "/copy " and not app.menu.is_open and app.got == []
        app.editor.clear()
        await pilot.press("/", "c", "down", "enter")  # Enter on a command completes and runs it, as pi
        await pilot.pause()
        assert app.got == [("Submitted", "/copy")] and app.editor.text == ""
        await pilot.press("r", "e", "a", "d", "space", "@", "s")
        await pilot.pause()
        assert [i.value for i in app.menu.completions.items] == ["@src/", "@setup.cfg"]
        await pilot.press("enter")  # a file completion only goes into the text
        await pilot.pause()
        assert app.editor.text == "read @src/" and len(app.got) == 1
        app.editor.clear()
        await pilot.press("@", "s")
        await pilot.pause()
        await pilot.press("escape")
        assert not app.menu.is_open
        app.editor.clear()
        await pilot.press("s", "r", "tab")  # Tab path completion, single match applies directly
        await pilot.pause()
        assert app.editor.text == "src/"


async def test_enter_after_a_fast_command_uses_the_menu_for_the_whole_text(tmp_path):
    """ "/copy⏎" in one read after the menu opened on "/": Enter must not accept what the menu offered for
    "/" (it had "/model" highlighted: "/cop/model" was submitted)."""
    app = EditorApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        assert app.menu.is_open and app.menu.selected().value == "/model"
        for key, char in [("c", "c"), ("o", "o"), ("p", "p"), ("y", "y"), ("enter", "\r")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert app.got == [("Submitted", "/copy")]


async def test_enter_in_the_same_read_as_the_text_submits_all_of_it(tmp_path):
    """A terminal read can deliver "hi⏎" at once (fast typing, tmux send-keys): Enter must act after the
    characters queued before it, not overtake them."""
    app = EditorApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for key, char in [("h", "h"), ("i", "i"), ("enter", "\r")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert app.got == [("Submitted", "hi")] and app.editor.text == ""
        for key, char in [("o", "o"), ("k", "k"), ("tab", "\t"), ("shift+enter", None), ("z", "z")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert app.editor.text == "ok\nz"
