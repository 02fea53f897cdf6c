"""The exported page in a real browser (Debian's headless Chromium driven by Playwright): clicking a tree
entry shows its branch, search and every sidebar filter narrow the tree as pi's export does.

Playwright, not Selenium: one pip package drives the system Chromium directly (``executable_path``, no
separate chromium-driver to keep in step), and its waits follow page state instead of polling sleeps.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pi_app.session.export import export_session_html

CHROMIUM = os.environ.get("PI_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"no Chromium at {CHROMIUM} (install Debian's 'chromium' package; .ci/run does)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright not installed (pip install -e '.[test]')"
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def ts(n: int) -> str:
    return f"2026-11-20T10:{n // 60:02d}:{n % 60:02d}.000Z"


def entry(eid: str, parent: str | None, n: int, **fields: Any) -> dict[str, Any]:
    return {"id": eid, "parentId": parent, "timestamp": ts(n), **fields}


def msg(eid: str, parent: str | None, n: int, role: str, text: str = "", **extra: Any) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += extra.pop("calls", [])
    return entry(eid, parent, n, type="message", message={"role": role, "content": content, **extra})


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args}


def result(eid: str, parent: str, n: int, cid: str, name: str, text: str) -> dict[str, Any]:
    return msg(eid, parent, n, "toolResult", text, toolCallId=cid, toolName=name, isError=False)


# u1 -> a1 (text + call) -> t1 -> a2 (calls only) -> t2 -> label(u1) -> a3, which forks:
#   older:  u2 -> a4                       newer (the file's leaf): th1 -> u3 -> a5
ENTRIES = [
    entry("m1", None, 0, type="model_change", provider="faux", modelId="faux-1"),
    msg("u1", "m1", 1, "user", "Add a verbose flag"),
    msg(
        "a1",
        "u1",
        2,
        "assistant",
        "Let me look at cli.py",
        calls=[call("c1", "read", path="cli.py")],
        stopReason="toolUse",
    ),
    result("t1", "a1", 3, "c1", "read", "def main(): pass"),
    msg("a2", "t1", 4, "assistant", calls=[call("c2", "bash", command="pytest -q")], stopReason="toolUse"),
    result("t2", "a2", 5, "c2", "bash", "3 passed zebra-output"),
    entry("l1", "t2", 6, type="label", targetId="u1", label="start"),
    msg("a3", "l1", 7, "assistant", "Added --verbose using argparse.", stopReason="stop"),
    msg("u2", "a3", 8, "user", "Now write tests"),
    msg("a4", "u2", 9, "assistant", "Tests written.", stopReason="stop"),
    entry("th1", "a3", 20, type="thinking_level_change", thinkingLevel="high"),
    msg("u3", "th1", 21, "user", "Use click instead"),
    msg("a5", "u3", 22, "assistant", "Switched to click.", stopReason="stop"),
]


def write_session(path: Path, entries: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "b70w5e12", "timestamp": ts(0), "cwd": "/tmp/project"}
    path.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def open_export(browser: Browser, tmp_path: Path, entries: list[dict[str, Any]]) -> Page:
    out = export_session_html(str(write_session(tmp_path / "s.jsonl", entries)), str(tmp_path / "s.html"))
    page = browser.new_page()
    errors: list[str] = []
    urls: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: urls.append(request.url))
    page.goto(Path(out).as_uri())
    page.wait_for_selector("html[data-ready]", state="attached")
    assert errors == []
    assert all(u.startswith(("file:", "data:")) for u in urls), urls  # self-contained: nothing fetched
    return page


STATE_JS = """() => {
  const ids = sel => [...document.querySelectorAll(sel)].map(e => e.dataset.id);
  return {
    rows: [...document.querySelectorAll('#tree .tree-node')].filter(e => e.checkVisibility()).map(e => e.dataset.id),
    status: document.getElementById('tree-status').textContent,
    current: ids('#tree .tree-node.current'),
    onPath: ids('#tree .tree-node.active-path'),
    messages: document.getElementById('messages').innerText,
    pressed: [...document.querySelectorAll('#tree-filters [aria-pressed="true"]')].map(e => e.dataset.filter),
    search: document.getElementById('tree-search').value,
    pads: Object.fromEntries([...document.querySelectorAll('#tree .tree-node')]
      .map(e => [e.dataset.id, (e.parentElement.tagName === 'SUMMARY' ? e.parentElement : e).style.paddingLeft])),
  };
}"""


def state(page: Page) -> dict[str, Any]:
    """What a reader sees, in one round trip: the tree rows shown (not hidden, not inside a closed or
    hidden stub), the status line, the current and on-path rows, the message column, the pressed filter."""
    return page.evaluate(STATE_JS)


def test_branch_click_search_and_filters(browser: Browser, tmp_path: Path) -> None:
    page = open_export(browser, tmp_path, ENTRIES)
    try:
        st = state(page)
        # opens on the file's leaf, default filter: settings entries and call-only turns are hidden
        assert "Switched to click." in st["messages"] and "Tests written." not in st["messages"]
        assert st["rows"] == ["u1", "a1", "t1", "t2", "a3", "u3", "a5", "u2", "a4"]
        assert st["status"] == "9 / 13 entries" and st["pressed"] == ["default"]
        # the fork at a3 indents both branches once; the chain above stays flush
        assert st["pads"]["u1"] == "0.4em" and st["pads"]["u3"] == st["pads"]["u2"] == "1.5em"

        # clicking an entry of the other branch shows that branch down to its newest leaf
        page.click('#tree .tree-node[data-id="u2"]')
        st = state(page)
        assert "Now write tests" in st["messages"] and "Tests written." in st["messages"]
        assert "Switched to click." not in st["messages"]
        assert st["current"] == ["u2"]
        assert {"u1", "a3", "u2", "a4"} <= set(st["onPath"]) and not {"u3", "a5"} & set(st["onPath"])

        # search over the whole tree: every token must match; the shown branch's leaf stays listed, and (as
        # pi) once the tree is narrowed again the shown branch comes first at the fork
        for query, rows in (
            ("zebra", ["t2", "a4"]),
            ("ARGPARSE added", ["a3", "a4"]),
            ("click", ["a4", "u3", "a5"]),
            ("", ["u1", "a1", "t1", "t2", "a3", "u2", "a4", "u3", "a5"]),
        ):
            page.fill("#tree-search", query)
            st = state(page)
            assert st["rows"] == rows, query
            assert st["status"] == f"{len(rows)} / 13 entries", query

        for key, rows in (
            ("no-tools", ["u1", "a1", "a3", "u2", "a4", "u3", "a5"]),
            ("user-only", ["u1", "u2", "a4", "u3"]),
            ("labeled-only", ["u1", "a4"]),
            ("all", ["m1", "u1", "a1", "t1", "t2", "l1", "a3", "u2", "a4", "th1", "u3", "a5"]),
            ("default", ["u1", "a1", "t1", "t2", "a3", "u2", "a4", "u3", "a5"]),
        ):
            page.click(f'#tree-filters .filter-btn[data-filter="{key}"]')
            st = state(page)
            assert st["rows"] == rows, key
            assert st["status"] == f"{len(rows)} / 13 entries", key
            assert st["pressed"] == [key]
            if key == "user-only":  # re-indented by the nearest shown ancestor: u1 forks into u3 and u2
                assert st["pads"]["u1"] == "0.4em" and st["pads"]["u3"] == st["pads"]["a4"] == "1.5em"
        # a label shows in its row; a filter combines with search
        assert "[start]" in page.inner_text('#tree .tree-node[data-id="u1"]')
        page.click('#tree-filters .filter-btn[data-filter="user-only"]')
        page.fill("#tree-search", "verbose")
        assert state(page)["rows"] == ["u1", "a4"]

        # Escape clears the search and goes back to the file's leaf
        page.keyboard.press("Escape")
        st = state(page)
        assert st["search"] == "" and "Switched to click." in st["messages"]
        assert st["rows"] == ["u1", "u3", "a5", "u2"]  # its own branch first again
    finally:
        page.close()


def test_search_opens_folded_side_branches_of_a_deep_tree(browser: Browser, tmp_path: Path) -> None:
    # twelve forks along the path, each with a two-entry side branch: deeper than the indent cap, so the
    # sidebar uses the spine layout with folded stubs
    entries = [msg("p0", None, 0, "user", "start")]
    for k in range(1, 13):
        entries.append(msg(f"s{k}", f"p{k - 1}", 3 * k - 2, "user", f"side question {k}"))
        entries.append(msg(f"r{k}", f"s{k}", 3 * k - 1, "assistant", f"side answer {k}", stopReason="stop"))
        entries.append(msg(f"p{k}", f"p{k - 1}", 3 * k, "user", f"main question {k}"))
    page = open_export(browser, tmp_path, entries)
    try:
        assert page.get_attribute("#tree", "data-layout") == "spine"
        assert "r7" not in state(page)["rows"]  # folded
        page.fill("#tree-search", "side answer 7")
        assert state(page)["rows"] == ["r7", "p12"]
        assert page.inner_text("#tree details.tree-stub[open] .tree-stub-size") == "└⊞ 1 of 2 entries ·"
        page.fill("#tree-search", "")
        st = state(page)
        assert "r7" not in st["rows"] and "s7" in st["rows"]  # folded again, its head still listed
        assert page.locator("#tree details.tree-stub[open]").count() == 0
        page.click('#tree .tree-node[data-id="p3"]')
        assert "main question 12" in state(page)["messages"]  # the newest leaf below p3
    finally:
        page.close()
