"""Extension widgets behind the error boundary, the header slot and the title (Pilot): a widget whose
``render`` raises and one whose ``compose`` raises (directly or in a nested child) become one error line
naming the extension, and the app still takes a prompt; ``set_header`` replaces pi's startup header and
``None`` restores it; ``set_title`` sets the app's title."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Label

from pi_app.ai.providers.faux import faux_text
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.tui.header import StartupHeader
from tests.extensions.helpers import write_ext
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for
from widgets.custom_render import ExtensionBoundary, ExtensionErrorBox

EXT = """
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Label


class BadRender(Widget):
    DEFAULT_CSS = "BadRender { height: 1; }"

    def render(self):
        raise ValueError("cannot paint")


class BadCompose(Widget):
    def compose(self):
        yield Label("half")
        raise RuntimeError("cannot compose")


class BadChild(Widget):
    DEFAULT_CSS = "BadChild { height: auto; }"

    def compose(self):
        with Vertical():
            yield Label("fine")
            yield BadRender()


class BadMount(Label):
    def on_mount(self):
        raise KeyError("mounting")


def register(pi):
    async def show(args, ctx):
        if args == "render":
            ctx.ui.set_widget("a", BadRender())
        elif args == "compose":
            ctx.ui.set_widget("b", BadCompose(), placement="below_editor")
        elif args == "child":
            ctx.ui.set_header(BadChild())
        elif args == "mount":
            ctx.ui.set_footer(BadMount("x"))
        elif args == "good":
            ctx.ui.set_widget("good", Label("all well", id="good"))

    pi.register_command("show", show)
"""


async def _app(tmp_path: Path) -> tuple[Any, Any, ExtensionRunner]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(write_ext(tmp_path / "ext", "boxes.py", EXT)), "temporary")])
    runner.bind(session)
    return make_app(session, extensions=runner), session, runner


def _errors(app: Any) -> list[str]:
    return [str(box.render()) for box in app.query(ExtensionErrorBox)]


async def test_raising_widgets_become_error_lines_and_the_app_goes_on(tmp_path, faux):
    app, session, _ = await _app(tmp_path)
    faux.enqueue(faux_text("still here"))
    async with app.run_test(size=SIZE) as pilot:
        app.submit("/show good")
        await wait_for(pilot, lambda: bool(app.query("#good")), "the good widget")
        for what in ("render", "compose", "child", "mount"):
            app.submit(f"/show {what}")
        await wait_for(pilot, lambda: len(_errors(app)) == 4, "four error lines")
        errors = _errors(app)
        assert "Extension widget failed (boxes): ValueError: cannot paint" in errors
        assert "Extension widget failed (boxes): RuntimeError: cannot compose" in errors
        assert "Extension widget failed (boxes): KeyError: 'mounting'" in errors
        assert sum("cannot paint" in e for e in errors) == 2  # the nested child's failure too
        assert app.query_one("#good", Label).is_attached  # the neighbour is untouched
        for boundary in app.query(ExtensionBoundary):
            if boundary.error is not None:
                assert [type(c) for c in boundary.children] == [ExtensionErrorBox]

        await pilot.click("#editor")
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: session.get_last_assistant_text() == "still here", "the answer")
        assert app.is_running


async def test_header_replaced_and_restored_and_title(tmp_path, faux):
    app, _, runner = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.header is not None and app.header.is_attached, "pi's header")
        ui = runner.context_for("boxes").ui
        ui.set_header(Label("my project", id="my-header"))
        await wait_for(
            pilot,
            lambda: bool(app.query("#my-header")) and not app.query_one(StartupHeader).display,
            "the extension's header in place of pi's",
        )
        await pilot.pause()
        assert app.query_one("#my-header").region.y < app.chat.region.y  # above the conversation

        await app.rebuild_chat(header=True)  # e.g. /new: pi's header stays hidden while replaced
        assert not app.query_one(StartupHeader).display

        ui.set_header(None)
        await wait_for(
            pilot,
            lambda: not app.query("#my-header") and app.query_one(StartupHeader).display,
            "pi's header back",
        )

        ui.set_title("pi - my project")
        assert app.title == "pi - my project"
