from tests.widgets.harness import PiTestApp
from widgets.status_line import StatusLine, retry_text


class StatusApp(PiTestApp):
    def compose(self):
        yield StatusLine(spinner=True, id="status")


async def test_compacting_wording_and_retry_countdown():
    app = StatusApp()
    async with app.run_test(size=(80, 5)) as pilot:
        status = app.query_one(StatusLine)
        status.show_compacting(automatic=True)
        assert status.message == "Auto-compacting context... (esc to cancel)"
        status.show_compacting()
        assert status.message == "Compacting context... (esc to cancel)"
        now = [100.0]
        status.clock = lambda: now[0]
        status.show_retry(1, 3, 4)
        assert status.message == retry_text(1, 3, 4) == "Retrying (1/3) in 4s... (esc to cancel)"
        now[0] += 2.5
        status._advance()
        assert status.message == "Retrying (1/3) in 2s... (esc to cancel)"
        status.show_working()
        status._advance()
        assert status.message == "Working... (esc to interrupt)"
        status.clear()
        await pilot.pause()
