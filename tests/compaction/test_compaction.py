import pytest

from pi_app.ai.providers.faux import faux_error, faux_model, faux_text
from pi_app.session.compaction.cut_point import (
    find_cut_point,
    prepare_branch_entries,
    prepare_compaction,
)
from pi_app.session.compaction.estimate import estimate_context_tokens, estimate_tokens, should_compact
from pi_app.session.compaction.serialize import serialize_conversation
from pi_app.session.compaction.summarize import (
    SummarizationError,
    compact,
    generate_branch_summary,
)
from pi_app.session.messages import parse_agent_message

_n = 0


def _id() -> str:
    global _n
    _n += 1
    return f"{_n:08x}"


def user(text):
    return {
        "type": "message",
        "id": _id(),
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
    }


def assistant(text="", calls=(), usage_total=0, stop="stop"):
    content = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "toolCall", "id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(calls)
    ]
    return {
        "type": "message",
        "id": _id(),
        "message": {
            "role": "assistant",
            "content": content,
            "api": "faux",
            "provider": "faux",
            "model": "faux-1",
            "usage": {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": usage_total,
                "cost": {},
            },
            "stopReason": stop,
            "timestamp": 2,
        },
    }


def result(text, call_id="c0", name="read"):
    return {
        "type": "message",
        "id": _id(),
        "message": {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": 3,
        },
    }


def test_estimates_and_threshold():
    msgs = [
        parse_agent_message(e["message"])
        for e in (user("a" * 40), assistant("b" * 8, usage_total=1000), user("c" * 400))
    ]
    assert estimate_tokens(msgs[0]) == 10
    est = estimate_context_tokens(msgs)
    assert (est.tokens, est.usage_tokens, est.trailing_tokens, est.last_usage_index) == (1100, 1000, 100, 1)
    assert should_compact(1100, 2000, 1000) and not should_compact(1000, 2000, 1000)
    assert not should_compact(5000, 2000, 1000, enabled=False)
    # an errored assistant's usage is not trusted
    err = parse_agent_message(assistant("x", usage_total=99999, stop="error")["message"])
    assert estimate_context_tokens([msgs[0], err]).last_usage_index is None


def test_cut_never_at_tool_result_and_split_turn():
    path = [
        user("u1 " * 100),
        assistant("a1 " * 100),
        user("u2 " * 10),
        assistant("", calls=[("read", {"path": "big.txt"})]),
        result("r " * 2000),
        assistant("", calls=[("edit", {"path": "x.py", "edits": []})]),
        result("ok", name="edit"),
        assistant("done " * 10),
    ]
    cp = find_cut_point(path, 0, len(path), keep_recent_tokens=50)
    assert path[cp.first_kept_index]["message"]["role"] == "assistant"
    assert cp.is_split_turn and cp.turn_start_index == 2

    prep = prepare_compaction(path, keep_recent_tokens=50)
    assert prep.is_split_turn
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant"]
    assert [m.role for m in prep.turn_prefix_messages] == ["user", "assistant", "toolResult"]
    assert prep.file_ops.lists() == (["big.txt"], [])


def test_cut_extends_over_settings_entries_and_skips_after_compaction():
    path = [
        user("old " * 400),
        {"type": "model_change", "id": _id(), "provider": "p", "modelId": "m"},
        user("new " * 400),
        assistant("x"),
    ]
    cp = find_cut_point(path, 0, len(path), keep_recent_tokens=300)
    assert cp.first_kept_index == 1 and not cp.is_split_turn
    assert (
        prepare_compaction(
            path + [{"type": "compaction", "id": _id(), "summary": "s", "firstKeptEntryId": "x"}], 10
        )
        is None
    )


def test_serialize_truncates_tool_results():
    msgs = [
        parse_agent_message(user("hi")["message"]),
        parse_agent_message(assistant("ok", calls=[("read", {"path": "a"})])["message"]),
        parse_agent_message(result("z" * 2500)["message"]),
    ]
    text = serialize_conversation(msgs)
    assert text.startswith('[User]: hi\n\n[Assistant]: ok\n\n[Assistant tool calls]: read(path="a")')
    assert text.endswith("[... 500 more characters truncated]")


async def test_compact_request_and_file_tags(faux):
    path = [
        user("u1 " * 200),
        assistant("", calls=[("write", {"path": "new.py", "content": "x"})]),
        result("ok", name="write"),
        user("u2 " * 200),
        assistant("fine " * 50),
    ]
    prep = prepare_compaction(path, keep_recent_tokens=100)
    faux.enqueue(faux_text("## Goal\nship it"))
    res = await compact(prep, faux_model(), 16384, "k", custom_instructions="the parser")
    assert res.summary == "## Goal\nship it\n\n<modified-files>\nnew.py\n</modified-files>"
    assert res.details == {"readFiles": [], "modifiedFiles": ["new.py"]}
    sent = faux.requests[0]
    prompt = sent.messages[0].content[0].text
    assert prompt.startswith("<conversation>\n[User]: u1")
    assert prompt.endswith("Additional focus: the parser")
    assert "## Critical Context" in prompt
    assert faux.options[0].max_tokens == int(0.8 * 16384)
    assert faux.options[0].reasoning == "high"


async def test_compact_error_says_summarization_failed(faux):
    path = [user("u1 " * 200), assistant("a " * 200), user("u2 " * 200), assistant("b " * 200)]
    prep = prepare_compaction(path, keep_recent_tokens=100)
    faux.enqueue(faux_error("503 overloaded"))
    with pytest.raises(SummarizationError, match="^Summarization failed: 503 overloaded$"):
        await compact(prep, faux_model(), 16384, "k")


async def test_branch_summary_budget_and_preamble(faux):
    entries = [
        user("a " * 1000),
        assistant("b " * 1000),
        user("c " * 10),
        assistant("", calls=[("read", {"path": "r.md"})]),
        result("skipped"),
    ]
    prep = prepare_branch_entries(entries, token_budget=200)
    assert [m.role for m in prep.messages] == ["user", "assistant"]
    faux.enqueue(faux_text("## Goal\nexplore"))
    res = await generate_branch_summary(entries, faux_model(), "k")
    assert res.summary.startswith("The user explored a different conversation branch before returning here.")
    assert res.summary.endswith("<read-files>\nr.md\n</read-files>")
    assert (await generate_branch_summary([], faux_model(), "k")).summary == "No content to summarize"
