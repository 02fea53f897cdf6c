import pytest
from textual.widgets import Markdown, Static

from pi_app.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from tests.widgets.harness import PiTestApp
from widgets.chat_log import ChatLog
from widgets.messages import AssistantMessageView
from widgets.notices import CompactionSummaryView


@pytest.mark.slow
async def test_stream_2000_words_then_finalize():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(120, 40)) as pilot:
        view = AssistantMessageView()
        await log.add(view)
        await view.append_thinking("Let me *think* about it.")
        # ~2,000 words (~15,000 characters, 7x SEGMENT_CHARS) in 500 deltas of four: every delta re-renders
        # the live block, so the delta count is the test's cost, the amount of text what it exercises
        chunks = []
        for i in range(0, 2000, 4):
            chunk = (
                "".join(f"word{k} " for k in range(i, i + 4)) if i % 200 else f"\n\n## Part {i // 200}\n\n"
            )
            chunks.append(chunk)
            await view.append_text(chunk)
        await pilot.pause()
        assert len(view.query(".-live")) == 2  # one live thinking block, one live text block
        assert len(view.children) == 4  # pieces and rest of each block, however many pieces were frozen
        final = AssistantMessage(
            content=[ThinkingContent(thinking="Let me *think* about it."), TextContent(text="".join(chunks))]
        )
        await view.finalize(final)
        await pilot.pause()
        assert not view.query(Markdown) and not view.query(".-live")
        frozen = view.query(Static)
        assert len(frozen) == 1
        assert view.text == "".join(chunks)
        markup = view.frozen_markup()
        assert markup.startswith("Let me *think* about it.\n\n## Part 0")
        assert markup.endswith("word1999")
        # The frozen Static really renders the final words.
        rendered = "\n".join(
            line.text for line in frozen.first().render_lines(frozen.first().region.reset_offset)
        )
        assert "Part 0" in rendered


async def test_hide_thinking_and_error_notice():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(80, 20)) as pilot:
        msg = AssistantMessage(
            content=[ThinkingContent(thinking="secret plan"), TextContent(text="Answer")],
            stopReason="error",
            errorMessage="rate limited",
        )
        view = AssistantMessageView.from_message(msg)
        await log.add(view)
        await pilot.pause()
        assert view.frozen_markup() == "secret plan\n\nAnswer\n\nError: rate limited"
        log.set_hide_thinking(True)
        assert view.frozen_markup() == "Thinking...\n\nAnswer\n\nError: rate limited"
        aborted = AssistantMessageView.from_message(AssistantMessage(content=[], stopReason="aborted"))
        assert aborted.frozen_markup() == "Operation aborted"
        with_tool = AssistantMessageView.from_message(
            AssistantMessage(content=[ToolCall(id="1", name="ls")], stopReason="aborted")
        )
        assert with_tool.frozen_markup() == ""


async def test_summary_views_expand():
    log = ChatLog()
    app = PiTestApp([log])
    async with app.run_test(size=(80, 20)) as pilot:
        view = CompactionSummaryView("Goal: ship it", tokens_before=12345)
        await log.add(view)
        assert view.plain.endswith("Compacted from 12,345 tokens (ctrl+o to expand)")
        log.set_tools_expanded(True)
        await pilot.pause()
        assert "**Compacted from 12,345 tokens**\n\nGoal: ship it" in view.plain
