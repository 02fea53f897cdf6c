"""HTML export: whole tree embedded, active branch rendered, escaping, no network resources, diffs, copies."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_app.session.export import default_export_path, export_session, export_session_html
from pi_app.session.store import SessionManager, load_session_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
BRANCHED = FIXTURES / "branched.jsonl"
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def embedded(html: str) -> dict[str, Any]:
    m = re.search(r'<script id="session-data" type="application/json">(.*?)</script>', html, re.S)
    assert m, "no embedded session data"
    return json.loads(m.group(1))


def messages_column(html: str) -> str:
    return html.split('<div id="messages">', 1)[1].split("</main>", 1)[0]


def usage() -> dict[str, Any]:
    cost = {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}
    return {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120, "cost": cost}


def assistant(content: list[dict[str, Any]], stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "faux",
        "model": "faux-1",
        "usage": usage(),
        "stopReason": stop,
        "timestamp": 1,
    }


def user(text: str, images: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}, *(images or [])], "timestamp": 1}


def make_session(tmp_path: Path, messages: list[dict[str, Any]]) -> str:
    sm = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    for msg in messages:
        sm.append_message(msg)
    assert sm.session_file and Path(sm.session_file).exists()
    return sm.session_file


def test_branched_fixture_export(tmp_path: Path) -> None:
    out = export_session_html(str(BRANCHED), str(tmp_path / "out.html"))
    assert out == str(tmp_path / "out.html")
    html = Path(out).read_text(encoding="utf-8")

    # self-contained: nothing fetched from the network
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<link" not in html and "@import" not in html and "url(" not in html

    ids = [e["id"] for e in load_session_file(BRANCHED, rewrite_migrated=False).entries]
    data = embedded(html)
    assert [e["id"] for e in data["entries"]] == ids
    assert data["leafId"] == ids[-1]
    assert set(data["rendered"]) <= set(ids)
    # sidebar lists every entry of the tree, including the abandoned branch
    assert re.findall(r'data-id="([^"]+)"', html.split('<nav id="tree"', 1)[1].split("</nav>")[0]) and all(
        f'data-id="{i}"' in html for i in ids
    )

    column = messages_column(html)
    for text in (
        "Add a --verbose flag to the CLI",
        "Which argument parser",
        "Use click instead",
        "Switched to click.",
    ):
        assert text in column
    assert "Branch Summary" in column and "<h2>Goal</h2>" in column
    # the other branch is only in the tree / embedded data, not the server-rendered column
    assert "Use argparse" not in column and "Use argparse" in html
    # stats over the whole tree and theme colours
    assert "3 user, 3 assistant" in html and "openai/gpt-5" in html
    assert "--toolDiffAdded: #b5bd68;" in html and "--exportPageBg:" in html


def test_default_output_name_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "2025-11-10T14-02-11-009Z_abc.jsonl"
    shutil.copyfile(BRANCHED, src)
    monkeypatch.chdir(tmp_path)
    assert default_export_path(str(src)) == "pi-session-2025-11-10T14-02-11-009Z_abc.html"
    out = export_session_html(str(src), None)
    assert out == "pi-session-2025-11-10T14-02-11-009Z_abc.html"
    assert (tmp_path / out).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_script_in_message_is_escaped(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    session = make_session(
        tmp_path,
        [user(f"look: {evil}"), assistant([{"type": "text", "text": f"raw html {evil} <b>bold</b>"}])],
    )
    html = Path(export_session_html(session, str(tmp_path / "x.html"))).read_text(encoding="utf-8")
    assert "alert(1)</script>" not in html
    assert html.count("</script>") == 2  # only the data block and our renderer end a script element
    assert "alert(1)</" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in messages_column(html)
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<\\/script>" in html  # inside the embedded JSON
    assert embedded(html)["entries"][0]["message"]["content"][0]["text"] == f"look: {evil}"


def test_jsonl_target_copies_bytes(tmp_path: Path) -> None:
    target = tmp_path / "copy.jsonl"
    assert export_session(str(BRANCHED), str(target)) == str(target)
    assert target.read_bytes() == BRANCHED.read_bytes()
    # any other target is HTML
    html_out = export_session(str(BRANCHED), str(tmp_path / "page.html"))
    assert Path(html_out).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_edit_diff_tool_calls_and_images(tmp_path: Path) -> None:
    diff = " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma"
    edit_call = {"type": "toolCall", "id": "call_1", "name": "edit",
                 "arguments": {"path": "/w/f.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}}  # fmt: skip
    bash_call = {"type": "toolCall", "id": "call_2", "name": "bash", "arguments": {"command": "seq 1 20"}}
    session = make_session(
        tmp_path,
        [
            user("change it", [{"type": "image", "data": PNG_B64, "mimeType": "image/png"}]),
            assistant(
                [{"type": "thinking", "thinking": "I should <edit>"}, edit_call, bash_call], stop="toolUse"
            ),
            {
                "role": "toolResult",
                "toolCallId": "call_1",
                "toolName": "edit",
                "isError": False,
                "timestamp": 1,
                "content": [{"type": "text", "text": "Successfully replaced 1 block(s) in /w/f.txt."}],
                "details": {"diff": diff, "firstChangedLine": 2},
            },  # fmt: skip
            {
                "role": "toolResult",
                "toolCallId": "call_2",
                "toolName": "bash",
                "isError": False,
                "timestamp": 1,
                "content": [{"type": "text", "text": "\n".join(str(i) for i in range(1, 21))}],
            },  # fmt: skip
            assistant([{"type": "text", "text": "Done:\n\n```python\ndef f():\n    return 1\n```"}]),
        ],
    )
    html = Path(export_session_html(session, str(tmp_path / "d.html"))).read_text(encoding="utf-8")
    column = messages_column(html)
    assert '<div class="diff-added">+2 BETA</div>' in column
    assert '<div class="diff-removed">-2 beta</div>' in column
    assert '<div class="diff-context"> 1 alpha</div>' in column
    assert '<div class="tool-execution success">' in column
    # long bash output is collapsible, with the full text inside
    assert '<details class="tool-output expandable">' in column and "(15 more lines)" in column
    # thinking block and escaped thinking text
    assert '<details class="thinking-block" open>' in column and "I should &lt;edit&gt;" in column
    # inline image as data URI
    assert f'src="data:image/png;base64,{PNG_B64}"' in column
    # highlighted code block: Pygments classes plus their theme CSS
    assert '<span class="k">return</span>' in column and ".hl .k {" in html
    assert "1 tool results" not in html and "2 tool results" in html and "Tool Calls:</span>" in html


def test_system_prompt_tools_and_remote_images(tmp_path: Path) -> None:
    session = make_session(
        tmp_path,
        [user("hi"), assistant([{"type": "text", "text": "see ![logo](https://example.com/x.png)"}])],
    )
    tools = [{"name": "read", "description": "Read a <file>",
              "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]  # fmt: skip
    out = export_session_html(
        session, str(tmp_path / "s.html"), "light", system_prompt="Be <brief>.", tools=tools
    )
    html = Path(out).read_text(encoding="utf-8")
    assert (
        '<details class="system-prompt"><summary>System Prompt (1 lines)</summary><pre>Be &lt;brief&gt;.</pre>'
        in html
    )
    assert "Available Tools (1)" in html and "Read a &lt;file&gt;" in html and "required" in html
    # a remote markdown image is a plain link, never an <img src=...>
    assert not re.search(r"""src\s*=\s*["']https?:""", html)
    assert '<a href="https://example.com/x.png">logo</a>' in html
    data = embedded(html)
    assert data["systemPrompt"] == "Be <brief>." and data["tools"][0]["name"] == "read"


def test_missing_file_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="File not found"):
        export_session_html(str(tmp_path / "none.jsonl"), str(tmp_path / "o.html"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match="Nothing to export yet"):
        export_session_html(str(empty), str(tmp_path / "o.html"))
