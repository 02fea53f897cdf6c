"""Issue 17's display details: the bash tool's "Took Ns", the !! marker, settings labels with a gap, and long
paths in notices wrapping after a separator."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.tui.screens.settings import SETTING_ROWS, setting_label
from tests.tui.conftest import SIZE, FakeClock, make_app, make_session
from tests.widgets.harness import PiTestApp
from widgets.bash_view import BashExecutionView
from widgets.footer_format import wrap_at_separators
from widgets.notices import ErrorNotice
from widgets.tool_format import ToolResultData, format_tool_duration
from widgets.tool_panel import ToolPanel


def test_tool_duration_is_formatted_as_pi():
    assert format_tool_duration(0.04) == "0.0s"
    assert format_tool_duration(4.25) == "4.3s"
    assert format_tool_duration(59.94) == "59.9s"
    assert format_tool_duration(65) == "1m 5s"
    assert format_tool_duration(3725) == "1h 2m 5s"


async def test_bash_panel_says_how_long_it_took_only_when_it_was_timed():
    clock = FakeClock(10.0)
    panel = ToolPanel("c1", "bash", {"command": "make"}, clock=clock)
    panel.set_running()
    clock.advance(2.34)
    panel.set_result(ToolResultData(text="ok"))
    assert panel.build().plain.endswith("\n\nTook 2.3s")
    stored = ToolPanel("c2", "bash", {"command": "make"}, clock=clock)  # from history: no timing known
    stored.set_result(ToolResultData(text="ok"))
    assert "Took" not in stored.build().plain
    other = ToolPanel("c3", "ls", {"path": "."}, clock=clock)
    other.set_running()
    other.set_result(ToolResultData(text="a"))
    assert "Took" not in other.build().plain


async def test_live_bash_tool_run_shows_took(project: Path, faux) -> None:
    faux.enqueue(faux_tool("bash", {"command": "echo hi"}), faux_text("done"))
    session = await make_session(project)
    app = make_app(session)
    async with app.run_test(size=SIZE):
        app.submit("run it")
        await app.wait_until_idle()
        [panel] = list(app.query(ToolPanel))
        assert panel.took is not None
        assert panel.build().plain.splitlines()[-1].startswith("Took ")


async def test_excluded_bash_is_marked_as_kept_out_of_context():
    view = BashExecutionView("secret-cmd", clock=lambda: 0.0, tick=False, exclude_from_context=True)
    view.finish(0)
    lines = view.build().plain.splitlines()
    assert lines[:2] == ["$ secret-cmd", BashExecutionView.EXCLUDED_NOTE]
    assert view.has_class("-excluded")
    normal = BashExecutionView("ls", clock=lambda: 0.0, tick=False)
    assert BashExecutionView.EXCLUDED_NOTE not in normal.build().plain
    assert not normal.has_class("-excluded")


def test_settings_labels_keep_a_gap_before_their_values():
    for row in SETTING_ROWS:
        label = setting_label(row)
        assert label.startswith(row.label) and label.endswith("  "), row.label
    assert setting_label(SETTING_ROWS[0]).__len__() == len(setting_label(SETTING_ROWS[-1]))


def test_long_paths_wrap_after_separators():
    text = "Session exported to: /home/tester/projects/some-long-project-name/sessions/2026-12-01_abc.html"
    wrapped = wrap_at_separators(text, 40)
    assert wrapped is not None
    lines = wrapped.split("\n")
    assert all(len(line) <= 40 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(line.endswith("/") for line in lines[1:-1])  # every break after a separator
    assert wrap_at_separators("a short line with words", 10) is None  # word wrap does the rest


async def test_notice_wraps_a_long_path_at_its_separators():
    text = "Import failed: File not found: /srv/data/projects/alpha-beta-gamma/sessions/x.jsonl"
    app = PiTestApp([ErrorNotice(text)])
    async with app.run_test(size=(40, 10)) as pilot:
        notice = app.query_one(ErrorNotice)
        await pilot.pause()
        lines = [strip.text.rstrip() for strip in notice.render_lines(notice.region.reset_offset)]
        shown = [line.strip() for line in lines if line.strip()]
        assert len(shown) > 2 and shown[0].startswith("Import failed: File not found: /")
        assert all(line.endswith("/") for line in shown[:-1]), shown
        assert shown[-1].endswith("x.jsonl") and "".join(shown) == text
