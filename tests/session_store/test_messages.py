from __future__ import annotations

import pytest

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    OtherMessage,
    convert_to_llm,
    iso_to_ms,
    parse_agent_message,
)


def test_parse_each_role_keeps_unknown_fields():
    bash = parse_agent_message(
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 5,
            "newField": {"x": 1},
        }
    )
    assert isinstance(bash, BashExecutionMessage) and bash.model_extra == {"newField": {"x": 1}}
    assert isinstance(
        parse_agent_message(
            {"role": "custom", "customType": "t", "content": "c", "display": False, "timestamp": 1}
        ),
        CustomMessage,
    )
    assert isinstance(
        parse_agent_message({"role": "branchSummary", "summary": "s", "fromId": "x", "timestamp": 1}),
        BranchSummaryMessage,
    )
    assert isinstance(
        parse_agent_message({"role": "compactionSummary", "summary": "s", "tokensBefore": 3, "timestamp": 1}),
        CompactionSummaryMessage,
    )
    user = parse_agent_message({"role": "user", "content": "hi", "timestamp": 1, "extra": True})
    assert isinstance(user, UserMessage) and user.model_extra == {"extra": True}
    other = parse_agent_message({"role": "ext-role", "payload": [1, 2]})
    assert isinstance(other, OtherMessage) and other.model_dump()["payload"] == [1, 2]
    with pytest.raises(ValueError):
        parse_agent_message({"content": "no role"})


def _text(msg) -> str:
    return "".join(b.text for b in msg.content)


def test_bash_execution_text_matches_pi():
    out = convert_to_llm(
        [
            BashExecutionMessage(command="make", output="ok", exitCode=0, timestamp=1),
            BashExecutionMessage(command="false", output="", exitCode=1, timestamp=2),
            BashExecutionMessage(command="sleep 9", output="x", cancelled=True, exitCode=None, timestamp=3),
            BashExecutionMessage(
                command="big", output="o", truncated=True, fullOutputPath="/tmp/f", timestamp=4
            ),
            BashExecutionMessage(command="secret", output="s", excludeFromContext=True, timestamp=5),
        ]
    )
    assert [m.role for m in out] == ["user"] * 4
    assert _text(out[0]) == "Ran `make`\n```\nok\n```"
    assert _text(out[1]) == "Ran `false`\n(no output)\n\nCommand exited with code 1"
    assert _text(out[2]) == "Ran `sleep 9`\n```\nx\n```\n\n(command cancelled)"
    assert _text(out[3]) == "Ran `big`\n```\no\n```\n\n[Output truncated. Full output: /tmp/f]"
    assert out[0].timestamp == 1


def test_summaries_and_custom_become_user_messages():
    out = convert_to_llm(
        [
            {"role": "branchSummary", "summary": "B", "fromId": "x", "timestamp": 1},
            {"role": "compactionSummary", "summary": "C", "tokensBefore": 9, "timestamp": 2},
            {"role": "custom", "customType": "t", "content": "plain", "display": True, "timestamp": 3},
            CustomMessage(customType="t", content=[TextContent(text="blocks")], timestamp=4),
            AssistantMessage(content=[TextContent(text="a")]),
            OtherMessage(role="mystery"),
        ]
    )
    assert _text(out[0]) == (
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>"
    )
    assert _text(out[1]) == (
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\nC\n</summary>"
    )
    assert _text(out[2]) == "plain" and _text(out[3]) == "blocks"
    assert out[4].role == "assistant" and len(out) == 5


def test_iso_to_ms():
    assert iso_to_ms("2025-11-10T09:15:02.114Z") == 1762766102114
    assert iso_to_ms("garbage") == 0
