"""The fast paths behind the tree budgets: facts read from unparsed lines, lazy tool-call lookup, the cached
model per session, preview wrapping, and cursor moves that repaint without a screen layout pass."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.session.store import SessionManager
from pi_app.session.store.record import EntryRecord
from tests.tree.helpers import FIXTURES, assistant, chain, tool_result, user
from tests.tree.host import HostApp
from widgets.tree import TreeModel
from widgets.tree.peek import message_facts
from widgets.tree.preview import wrap_line
from widgets.tree.screen import TreeBrowserScreen


def record(e: dict) -> EntryRecord:
    """An EntryRecord as the loader makes it: tree fields set, the line kept as text and not yet parsed."""
    return EntryRecord(
        e["type"], e["id"], e["parentId"], e["timestamp"], raw=json.dumps(e, separators=(",", ":"))
    )


def test_message_facts_from_unparsed_lines_match_the_parsed_dicts():
    cases = [
        user("u", None, "hi"),
        assistant("a", "u", "some text"),
        assistant("t", "u", "", calls=[("c1", "read", {"path": "a.py"})], stop="toolUse"),
        assistant("ws", "u", "", calls=[("c2", "ls", {})], stop="toolUse"),
        assistant("ab", "u", "", calls=[("c3", "ls", {})], stop="aborted"),
        assistant("er", "u", "", stop="error", error="boom"),
        tool_result("r", "t", "c1", "read", "x = 1"),
    ]
    cases[3]["message"]["content"].insert(
        0, {"type": "text", "text": "\n  \t"}
    )  # blank text: still tool-only
    expected = [("user", False), ("assistant", False), ("assistant", True), ("assistant", True)]
    expected += [("assistant", False), ("assistant", False), ("toolResult", False)]
    for e, want in zip(cases, expected, strict=True):
        rec = record(e)
        assert message_facts(rec) == want, e["id"]
        assert rec._data is None, "the line was parsed"
        assert message_facts(e) == want, e["id"]


def test_model_reads_only_the_lines_it_shows_and_finds_tool_calls_lazily():
    entries = [
        user("u", None, "read it", 1),
        assistant(
            "t",
            "u",
            "",
            2,
            calls=[("c1", "read", {"path": "/home/me/a.py", "offset": 3, "limit": 2})],
            stop="toolUse",
        ),
        tool_result("r", "t", "c1", "read", "x = 1", 3),
        *chain("m", "r", 40, start=4),
    ]
    recs = [record(e) for e in entries]
    m = TreeModel(recs, "m39", home="/home/me")
    assert all(r._data is None for r in recs), "building the tree parsed lines"
    m.select("r")
    assert m.row(m.selected).text.body == "[read: ~/a.py:3-4]"
    assert [r.id for r in recs if r._data is not None] == ["t", "r"]  # the result and the turn with its call
    assert "t" not in [m.row(i).id for i in range(len(m))]  # tool-only turn hidden by the default filter
    m.set_filter("all")
    assert "t" in [m.row(i).id for i in range(len(m))]


def test_for_session_builds_once_and_resets_state(tmp_path: Path):
    src = Path(f"{FIXTURES}/branched.jsonl")
    path = tmp_path / "s.jsonl"
    path.write_bytes(src.read_bytes())
    sm = SessionManager.open(str(path))
    m1 = TreeModel.for_session(sm)
    other = m1.row(0).id
    assert other != sm.leaf_id
    m1.filter_key("ctrl+u")
    m1.set_query("use")
    m1.folded.add("x")
    sm.branch(other)
    m2 = TreeModel.for_session(sm)
    assert m2 is m1
    assert (m2.filter_mode, m2.query, m2.folded) == ("default", "", set())
    assert m2.leaf_id == other and m2.selected_id == other
    sm.append_label_change(other, "here")  # a new entry: the model is rebuilt
    m3 = TreeModel.for_session(sm)
    assert m3 is not m1 and m3.labels[other] == "here"
    assert TreeModel.for_session(SessionManager.open(str(path))) is not m3  # another session object


def test_wrap_line_fits_width_and_keeps_text():
    text = "the quick brown fox " + "x" * 23 + " jumps"
    lines = wrap_line(text, 10)
    assert all(len(line) <= 10 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert wrap_line("short", 10) == ["short"]
    assert wrap_line("", 10) == [""]


async def test_cursor_move_repaints_without_a_layout_pass():
    model = TreeModel.from_session(SessionManager.open(f"{FIXTURES}/compacted.jsonl"))
    app = HostApp(lambda: TreeBrowserScreen(model))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        layouts = []
        original = screen._refresh_layout

        def counting(*args, **kwargs):
            layouts.append(args)
            return original(*args, **kwargs)

        screen._refresh_layout = counting
        before = screen.preview_pane.plain
        await pilot.press("up")
        await pilot.press("up")
        assert screen.preview_pane.plain != before  # the preview followed the cursor
        assert layouts == []


def test_tool_set_log_entries_are_bookkeeping_and_the_active_mark_stays_visible():
    from widgets.tree.model import ACTIVE_MARK, TreeModel

    def msg(eid, parent, role, text):
        m = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
        if role == "assistant":
            m.update(api="x", provider="p", model="m", stopReason="stop", usage={})
        return {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": f"2026-01-01T00:00:0{eid[-1]}Z",
            "message": m,
        }

    system = {"role": "system", "content": "", "toolsAdded": [{"name": "read"}], "timestamp": 1}
    entries = [
        {
            "type": "message",
            "id": "00000001",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01Z",
            "message": system,
        },
        msg("00000002", "00000001", "user", "hi"),
        msg("00000003", "00000002", "assistant", "a very long answer " * 20),
    ]
    model = TreeModel(entries, "00000003")
    assert [model.row(i).id for i in range(len(model))] == ["00000002", "00000003"]
    model.set_filter("all")
    assert len(model) == 3
    assert ACTIVE_MARK in model.row_text(len(model) - 1)


def test_opening_a_deep_tree_reads_the_spine_and_stubs_not_the_side_branches():
    """Structural guard (issue 18/15): a 10,000-entry branchy session opens without reading the entries inside
    its folded side branches, parses no line until rows are drawn, and then only the drawn ones; unfolding a
    stub reads that side branch only."""
    from tests.tree.helpers import branchy_session

    entries = branchy_session(10_000, 50)
    recs = [record(e) for e in entries]
    m = TreeModel(recs, recs[-1].id)
    assert m.spine
    shape = m._t
    spine = len(m.path_to(recs[-1].id))
    assert not any(r.is_parsed for r in recs), "building the tree parsed lines"
    drawn = range(len(m) - 40, len(m))
    for r in drawn:
        m.row_text(r)
    assert sum(r.is_parsed for r in recs) <= len(drawn)  # the drawn rows' entries only
    stubs = [r for r in range(len(m)) if m.row(r).stub]
    assert len(stubs) == 199
    # the spine's entries, each stub's first entry and the first one under it (does it have any)
    assert shape.facts_read <= spine + 2 * len(stubs)
    assert shape.facts_read < len(recs) * 0.6
    # containers made per fork point, not per spine entry: the spine's entries have no child lists of their own
    assert len(m._rchildren) <= len(m._spine_forks) + 1
    assert not m._vchildren  # nothing is unfolded: no visible subtree has been entered
    before = shape.facts_read
    stub = m.row(stubs[-1]).id
    size = int(m.row(stubs[-1]).stub.split()[0])
    m.unfold(stub)
    assert not m.is_folded(stub)
    assert 0 < shape.facts_read - before <= size


async def test_a_closed_browser_lets_its_model_go_before_the_next_big_build_freezes_the_heap():
    """A closed browser is cyclic garbage until the collector runs, and building a big model freezes what is
    alive (settle_heap): the closed screen must not be holding its model then, or the tree is kept for good."""
    import weakref

    from tests.tree.helpers import branchy_session

    entries = branchy_session(6_000, 10)
    app = HostApp(lambda: TreeBrowserScreen(TreeModel([], None)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        model = TreeModel(entries, entries[-1]["id"])
        gone = weakref.ref(model)
        screen = TreeBrowserScreen(model)
        screen_gone = weakref.ref(screen)
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        del model, screen
        TreeModel(entries, entries[-1]["id"])  # the next big build (its heap is frozen)
        assert gone() is None
        assert screen_gone() is None  # the closed screen's widgets too, not frozen as they were


async def test_a_closed_browser_does_not_leave_its_drawn_lines_in_textuals_colour_cache():
    """Textual's ``StylesCache.get_inner_outer`` is an lru_cache keyed on the widget's styles cache: without
    ``release_closed_widgets`` every browser opened and closed kept its widgets' drawn lines (0.5 MB a visit
    at 10,000 entries) until 1,024 newer entries pushed them out."""
    import gc
    import weakref

    from tests.tree.helpers import branchy_session

    entries = branchy_session(300, 10)
    app = HostApp(lambda: TreeBrowserScreen(TreeModel([], None)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = TreeBrowserScreen(TreeModel(entries, entries[-1]["id"]))
        await app.push_screen(screen)
        await pilot.pause()
        drawn = [weakref.ref(w._styles_cache) for w in screen.query("*")]
        assert drawn
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        del screen
        gc.collect()
        assert [r for r in drawn if r() is not None] == []
