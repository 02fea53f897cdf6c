"""The colours the widgets really draw are the pairs themes.CONTRAST_PAIRS checks.

Each built-in theme's screens are rendered and every visible character's (colour, background) is
read back. Each must be some (text token, background token) pair of CONTRAST_PAIRS — so a widget
drawing, say, $pi-accent on $pi-tool-success-bg without that pair being checked fails here — and
must reach 4.5:1 unless it is one of pi's documented dark/light exceptions.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from textual.widget import Widget

import themes
from pi_app.ai.types import AssistantMessage, TextContent
from tests.theme_snapshots.cells import screen_rows
from tests.theme_snapshots.screens import HOME, ScreenApp, ScreenBuilder, conversation
from themes.contrast import BACKGROUND, CONTRAST_PAIRS, MIN_RATIO, PI_EXCEPTIONS
from themes.convert import background_of
from widgets.chat_log import ChatLog
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import BranchSummaryView, CompactionSummaryView, Notice
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel

MARKDOWN = """\
### Heading

Use `code` as [the docs](https://example.com) say.

> a quote

- an item

```python
# comment
x: int = max(1, 2.5) + len("s")
```"""


def extras() -> Iterable[Widget]:
    """What the conversation screen lacks: markdown on the user/summary backgrounds, summaries,
    a pending write preview, tool errors and warnings, notices."""
    log = ChatLog()
    log.compose_add_child(UserMessageView(MARKDOWN))
    log.compose_add_child(CompactionSummaryView("done", tokens_before=52_000))
    log.compose_add_child(BranchSummaryView(MARKDOWN, expanded=True))
    log.compose_add_child(
        ToolPanel("w1", "write", {"path": f"{HOME}/a.py", "content": MARKDOWN.split("```python\n")[1][:-3]})
    )
    read_err = ToolPanel("r1", "read", {"path": f"{HOME}/b.py", "offset": 3, "limit": 2}, home=HOME)
    read_err.set_result(ToolResultData("File not found", is_error=True))
    log.compose_add_child(read_err)
    bash = ToolPanel("b1", "bash", {"command": "seq 99", "timeout": 5}, home=HOME)
    bash.set_result(
        ToolResultData(
            "\n".join(str(i) for i in range(1, 12)),
            details={
                "truncation": {"truncated": True, "truncatedBy": "lines", "outputLines": 11, "totalLines": 99}
            },
        )
    )
    log.compose_add_child(bash)
    log.compose_add_child(
        ToolPanel("e1", "edit", {"path": "c.py", "oldText": "a = 1\nb", "newText": "a = 2\nb"})
    )
    log.compose_add_child(
        AssistantMessageView.from_message(
            AssistantMessage(content=[TextContent(text=MARKDOWN)], stopReason="error", errorMessage="boom")
        )
    )
    for kind in ("info", "warning", "success", "error"):
        log.compose_add_child(Notice(f"a {kind} notice", kind=kind))
    yield log


SCREENS: dict[str, ScreenBuilder] = {"conversation": conversation, "extras": extras}
CHECKABLE = [name for name in themes.BUILTIN_THEMES if not themes.is_terminal_palette(themes.get_spec(name))]


def _decoration(char: str) -> bool:
    # Box drawing and block elements (borders, scrollbars, rules) are not text.
    return char.isspace() or 0x2500 <= ord(char) <= 0x259F


async def _drawn_pairs(build: ScreenBuilder, theme: str) -> dict[tuple[str | None, str | None], str]:
    app = ScreenApp(build, theme)
    async with app.run_test(size=(120, 140)) as pilot:
        await pilot.pause()
        rows = screen_rows(app)
    drawn: dict[tuple[str | None, str | None], str] = {}
    for row in rows:
        for cell in row:
            if not _decoration(cell.char):
                drawn[(cell.fg, cell.bg)] = drawn.get((cell.fg, cell.bg), "") + cell.char
    return drawn


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")


@pytest.mark.parametrize("theme", CHECKABLE)
async def test_drawn_colours_are_checked_pairs(theme):
    colors = themes.token_colors(theme)
    backgrounds = {**colors, BACKGROUND: background_of(themes.get_spec(theme))}
    allowed = PI_EXCEPTIONS.get(theme, frozenset())
    problems = []
    for screen, build in SCREENS.items():
        for (fg, bg), chars in (await _drawn_pairs(build, theme)).items():
            # Word-level diff highlights are drawn reversed: accept either orientation.
            explained = [
                (f, b) for f, b in CONTRAST_PAIRS if (colors[f], backgrounds[b]) in ((fg, bg), (bg, fg))
            ]
            where = f"{screen}: {chars[:40]!r} drawn {fg} on {bg}"
            if not explained:
                problems.append(f"{where}: no CONTRAST_PAIRS entry")
            elif themes.contrast_ratio(fg, bg) < MIN_RATIO and not allowed.intersection(explained):
                problems.append(f"{where}: {themes.contrast_ratio(fg, bg):.2f}:1 ({explained})")
    assert problems == []
