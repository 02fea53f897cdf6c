"""``ctx.ui`` in the interactive app (Pilot): dialogs, timeouts, status and widget slots, custom screens;
snapshots of a dialog and of the status row with widgets above and below the editor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.tui.extension_ui import ExtensionDialog
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import wait_for

from .helpers import write_ext

UI_EXT = """
RESULTS = []

def register(pi):
    async def ask(args, ctx):
        if args == "confirm":
            RESULTS.append(await ctx.ui.confirm("Delete build/?", "This removes 12 files."))
        elif args == "select":
            RESULTS.append(await ctx.ui.select("Pick one", ["alpha", "beta"], timeout=30))
        elif args == "input":
            RESULTS.append(await ctx.ui.input("Branch name", "feature/..."))
        elif args == "timeout":
            RESULTS.append(await ctx.ui.confirm("Quick?", timeout=0.2))
        elif args == "slots":
            ctx.ui.set_status("plan", "plan mode: on")
            ctx.ui.set_widget("steps", ["Plan:", "1. read the code", "2. write the fix"])
            ctx.ui.set_widget("hint", ["below the editor"], placement="below_editor")
        elif args == "clear":
            ctx.ui.set_status("plan", None)
            ctx.ui.set_widget("steps", None)

    pi.register_command("ask", ask)
"""


class Picker(ModalScreen[str]):
    def compose(self) -> ComposeResult:
        yield Label("custom picker")

    def on_mount(self) -> None:
        self.set_timer(0.01, self._pick)

    def _pick(self) -> None:
        self.dismiss("picked")


async def _app(tmp_path: Path) -> tuple[Any, ExtensionRunner]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    session = await make_session(project)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(write_ext(tmp_path / "ext", "ui.py", UI_EXT)), "temporary")])
    runner.bind(session)
    return make_app(session, extensions=runner), runner


def _results(runner: ExtensionRunner) -> list[Any]:
    return runner.extensions[0].module.RESULTS


async def test_dialogs_answer_and_time_out(tmp_path, faux):
    app, runner = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("/ask confirm")
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the confirm dialog")
        await pilot.press("enter")  # "Yes" is highlighted first
        await wait_for(pilot, lambda: _results(runner) == [True], "the answer")

        app.submit("/ask select")
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the select dialog")
        await wait_for(
            pilot,
            lambda: "closes in 30s" in str(app.screen.query_one(".countdown").render()),
            "the countdown",
        )
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: _results(runner)[-1] == "beta", "the choice")

        app.submit("/ask input")
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the input dialog")
        await pilot.press(*"fix-login", "enter")
        await wait_for(pilot, lambda: _results(runner)[-1] == "fix-login", "the typed text")

        app.submit("/ask timeout")
        await wait_for(pilot, lambda: len(_results(runner)) == 4, "the timeout")
        assert _results(runner)[-1] is False and not isinstance(app.screen, ExtensionDialog)

        result = await runner.context_for("ui").ui.custom(Picker())
        assert result == "picked"

        from pi_app.ai.abort import AbortController

        controller = AbortController()
        asked = asyncio.ensure_future(
            runner.context_for("ui").ui.confirm("Still there?", signal=controller.signal)
        )
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the dialog to abort")
        controller.abort()
        await wait_for(
            pilot, lambda: asked.done() and not isinstance(app.screen, ExtensionDialog), "the abort"
        )
        assert asked.result() is False


async def test_status_and_widgets_in_their_slots(tmp_path, faux):
    app, runner = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("/ask slots")
        await wait_for(pilot, lambda: app.widgets_below.keys == ["hint"], "the widgets")
        assert app.extension_status.entries == {"plan": "plan mode: on"}
        assert app.widgets_above.keys == ["steps"]
        app.submit("/ask clear")
        await wait_for(pilot, lambda: app.widgets_above.keys == [], "the widget removed")
        assert app.extension_status.entries == {} and not app.extension_status.display

        ui = runner.context_for("ui").ui
        ui.set_footer(Label("my own footer", id="ext-footer"))
        await wait_for(pilot, lambda: bool(app.query("#ext-footer")), "the replacement footer")
        assert not app.footer.display
        ui.set_footer(None)
        await wait_for(pilot, lambda: not app.query("#ext-footer") and app.footer.display, "pi's footer back")


def test_dialog_snapshot(snap_compare, tmp_path, faux) -> None:
    app, _ = asyncio.run(_app(tmp_path))

    async def run_before(pilot) -> None:
        app.submit("/ask input")
        await wait_for(pilot, lambda: isinstance(app.screen, ExtensionDialog), "the input dialog")
        await pilot.press(*"feature/login")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "feature/login"

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_slots_snapshot(snap_compare, tmp_path, faux) -> None:
    app, _ = asyncio.run(_app(tmp_path))

    async def run_before(pilot) -> None:
        app.submit("/ask slots")
        await wait_for(pilot, lambda: app.widgets_below.keys == ["hint"], "the widgets")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_reload_takes_down_what_the_old_extension_showed(tmp_path, faux):
    """The extension is unloaded on /reload: its widgets, status, header, footer and title must not outlive
    it (they would point at code that is gone). What the reloaded code shows again is kept."""
    app, runner = await _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("/ask slots")
        await wait_for(pilot, lambda: app.widgets_below.keys == ["hint"], "the widgets")
        ui = runner.context_for("ui").ui
        ui.set_footer(Label("my own footer", id="ext-footer"))
        ui.set_header(["my header"])
        ui.set_title("busy")
        await wait_for(
            pilot, lambda: bool(app.query("#ext-footer")) and app.header_area.keys, "footer, header"
        )
        assert app.title == "busy"
        app.submit("/reload")
        await wait_for(
            pilot, lambda: "key bindings" in str(getattr(app.chat.items[-1], "text", "")), "the reload"
        )
        assert app.widgets_above.keys == [] and app.widgets_below.keys == [] and app.header_area.keys == []
        assert app.extension_status.entries == {} and not app.extension_status.display
        assert not app.query("#ext-footer") and app.footer.display
        assert app.title == "pi"
        # the reloaded extension works and can show its widgets again
        app.submit("/ask slots")
        await wait_for(pilot, lambda: app.widgets_below.keys == ["hint"], "the widgets shown again")
