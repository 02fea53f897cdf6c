"""Pure tests of the tree model: layout, filters, search, folding, segment jumps, labels, deep chains."""

from __future__ import annotations

import pytest

from pi_app.session.store import SessionManager
from tests.tree.helpers import FIXTURES, assistant, chain, entry, generated_session, tool_result, user
from widgets.tree import TreeModel


def rows(m: TreeModel) -> list[str]:
    return [m.row_text(r) for r in range(len(m))]


def fixture(name: str, **kw) -> TreeModel:
    return TreeModel.from_session(SessionManager.open(f"{FIXTURES}/{name}.jsonl"), **kw)


def forked() -> list[dict]:
    """root user → assistant a1 forks into three user branches; the first branch forks again."""
    return [
        user("u1", None, "start", 1),
        assistant("a1", "u1", "hello", 2),
        user("b1", "a1", "branch one", 3),
        assistant("b1a", "b1", "one answer", 4),
        user("c1", "b1a", "nested one", 5),
        user("c2", "b1a", "nested two", 6),
        user("b2", "a1", "branch two", 7),
        assistant("b2a", "b2", "two answer", 8),
        user("b3", "a1", "branch three", 9),
    ]


def test_branched_fixture_default_layout_labels_and_markers():
    m = fixture("branched")
    assert rows(m) == [
        "• [start] user: Add a --verbose flag to the CLI",
        "• assistant: Which argument parser do you want?",
        "├⊟ user: Use argparse",
        "│  assistant: Done with argparse.",
        "└⊟ • [branch summary]: The user explored a different conversation branch before returning here. "
        "Summary of that exploration: ## Goal Add --verbose using argparse. ## Progress - [x] Added the flag "
        "with argparse",
        "   • user: Use click instead",
        # the leaf is a label entry (hidden by default): its nearest visible ancestor carries the marker
        "   • assistant: Switched to click.  ← active",
    ]
    assert m.status_text() == "(7/7)"
    assert m.selected_id == "b0b00006"


def test_all_filter_shows_settings_and_tool_only_assistants():
    m = fixture("linear", filter_mode="all")
    texts = rows(m)
    assert texts[0] == "• [model: claude-sonnet-4-5]"
    assert "• assistant: → [read: main.py]" in texts
    assert "• [session name: Explain main.py]" in texts
    assert m.status_text().endswith("[all]")
    m.set_filter("default")
    assert "• assistant: → [read: main.py]" not in rows(m)
    assert "• [read: main.py]" in rows(m)


def test_no_tools_user_only_labeled_only():
    m = fixture("linear")
    m.filter_key("ctrl+t")
    assert m.filter_mode == "no-tools" and m.status_text() == "(4/4) [no-tools]"
    assert not any("[read:" in t for t in rows(m))
    m.filter_key("ctrl+t")
    assert m.filter_mode == "default"
    m.filter_key("ctrl+u")
    assert [t.split("user: ")[1] for t in rows(m)] == ["What does main.py do?", "Thanks!"]
    b = fixture("branched")
    b.filter_key("ctrl+l")
    assert rows(b) == ["• [start] user: Add a --verbose flag to the CLI"]
    assert b.status_text() == "(1/1) [labeled]"
    b.filter_key("ctrl+d")
    assert b.filter_mode == "default"


def test_ctrl_o_cycles_forward_and_back():
    m = fixture("linear")
    seen = []
    for _ in range(5):
        m.filter_key("ctrl+o")
        seen.append(m.filter_mode)
    assert seen == ["no-tools", "user-only", "labeled-only", "all", "default"]
    m.filter_key("ctrl+shift+o")
    assert m.filter_mode == "all"
    assert m.filter_key("ctrl+x") is False
    with pytest.raises(ValueError, match="Unknown tree filter"):
        m.set_filter("bogus")


def test_search_terms_all_must_match_case_insensitive():
    m = fixture("branched")
    m.set_query("USE click")
    assert rows(m) == ["• user: Use click instead"]
    assert m.status_text() == "(1/1)"
    m.set_query("argparse")
    assert [m.row(r).id for r in range(len(m))] == ["b0b00003", "b0b00004", "5b5b5b01"]
    m.set_query("user assistant")  # role words are searchable, but no entry is both
    assert len(m) == 0
    m.set_query("user parser")
    assert len(m) == 0
    m.set_query("assistant parser")
    assert [m.row(r).id for r in range(len(m))] == ["b0b00002"]
    m.set_query("start")  # labels are searchable
    assert rows(m) == ["• [start] user: Add a --verbose flag to the CLI"]
    m.set_query("zzz nothing")
    assert len(m) == 0 and m.status_text() == "(0/0)" and m.selected_id is None
    m.set_query("")
    assert len(m) == 7


def test_type_and_backspace_edit_query():
    m = fixture("branched")
    for ch in "argp":
        m.type_text(ch)
    assert m.query == "argp"
    assert all("argparse" in t.lower() for t in rows(m))
    m.backspace()
    assert m.query == "arg"
    m.set_query("")
    m.backspace()
    assert m.query == ""


def test_selection_moves_to_nearest_visible_ancestor_on_filter():
    m = TreeModel(forked(), "b2a")
    m.select("b1a")
    m.set_filter("user-only")
    assert m.selected_id == "b1"
    m.set_filter("default")
    assert m.selected_id == "b1"


def test_nested_forks_use_gutters_and_indent_only_at_forks():
    m = TreeModel(forked(), "b2a")
    assert rows(m) == [
        "• user: start",
        "• assistant: hello",
        "├⊟ user: branch one",
        "│  assistant: one answer",
        "│  ├─ user: nested one",
        "│  └─ user: nested two",
        "├⊟ • user: branch two",
        "│  • assistant: two answer  ← active",
        "└─ user: branch three",
    ]


def test_children_ordered_oldest_first_regardless_of_file_order():
    entries = forked()
    entries[6], entries[8] = entries[8], entries[6]  # b3 (later timestamp) now before b2 in the file
    m = TreeModel(entries, "b2a")
    order = [m.row(r).id for r in range(len(m))]
    assert order.index("b2") < order.index("b3")


def test_move_wraps_and_page_clamps():
    m = TreeModel(forked(), "b2a", page_size=3)
    m.first()
    m.move(-1)
    assert m.selected == len(m) - 1
    m.move(1)
    assert m.selected == 0
    m.page(1)
    assert m.selected == 3
    m.page(10)
    assert m.selected == len(m) - 1
    m.page(-10)
    assert m.selected == 0


def test_fold_unfold_and_segment_jumps():
    m = TreeModel(forked(), "b2a")
    m.select("b1")
    assert m.is_foldable("b1") and not m.is_foldable("b1a") and m.is_foldable("u1")
    m.fold_or_up()
    assert "b1" in m.folded
    assert rows(m)[2:4] == ["├⊞ user: branch one", "├⊟ • user: branch two"]
    m.fold_or_up()  # already folded: jump up to the previous segment start (none: the root)
    assert m.selected_id == "u1"
    m.select("b1")
    m.unfold_or_down()
    assert not m.folded and len(m) == 9
    m.unfold_or_down()  # next segment start going down: first child of the next fork
    assert m.selected_id == "c1"
    m.select("b2a")
    m.fold_or_up()  # not foldable: jump to its segment start
    assert m.selected_id == "b2"
    m.select("b3")
    m.unfold_or_down()  # no further fork: the branch end (itself)
    assert m.selected_id == "b3"
    # folded roots show the marker before the text
    m.select("u1")
    m.fold_or_up()
    assert rows(m) == ["⊞ • user: start"]  # the active leaf is folded away: no marker
    m.set_query("branch")  # search resets folds
    assert not m.folded


def test_labels_update_rows_filter_and_search():
    m = fixture("branched")
    m.set_label("b0b00005", "click-way")
    m.set_filter("labeled-only")
    assert [m.row(r).id for r in range(len(m))] == ["b0b00001", "b0b00005"]
    m.set_filter("default")
    m.set_query("click-way")
    assert rows(m) == ["• [click-way] user: Use click instead"]
    m.set_label("b0b00005", "  ")
    assert len(m) == 0
    with pytest.raises(KeyError):
        m.set_label("nope", "x")


def test_display_text_per_entry_type():
    entries = [
        user("u", None, "line one\nline two", 1),
        assistant(
            "a",
            "u",
            "",
            2,
            calls=[
                ("c1", "read", {"path": "/home/t/p/a.py", "offset": 5, "limit": 10}),
                ("c2", "bash", {"command": "x" * 60}),
            ],
        ),
        tool_result("r1", "a", "c1", "read", "file text", 3),
        tool_result("r2", "r1", "c2", "bash", "boom", 4, error=True),
        tool_result("r3", "r2", "zz", "mytool", "?", 5),
        assistant("ab", "r3", "", 6, stop="aborted"),
        assistant("ae", "ab", "", 7, stop="error", error="429 rate\nlimited"),
        entry("compaction", "k", "ae", 8, summary="S", firstKeptEntryId="u", tokensBefore=12_345),
        entry("branch_summary", "bs", "k", 9, fromId="u", summary="went\nelsewhere"),
        entry("custom_message", "cm", "bs", 10, customType="ext", content="hi there", display=True),
        entry("model_change", "mc", "cm", 11, provider="p", modelId="m-1"),
        entry("thinking_level_change", "tl", "mc", 12, thinkingLevel="high"),
        entry("custom", "cu", "tl", 13, customType="state", data={"a": 1}),
        entry("label", "lb", "cu", 14, targetId="u", label=None),
        entry("session_info", "si", "lb", 15, name="My work"),
        assistant(
            "g",
            "si",
            "",
            16,
            calls=[("c3", "grep", {"pattern": "foo", "path": "src"}), ("c4", "frob", {"k": "v"})],
        ),
    ]
    m = TreeModel(entries, "si", filter_mode="all", home="/home/t")
    got = [f"{m.row(r).text.tag}{m.row(r).text.body}" for r in range(len(m))]
    assert got == [
        "user: line one line two",
        "assistant: → [read: ~/p/a.py:5-14], [bash: " + "x" * 50 + "...]",
        "[read: ~/p/a.py:5-14]",
        "[bash: " + "x" * 50 + "...]",
        "[mytool]",
        "assistant: (aborted)",
        "assistant: 429 rate limited",
        "[compaction: 12k tokens]",
        "[branch summary]: went elsewhere",
        "[ext]: hi there",
        "[model: m-1]",
        "[thinking: high]",
        "[custom: state]",
        "[label: (cleared)]",
        "[session name: My work]",
        'assistant: → [grep: /foo/ in src], [frob: {"k":"v"}]',
    ]
    assert m.row(3).text.style == "error"


def test_preview_entry_text_and_path_outline():
    m = fixture("compacted", filter_mode="all")
    tool_row = next(m.row(r) for r in range(len(m)) if m.row(r).text.body.startswith("[read"))
    sections = m.preview(tool_row.id)
    assert sections[0][0] == "tool call" and "[read: src/auth.ts]" in sections[0][1]
    assert sections[1][0] == "result of read"
    comp = next(m.row(r) for r in range(len(m)) if "compaction" in m.row(r).text.body)
    assert m.entry_text(comp.id) == m.entry(comp.id)["summary"]
    total, marks = m.path_outline(m.leaf_id)
    assert total == len(m.path_to(m.leaf_id)) == 15
    assert [d.tag + d.body for _, d, _ in marks][:2] == ["user: Fix the login bug", "user: Implement it"]
    assert marks[-1][0] == m.leaf_id
    assert m.is_user_entry(marks[0][0]) and not m.is_user_entry(comp.id)


def test_deep_chain_stays_flat_and_iterative():
    entries = chain("d", None, 12_000)
    entries.append(user("x", "d5", "side", 99_999))
    m = TreeModel(entries, "d11999")
    assert len(m) == 12_001
    assert m.row(0).prefix == "" and m.row(5).prefix == ""
    assert m.row(6).prefix == "├⊟ " and m.row(7).prefix == "│  "
    assert m.row(len(m) - 1).prefix == "└─ "
    assert m.selected_id == "d11999" and m.row(m.selected).is_active
    m.set_query("side")
    assert len(m) == 1


def test_orphans_become_roots_and_cycles_do_not_hang():
    entries = [
        user("a", None, "first root", 1),
        user("o", "missing", "orphan", 2),
        user("c1", "c2", "cycle one", 3),
        user("c2", "c1", "cycle two", 4),
        user("s", "s", "self parent", 5),
    ]
    m = TreeModel(entries, None)
    assert len(m) == 5
    # the entries of a parent cycle are cut into a root of their own
    assert rows(m) == [
        "├─ user: first root",
        "├─ user: orphan",
        "├─ user: self parent",
        "└⊟ user: cycle one",
        "   user: cycle two",
    ]
    assert not any(m.row(r).is_active for r in range(len(m)))


def test_generated_session_shape():
    entries = generated_session(total=2_000, forks=40)
    m = TreeModel(entries, "m1839")
    assert m.total_entries == 2_000
    m.filter_key("ctrl+u")
    m.set_query("alternative")
    assert len(m) == 40


def test_usage_entries_are_never_rows_and_a_usage_leaf_marks_its_message_active():
    """pi 1.6 writes ``usage`` entries (cache warming): accounting, hidden in the tree in every filter."""
    entries = [
        user("u1", None, "start", 1),
        {**entry("usage", "w1", "u1", 2, usage={}), "kind": "cache_warm"},
        assistant("a1", "w1", "hello", 3),
        {**entry("usage", "w2", "a1", 4, usage={}), "kind": "some_future_kind"},
    ]
    for mode in ("default", "all"):
        m = TreeModel(entries, "w2", filter_mode=mode)
        shown = rows(m)
        assert len(shown) == 2, shown
        assert shown[1].startswith("• assistant: hello") and shown[1].endswith("← active")
