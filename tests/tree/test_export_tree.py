"""The HTML export's tree sidebar follows /tree's rules on deep trees: spine, folded stubs, capped indent."""

from __future__ import annotations

import re

from pi_app.session.export.tree import INDENT_CAP, flatten_tree, render_tree
from tests.tree.helpers import branchy_session, forked_small


def active_path(entries: list[dict], leaf: str) -> set[str]:
    parent = {e["id"]: e["parentId"] for e in entries}
    out: set[str] = set()
    cur: str | None = leaf
    while cur is not None:
        out.add(cur)
        cur = parent.get(cur)
    return out


def test_deep_export_tree_is_a_spine_with_folded_side_branches():
    entries = branchy_session(10_000, 50)
    leaf = entries[-1]["id"]
    path = active_path(entries, leaf)
    rows = flatten_tree(entries, path)
    assert len(rows) == 10_000
    assert all(r.depth == 0 for r in rows if r.on_active_path)
    stubs = [r for r in rows if r.stub_size]
    assert len(stubs) == 199 and stubs[-1].stub_size == 26
    assert sum(r.stub_closes for r in rows) == 199
    # each stub sits right after its fork point on the spine
    for k, r in enumerate(rows):
        if r.stub_size:
            assert rows[k - 1].on_active_path or rows[k - 1].stub_closes
    html = render_tree(entries, path, leaf)
    assert html.count("<details") == html.count("</details>") == 199
    assert "└⊞ 26 entries ·" in html
    assert len(set(re.findall(r'data-id="([^"]+)"', html))) == 10_000
    pads = [float(p) for p in re.findall(r"padding-left:([0-9.]+)em", html)]
    assert max(pads) <= 0.4 + INDENT_CAP * 1.1 + 0.01
    assert f'class="tree-node active-path current" href="?leafId={leaf}"' in html


def test_deep_side_branch_rows_are_capped_with_a_depth_marker():
    entries = branchy_session(10_000, 50)
    path = active_path(entries, "e30")  # nearly the whole session is one side branch, ~200 forks deep
    html = render_tree(entries, path, "e30")
    assert re.search(r'<span class="tree-muted">\d{3}›</span>', html)
    pads = [float(p) for p in re.findall(r"padding-left:([0-9.]+)em", html)]
    assert max(pads) <= 0.4 + INDENT_CAP * 1.1 + 0.01


def test_shallow_export_tree_keeps_its_layout():
    entries = forked_small()
    rows = flatten_tree(entries, active_path(entries, "b2a"))
    assert not any(r.stub_size for r in rows)
    assert [(r.entry["id"], r.depth) for r in rows][:3] == [("u1", 0), ("a1", 0), ("b2", 1)]
