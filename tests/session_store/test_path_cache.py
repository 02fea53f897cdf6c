"""The remembered root->leaf path (issue 15): entries appended under it extend it, no 50k-entry walk."""

from __future__ import annotations

from typing import Any

import pytest

from pi_app.ai.types import AssistantMessage, TextContent, UserMessage
from pi_app.session.store import SessionManager
from pi_app.session.store import manager as manager_module
from pi_app.session.store.context import path_to_root


def _assistant(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], api="x", provider="prov", model="mod")


def test_appended_entries_extend_the_remembered_path(monkeypatch: pytest.MonkeyPatch) -> None:
    sm = SessionManager.in_memory("/tmp")
    for i in range(200):
        sm.append_message(UserMessage(content=f"q{i}"))
        sm.append_message(_assistant(f"a{i}"))
    walks: list[Any] = []

    def counting(by_id: Any, leaf_id: Any) -> Any:
        walks.append(leaf_id)
        return path_to_root(by_id, leaf_id)

    monkeypatch.setattr(manager_module, "path_to_root", counting)
    assert len(sm.get_branch()) == 400 and len(walks) == 1  # the first walk, remembered

    sm.append_message(UserMessage(content="prompt"))
    sm.append_thinking_level_change("high")
    sm.append_message(_assistant("answer"))
    branch = sm.get_branch()
    assert len(walks) == 1  # three entries below the remembered leaf: no walk from the root
    assert [e.id for e in branch] == [e["id"] for e in path_to_root(sm._by_id, sm.get_leaf_id())]

    side = branch[100].id  # a leaf off the remembered path: a real walk
    sm.branch(side)
    sm.append_message(UserMessage(content="elsewhere"))
    branch = sm.get_branch()
    assert len(walks) == 2 and len(branch) == 102 and branch[100].id == side
    assert [e.id for e in branch] == [e["id"] for e in path_to_root(sm._by_id, sm.get_leaf_id())]
