"""The tool presenter registry: one presentation per tool name, shared by the tool panel and the HTML export."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pi_app.session.export.render import render_tool_call
from pi_app.tools import presenters
from pi_app.tools.presenters import (
    Header,
    Span,
    ToolPresenter,
    ToolResultData,
    no_shortening,
    presenter_for,
    register_tool_presenter,
)
from widgets.tool_format import format_tool


@dataclass(frozen=True)
class DeployPresenter(ToolPresenter):
    name: str = "deploy"
    body: presenters.BodyKind = "tail"
    preview_lines: int = 2

    def header(self, args: Mapping[str, Any], shorten: Any, first_changed_line: int | None = None) -> Header:
        return Header((Span("deploy", "title"), Span(" to "), Span(str(args.get("target", "?")), "accent")))

    def summary(self, args: Mapping[str, Any], shorten: Any) -> str:
        return f"[deploy: {args.get('target', '?')}]"


@pytest.fixture
def deploy() -> Iterator[None]:
    register_tool_presenter("deploy", DeployPresenter())
    yield
    presenters._REGISTRY.pop("deploy")


def test_an_unknown_tool_gets_the_default_under_its_own_name() -> None:
    presenter = presenter_for("mytool")
    assert presenter.name == "mytool" and presenter.body == "args_json"
    assert presenter.summary({"x": 1}, no_shortening) == '[mytool: {"x":1}]'
    assert format_tool("mytool", {"x": 1}).plain == 'mytool\n\n{\n  "x": 1\n}'


def test_built_in_summaries_are_pis_one_line_form() -> None:
    shorten = lambda path: path.replace("/home/u", "~")  # noqa: E731
    assert presenter_for("read").summary({"path": "/home/u/a.py", "offset": 5, "limit": 10}, shorten) == (
        "[read: ~/a.py:5-14]"
    )
    assert presenter_for("bash").summary({"command": "ls  -la\n"}, shorten) == "[bash: ls -la]"
    assert presenter_for("grep").summary({"pattern": "x"}, shorten) == "[grep: /x/ in .]"
    assert presenter_for("read").code_path({"path": "a.py"}) == "a.py"
    assert presenter_for("bash").code_path({"command": "a.py"}) is None


def test_a_registered_presenter_reaches_the_panel_and_the_export(deploy: None) -> None:
    result = ToolResultData("step 1\nstep 2\nstep 3\ndone")
    text = format_tool("deploy", {"target": "prod"}, result).plain
    assert text.split("\n") == [
        "deploy to prod",
        "",
        "... (2 earlier lines, ctrl+o to expand)",
        "step 3",
        "done",
    ]
    html = render_tool_call(
        {"name": "deploy", "arguments": {"target": "prod"}},
        {"content": [{"type": "text", "text": "ok"}], "isError": False},
    )
    assert '<span class="tool-name">deploy</span> to <span class="tool-path">prod</span>' in html
    assert "tool-args" not in html  # not the default's JSON dump


def test_result_data_reads_every_result_shape() -> None:
    content = [{"type": "text", "text": "\x1b[31mred\x1b[0m\r"}, {"type": "image", "mimeType": "image/png"}]
    data = ToolResultData.of({"content": content, "details": {"a": 1}, "isError": True})
    assert (data.text, data.is_error, data.details, data.output) == (
        "red",
        True,
        {"a": 1},
        "red\n[Image: image/png]",
    )
    assert ToolResultData.of(None) == ToolResultData()
    assert ToolResultData.of({"content": content}, is_error=False).is_error is False
