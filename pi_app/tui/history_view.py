"""Turning stored session messages into chat widgets (resume, /new, reload of earlier history)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.widget import Widget

from pi_app.ai.text import text_of
from widgets.bash_view import BashExecutionView
from widgets.messages import AssistantMessageView, UserMessageView
from widgets.notices import BranchSummaryView, CompactionSummaryView, Notice
from widgets.tool_format import ToolResultData
from widgets.tool_panel import ToolPanel


def _field(msg: Any, name: str, default: Any = None) -> Any:
    if isinstance(msg, dict):
        return msg.get(name, default)
    return getattr(msg, name, default)


def role_of(msg: Any) -> str | None:
    return _field(msg, "role")


def tool_results_by_id(messages: Sequence[Any]) -> dict[str, Any]:
    return {
        _field(m, "toolCallId"): m for m in messages if role_of(m) == "toolResult" and _field(m, "toolCallId")
    }


def user_text(msg: Any) -> str:
    return text_of(_field(msg, "content", ""))


def _finished_bash(msg: Any) -> BashExecutionView:
    view = BashExecutionView(
        _field(msg, "command", ""),
        clock=lambda: 0.0,
        tick=False,
        exclude_from_context=bool(_field(msg, "excludeFromContext")),
    )
    view.append_output(_field(msg, "output", "") or "")
    view.finish(_field(msg, "exitCode"), bool(_field(msg, "cancelled")), _field(msg, "fullOutputPath"))
    return view


def widgets_for(
    messages: Sequence[Any],
    results: dict[str, Any],
    *,
    hide_thinking: bool = False,
    home: str | None = None,
    start: int = 0,
) -> list[Widget]:
    """Widgets for ``messages`` (finished history); tool results are looked up in ``results``.

    Each widget gets ``pi_index``: the index of its message in the session (for loading earlier ones).
    """
    out: list[Widget] = []
    for offset, msg in enumerate(messages):
        before = len(out)
        _append_widgets(out, msg, results, hide_thinking, home)
        for widget in out[before:]:
            widget.pi_index = start + offset  # type: ignore[attr-defined]
    return out


def _append_widgets(
    out: list[Widget], msg: Any, results: dict[str, Any], hide_thinking: bool, home: str | None
) -> None:
    role = role_of(msg)
    if role == "user":
        text = user_text(msg)
        if text.strip():
            out.append(UserMessageView(text))
    elif role == "assistant":
        view = AssistantMessageView.from_message(msg, hide_thinking=hide_thinking)
        if not view.frozen_markup():
            view.display = False  # a tool-call-only turn: its panels speak for it
        out.append(view)
        for block in msg.content:
            if block.type != "toolCall":
                continue
            panel = ToolPanel(block.id, block.name, block.arguments, home=home)
            result = results.get(block.id)
            if result is not None:
                panel.set_result(
                    ToolResultData.from_content(
                        _field(result, "content", []),
                        _field(result, "details"),
                        bool(_field(result, "isError")),
                    )
                )
            out.append(panel)
    elif role == "bashExecution":
        out.append(_finished_bash(msg))
    elif role == "compactionSummary":
        out.append(
            CompactionSummaryView(_field(msg, "summary", ""), int(_field(msg, "tokensBefore", 0) or 0))
        )
    elif role == "branchSummary":
        out.append(BranchSummaryView(_field(msg, "summary", "")))
    elif role == "custom" and _field(msg, "display", True):
        label = _field(msg, "customType", "custom")
        out.append(Notice(f"[{label}] {user_text(msg)}"))
