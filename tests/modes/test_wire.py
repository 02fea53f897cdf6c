"""What json/rpc print: the tool-set log stays off the wire; pi 0.73.1's sourceInfo for commands."""

from __future__ import annotations

from pi_app.agent.events import AgentEndEvent, MessageEndEvent, MessageStartEvent
from pi_app.ai.types import SystemMessage, Tool, UserMessage
from pi_app.modes.rpc_commands import source_info
from pi_app.modes.wire import event_json, wire_messages
from pi_app.session.session_events import ModelSelectEvent, ThinkingLevelChangedEvent


def test_tool_set_messages_are_not_printed():
    log = SystemMessage(content="", toolsAdded=[Tool(name="read", description="r")])
    user = UserMessage(content="hi")
    assert event_json(MessageStartEvent(log)) is None and event_json(MessageEndEvent(log)) is None
    assert event_json(MessageEndEvent(user))["message"]["role"] == "user"
    end = event_json(AgentEndEvent([log, user]))
    assert [m["role"] for m in end["messages"]] == ["user"]
    assert wire_messages([log, user, {"role": "system"}, {"role": "assistant"}]) == [
        user,
        {"role": "assistant"},
    ]


def test_only_pi_event_types_are_printed():
    assert event_json(ThinkingLevelChangedEvent("high")) == {
        "type": "thinking_level_changed",
        "level": "high",
    }
    assert event_json(ModelSelectEvent.__new__(ModelSelectEvent)) is None  # not in pi's json stream


def test_source_info_like_pi(tmp_path):
    agent, cwd = str(tmp_path / "agent"), str(tmp_path / "proj")
    user = source_info(f"{agent}/prompts/a.md", "user", cwd, agent)
    assert user == {
        "path": f"{agent}/prompts/a.md",
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": agent,
    }
    project = source_info(f"{cwd}/.pi/skills/x/SKILL.md", "project", cwd, agent)
    assert (project["source"], project["scope"], project["baseDir"]) == ("auto", "project", f"{cwd}/.pi")
    # a path given explicitly: pi's default for a path (user/project root when under one, else temporary)
    under_agent = source_info(f"{agent}/skills/x/SKILL.md", "path", cwd, agent)
    assert (under_agent["source"], under_agent["scope"], under_agent["baseDir"]) == (
        "local",
        "user",
        f"{agent}/skills",
    )
    elsewhere = source_info(str(tmp_path / "lib" / "t.md"), "path", cwd, agent)
    assert (elsewhere["scope"], elsewhere["baseDir"]) == ("temporary", str(tmp_path / "lib"))
