from textual import events
from textual.widgets import Static

from tests.widgets.harness import PiTestApp
from widgets.chat_log import ChatLog
from widgets.notices import InfoNotice


def _wheel(log: ChatLog, up: bool) -> None:
    cls = events.MouseScrollUp if up else events.MouseScrollDown
    log.post_message(cls(log, 5, 5, 0, 1 if not up else -1, 0, False, False, False))


def _line(i: int) -> Static:
    return InfoNotice(f"entry {i}")


async def test_follow_only_at_bottom_badge_and_end_reattach():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(120, 40)) as pilot:
        for i in range(40):
            await log.add(_line(i))
        await pilot.pause()
        assert log.following and log.max_scroll_y > 0
        assert log.scroll_y == log.max_scroll_y

        # The wheel scrolls 3 lines per notch and detaches.
        before = log.scroll_y
        _wheel(log, up=True)
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == before - 3
        assert not log.following

        frozen_at = log.scroll_y
        for i in range(40, 44):
            await log.add(_line(i))
        await pilot.pause()
        assert log.scroll_y == frozen_at  # view did not jump
        assert log.badge_text == "↓ 4 new"
        assert log.badge.has_class("-visible")

        log.focus()
        await pilot.press("end")
        await pilot.pause()
        assert log.following and log.badge_text == ""
        assert log.scroll_y == log.max_scroll_y
        await log.add(_line(99))
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y


async def test_scrolling_back_to_bottom_reattaches():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(80, 20)) as pilot:
        for i in range(30):
            await log.add(_line(i))
        await pilot.pause()
        _wheel(log, up=True)
        await pilot.pause()
        await log.add(_line(30))
        await pilot.pause()
        assert log.new_count == 1
        for _ in range(3):
            _wheel(log, up=False)
            await pilot.pause()
        await pilot.pause()
        assert log.following and log.new_count == 0


async def test_prune_and_prepend_history():
    log = ChatLog(max_items=10)
    requests = []

    class App(PiTestApp):
        def on_chat_log_earlier_requested(self, event: ChatLog.EarlierRequested) -> None:
            requests.append(event)

    app = App([log])
    async with app.run_test(size=(80, 20)) as pilot:
        for i in range(15):
            await log.add(_line(i))
        await pilot.pause()
        assert [w.text for w in log.items] == [f"entry {i}" for i in range(5, 15)]
        assert log.has_earlier
        log.focus()
        await pilot.press("home")
        await pilot.pause()
        assert len(requests) == 1
        await log.prepend_history([_line(i) for i in range(5)])
        await pilot.pause()
        assert [w.text for w in log.items][:6] == [f"entry {i}" for i in range(6)]
        assert not log.has_earlier
