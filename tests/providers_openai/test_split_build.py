"""A long transcript's Chat Completions body encoded in two parts at once (issue 15: the 50k resume uses
the second core): a forked child encodes the first part while this process encodes the rest. The bytes are
always the one-pass bytes; where the parts cannot be joined exactly, or the child fails, the body is built
in one pass as before.

Here the split is forced on short transcripts (``SPLIT_AT`` lowered; ``can_fork`` answered yes, as a test
worker may hold threads of other tests); ``test_print_resume_split.py`` runs the real thing in a fresh
``pi -p`` process.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pi_app.ai.options import StreamOptions
from pi_app.ai.providers import openai_completions_request as completions_request
from pi_app.ai.providers import openai_responses, split_build
from pi_app.ai.providers.json_body import encode_body
from pi_app.ai.providers.openai_completions_request import build_completions_body
from pi_app.ai.providers.openai_responses import build_responses_body
from pi_app.ai.transcript import resolve_transcript
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.session.messages import convert_to_llm
from pi_app.session.store import SessionManager
from tests.fresh_interpreter import run_fresh
from tests.perf.session_gen import linear_session, make_bad_line
from tests.providers_openai.body_cases import cases, responses_cases

CASES = cases()
NAMES = [name for name, *_ in CASES]
RESPONSES = responses_cases()
RESPONSES_NAMES = [name for name, *_ in RESPONSES]
MODEL = Model(
    id="m", api="openai-completions", provider="custom", baseUrl="http://x/v1", input=["text", "image"]
)
PNG = "iVBORw0KGgo="

Splits = list[split_build.Split[Any] | None]


@pytest.fixture
def splits(monkeypatch: pytest.MonkeyPatch) -> Splits:
    """Force the split on any transcript with a split point; record what each build's split returned."""
    monkeypatch.setattr(split_build, "SPLIT_AT", 2)
    monkeypatch.setattr(split_build, "can_fork", lambda: True)
    seen: Splits = []

    def spy(*args: Any) -> Any:
        result = split_build.encode_split(*args)
        seen.append(result)
        return result

    monkeypatch.setattr(completions_request, "encode_split", spy)
    monkeypatch.setattr(openai_responses, "encode_split", spy)
    return seen


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children forked, as they start."""
    pids: list[int] = []
    start = split_build._Child.start

    def spy(part: Sequence[Any], encode: Any, started: list[Any]) -> Any:
        child = start(part, encode, started)
        pids.append(child.pid)
        return child

    monkeypatch.setattr(split_build._Child, "start", spy)
    return pids


def _body(model: Model, ctx: Context, opts: StreamOptions | None = None) -> bytes:
    build = build_responses_body if model.api == "openai-responses" else build_completions_body
    pieces = encode_body(build(model, ctx, opts or StreamOptions()))
    assert pieces is not None
    return b"".join(pieces)


def _one_pass(model: Model, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> bytes:
    with monkeypatch.context() as m:
        m.setattr(split_build, "SPLIT_AT", 10**9)
        return _body(model, ctx)


def _assistant(*content: Any, model: Model = MODEL, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(content), api=model.api, provider=model.provider, model=model.id, stopReason=stop
    )


def _turns(n: int, tag: str = "t", model: Model = MODEL) -> list[Any]:
    """``n`` finished turns: a question, a tool call, its result, an answer (texts with the message ids a
    Responses model gives them)."""
    out: list[Any] = []

    def text(value: str, i: int, kind: str) -> TextContent:
        signed = model.api == "openai-responses"
        return TextContent(text=value, textSignature=f"msg_{tag}{kind}{i}" if signed else None)

    for i in range(n):
        call = ToolCall(id=f"{tag}{i}", name="read", arguments={"path": f"f{i}"})
        out += [
            UserMessage(content=f"question {tag}{i}"),
            _assistant(text("let me look", i, "a"), call, model=model, stop="toolUse"),
            ToolResultMessage(toolCallId=call.id, toolName="read", content=[TextContent(text=f"r{i}")]),
            _assistant(text(f"answer {i}", i, "b"), model=model),
        ]
    return out


@pytest.mark.parametrize("where", ["first", "second"])
@pytest.mark.parametrize("name", NAMES + [f"responses:{name}" for name in RESPONSES_NAMES])
def test_every_recorded_case_joins_in_either_part(
    name: str, where: str, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each case's transcript (every message kind, cross-model turns, dangling calls, ...) padded with
    plain turns so the split falls in the padding: the odd messages are all in the child's part, or all in
    this process's."""
    if name.startswith("responses:"):
        _, model, ctx, opts = RESPONSES[RESPONSES_NAMES.index(name.removeprefix("responses:"))]
    else:
        _, model, ctx, opts = CASES[NAMES.index(name)]
    padding = _turns(len(ctx.messages) // 3 + 2, tag="pad", model=model)
    messages = [*ctx.messages, *padding] if where == "first" else [*padding, *ctx.messages]
    padded = ctx.model_copy(update={"messages": messages})
    with monkeypatch.context() as m:
        m.setattr(split_build, "SPLIT_AT", 10**9)
        expected = _body(model, padded, opts)
    assert _body(model, padded, opts) == expected
    if completions_request._wants_cache_control(model):
        assert splits == []  # its breakpoint goes on the last message: built as dicts, in one pass
    elif model.api == "openai-responses" and where == "second":
        # joined unless a text of the case has no stored id (named by its position: see the test below)
        texts = [b for m in ctx.messages if m.role == "assistant" for b in m.content if b.type == "text"]
        assert (splits[-1] is not None) is all(t.textSignature for t in texts)
    else:
        assert splits[-1] is not None


@pytest.mark.parametrize("stored_ids", [True, False])
def test_a_responses_transcript_joins_unless_a_text_is_named_by_its_position(
    stored_ids: bool, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An assistant text with no stored message id is sent as ``msg_<position>``, a position that counts
    the whole transcript: a second part holding one is not joined."""
    model = MODEL.model_copy(update={"api": "openai-responses"})
    messages: list[Any] = []
    for i in range(30):
        text = TextContent(text=f"answer {i}", textSignature=f"msg_stored{i}" if stored_ids else None)
        messages += [UserMessage(content=f"q{i}"), _assistant(text, model=model)]
    ctx = Context(systemPrompt="sys", messages=messages)
    expected = _one_pass(model, ctx, monkeypatch)
    assert (b'"msg_5"' in expected) is not stored_ids
    assert _body(model, ctx) == expected
    assert (splits[-1] is not None) is stored_ids


def test_a_long_transcript_is_split_and_joined_byte_for_byte(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = Context(systemPrompt="be brief", messages=[*_turns(40), UserMessage(content="and now?")])
    expected = _one_pass(MODEL, ctx, monkeypatch)
    assert _body(MODEL, ctx) == expected
    split = splits[-1]
    assert split is not None and len(split.array.runs) >= 2  # the child's part, then this process's


@pytest.mark.parametrize("bridge", [False, True])
def test_an_agentic_run_of_one_question_splits_between_its_steps(
    bridge: bool, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One question, then step after step of tool calls: the split falls before a step (which gets no
    bridging message, so one owed after the results does not stop the join)."""
    model = MODEL.model_copy(update={"compat": {"requiresAssistantAfterToolResult": bridge}})
    messages: list[Any] = [UserMessage(content="do it all")]
    for i in range(40):
        call = ToolCall(id=f"s{i}", name="bash", arguments={"command": f"step {i}"})
        messages += [
            _assistant(TextContent(text=f"step {i}"), call, model=model, stop="toolUse"),
            ToolResultMessage(toolCallId=call.id, toolName="bash", content=[TextContent(text=f"ok {i}")]),
        ]
    messages.append(_assistant(TextContent(text="all done"), model=model))
    k = split_build.split_point(messages)
    assert k is not None and messages[k].role == "assistant"
    ctx = Context(systemPrompt="sys", messages=messages)
    expected = _one_pass(model, ctx, monkeypatch)
    assert _body(model, ctx) == expected
    assert splits[-1] is not None


def _split_at(monkeypatch: pytest.MonkeyPatch, middle: list[Any], at: Any) -> Context:
    """``middle`` between plain turns, the split forced at its message ``at``."""
    filler = [
        m for i in range(10) for m in (UserMessage(content=f"f{i}"), _assistant(TextContent(text="ok")))
    ]
    messages = [*filler, *middle, *filler]
    k = next(i for i, m in enumerate(messages) if m is at)
    monkeypatch.setattr(split_build, "split_point", lambda *_: k)
    return Context(messages=messages)


def test_a_run_of_results_with_images_continued_after_the_split_is_not_joined(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An errored answer at the split point is left out, so the results either side of it are one run in one
    pass, its images sent after all of it; a first part closing the run early would send them before."""
    image = ImageContent(data=PNG, mimeType="image/png")
    call = ToolCall(id="c1", name="shot", arguments={})
    middle = [
        _assistant(TextContent(text="error"), stop="error"),
        ToolResultMessage(toolCallId="c2", toolName="shot", content=[TextContent(text="late")]),
        _assistant(TextContent(text="seen")),
    ]
    before = [
        UserMessage(content="look"),
        _assistant(call, stop="toolUse"),
        ToolResultMessage(toolCallId="c1", toolName="shot", content=[TextContent(text="shot"), image]),
    ]
    ctx = _split_at(monkeypatch, [*before, *middle], at=middle[0])
    expected = _one_pass(MODEL, ctx, monkeypatch)
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is None


def test_a_bridge_owed_to_a_question_after_an_empty_answer_is_not_lost(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer with nothing to send is left out: the question after it still follows the results, and
    one pass puts the bridging message before it."""
    model = MODEL.model_copy(update={"compat": {"requiresAssistantAfterToolResult": True}})
    call = ToolCall(id="c1", name="read", arguments={})
    empty = _assistant(TextContent(text="   "), model=model)  # converts to nothing
    middle = [
        UserMessage(content="look"),
        _assistant(call, model=model, stop="toolUse"),
        ToolResultMessage(toolCallId="c1", toolName="read", content=[TextContent(text="r")]),
        empty,
        UserMessage(content="and?"),
        _assistant(TextContent(text="fine"), model=model),
    ]
    ctx = _split_at(monkeypatch, middle, at=empty)
    expected = _one_pass(model, ctx, monkeypatch)
    assert expected.count(b"I have processed the tool results.") == 1
    assert _body(model, ctx) == expected
    assert splits[-1] is None


def test_a_call_left_without_result_before_the_split_is_not_joined(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every user message follows a tool call with no result: one pass adds a synthetic result there, which
    a second part started fresh would not."""
    messages: list[Any] = []
    for i in range(30):
        call = ToolCall(id=f"c{i}", name="read", arguments={})
        messages += [UserMessage(content=f"q{i}"), _assistant(call, stop="toolUse")]
    ctx = Context(messages=messages)
    expected = _one_pass(MODEL, ctx, monkeypatch)
    assert b"No result provided" in expected
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is None


@pytest.mark.parametrize("images", [False, True])
def test_the_bridge_after_tool_results_is_never_lost_at_the_split(
    images: bool, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``requiresAssistantAfterToolResult`` a user message right after a run of results gets a bridging
    assistant message; a run that ends with images already has one before the images' user message."""
    model = MODEL.model_copy(update={"compat": {"requiresAssistantAfterToolResult": True}})
    messages: list[Any] = []
    for i in range(30):
        call = ToolCall(id=f"c{i}", name="read", arguments={})
        content: list[Any] = [TextContent(text=f"r{i}")]
        if images:
            content.append(ImageContent(data=PNG, mimeType="image/png"))
        messages += [
            UserMessage(content=f"q{i}"),
            _assistant(call, model=model, stop="toolUse"),
            ToolResultMessage(toolCallId=call.id, toolName="read", content=content),
        ]
    ctx = Context(messages=messages)
    expected = _one_pass(model, ctx, monkeypatch)
    assert _body(model, ctx) == expected
    assert (splits[-1] is not None) is images


@pytest.mark.parametrize("late_result", [False, True])
def test_an_id_renamed_in_the_first_part_and_used_in_the_second_is_not_joined(
    late_result: bool, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Responses-API call id from another model is renamed for Chat Completions; a result for it after the
    split point (a late duplicate) must be renamed too, which only one pass knows to do."""
    other = Model(id="o", api="openai-responses", provider="openai", baseUrl="http://y/v1")
    call = ToolCall(id="call_1|fc_" + "x" * 60, name="read", arguments={})
    filler = [
        m for i in range(10) for m in (UserMessage(content=f"f{i}"), _assistant(TextContent(text="ok")))
    ]
    middle = [
        UserMessage(content="look"),
        _assistant(call, model=other, stop="toolUse"),
        ToolResultMessage(toolCallId=call.id, toolName="read", content=[TextContent(text="first")]),
        UserMessage(content="the split is here"),
        ToolResultMessage(toolCallId=call.id, toolName="read", content=[TextContent(text="late")])
        if late_result
        else _assistant(TextContent(text="fine")),
        _assistant(TextContent(text="done")),
    ]
    messages = [*filler, *middle, *filler]
    assert split_build.split_point(messages) == len(filler) + 3
    ctx = Context(messages=messages)
    expected = _one_pass(MODEL, ctx, monkeypatch)
    assert _body(MODEL, ctx) == expected
    assert (splits[-1] is None) is late_result


def test_tool_history_in_the_first_part_only_still_sends_empty_tools(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without tools, a history holding tool calls is sent with ``tools: []`` (proxies to Anthropic need
    it), wherever in the transcript the calls are."""
    plain = [m for i in range(20) for m in (UserMessage(content=f"p{i}"), _assistant(TextContent(text="ok")))]
    ctx = Context(messages=[*_turns(3), *plain])
    expected = _one_pass(MODEL, ctx, monkeypatch)
    assert b'"tools":[]' in expected
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is not None


def _child_does(monkeypatch: pytest.MonkeyPatch, act: Callable[[], None]) -> None:
    """Run ``act`` in the forked child before it encodes its part."""
    parent = os.getpid()
    real = completions_request._encode_part

    def encode_part(*args: Any) -> Any:
        if os.getpid() != parent:
            act()
        return real(*args)

    monkeypatch.setattr(completions_request, "_encode_part", encode_part)


def _raise() -> None:
    raise RuntimeError("the child broke")


def _killed() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("act", [_raise, _killed], ids=["raises", "killed"])
def test_a_failed_child_costs_time_not_bytes(
    act: Callable[[], None], splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = Context(systemPrompt="sys", messages=_turns(30))
    expected = _one_pass(MODEL, ctx, monkeypatch)
    _child_does(monkeypatch, act)
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is not None  # the first part was encoded here instead


def test_a_stuck_child_is_killed_and_its_part_encoded_here(
    splits: Splits, children: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that never answers (deadlocked, starved) costs a bounded wait, not a hung request."""
    monkeypatch.setattr(split_build, "_PATIENCE", 0)
    monkeypatch.setattr(split_build, "_GRACE", 0.05)
    ctx = Context(messages=_turns(30))
    expected = _one_pass(MODEL, ctx, monkeypatch)
    _child_does(monkeypatch, threading.Event().wait)  # blocks for good
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is not None
    (pid,) = children
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(pid, os.WNOHANG)


def test_the_child_writes_nothing_to_this_process_output(
    splits: Splits, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """In rpc and json modes stdout is a protocol: nothing of the child's may reach it."""

    def speak() -> None:
        os.write(1, b"LEAK to stdout\n")
        os.write(2, b"LEAK to stderr\n")

    ctx = Context(messages=_turns(30))
    expected = _one_pass(MODEL, ctx, monkeypatch)
    _child_does(monkeypatch, speak)
    assert _body(MODEL, ctx) == expected
    out, err = capfd.readouterr()
    assert "LEAK" not in out and "LEAK" not in err


def test_an_error_in_this_process_part_leaves_no_child_behind(
    splits: Splits, children: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()
    real = completions_request._encode_part

    def encode_part(*args: Any) -> Any:
        if os.getpid() == parent and not args[-1]:  # this process's part (not the first)
            raise ValueError("cannot encode")
        return real(*args)

    monkeypatch.setattr(completions_request, "_encode_part", encode_part)
    with pytest.raises(ValueError, match="cannot encode"):
        build_completions_body(MODEL, Context(messages=_turns(30)), StreamOptions())
    (pid,) = children
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie
        os.waitpid(pid, os.WNOHANG)


def test_a_stored_message_the_child_found_unusable_is_reported_here_once(
    tmp_path: Path, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    linear_session(path, 200, cwd=str(tmp_path))
    bad_id, bad_line = make_bad_line(path, 10)

    def context() -> tuple[SessionManager, Context]:
        manager = SessionManager.open(path)
        return manager, Context(messages=convert_to_llm(manager.build_session_context().history))

    _, ctx = context()
    expected = _one_pass(MODEL, ctx, monkeypatch)
    manager, ctx = context()
    before = list(manager.warnings)
    assert _body(MODEL, ctx) == expected
    assert splits[-1] is not None
    (reported,) = [w for w in manager.warnings[len(before) :] if bad_id in w]
    assert reported.startswith(f"{path.resolve()}:{bad_line}: skipped unusable message entry {bad_id}")
    assert _body(MODEL, ctx) == expected  # a second request: known unusable, not reported again
    assert len([w for w in manager.warnings if bad_id in w]) == 1


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_an_interrupt_while_waiting_for_the_child_leaves_nothing_behind(
    splits: Splits, children: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C while this process waits for the child's bytes: the child is killed and reaped, its pipe
    closed (else it would block on the pipe for as long as this process lives)."""

    def interrupted(*_args: Any, **_kwargs: Any) -> bytes:
        raise KeyboardInterrupt

    monkeypatch.setattr(split_build, "_read_exact", interrupted)
    fds = _open_fds()
    with pytest.raises(KeyboardInterrupt):
        build_completions_body(MODEL, Context(messages=_turns(30)), StreamOptions())
    (pid,) = children
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    assert _open_fds() <= fds


def test_the_child_runs_none_of_this_process_signal_handlers(
    splits: Splits, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """This process's SIGTERM handler (pi's ends its tool processes and removes its logs) must not run in
    the child: a SIGTERM there ends the child plainly, and its part is encoded here."""
    marker = tmp_path / "handled"

    def handler(_sig: int, _frame: Any) -> None:
        marker.write_text(str(os.getpid()))

    ctx = Context(messages=_turns(30))
    expected = _one_pass(MODEL, ctx, monkeypatch)
    _child_does(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGTERM))
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        fds = _open_fds()
        assert _body(MODEL, ctx) == expected
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not marker.exists()
    assert splits[-1] is not None  # (the child's part was encoded here)
    assert _open_fds() <= fds


def test_meanwhile_work_runs_here_while_the_child_encodes_a_larger_part(
    splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work given to do meanwhile (the first import of an SDK's client) runs in this process, once, only
    when there is a child, whose part is then the larger one."""
    ran: list[int] = []
    messages = _turns(40)
    meanwhile = split_build.Meanwhile(lambda: ran.append(os.getpid()), share=0.7)
    k = split_build.split_point(messages, meanwhile.share)
    assert k is not None and abs(k - 0.7 * len(messages)) <= 2

    def part(part: Sequence[Any], first: bool) -> Any:
        transcript = resolve_transcript(Context(messages=list(part)), True)
        compat = completions_request.resolve_completions_compat(MODEL)
        return completions_request._encode_part(MODEL, compat, transcript, part, first)

    split = split_build.encode_split(messages, part, completions_request._parts_join, meanwhile)
    assert split is not None and ran == [os.getpid()]
    assert split.array.count == len(messages)
    monkeypatch.setattr(split_build, "SPLIT_AT", 10**9)
    assert split_build.encode_split(messages, part, completions_request._parts_join, meanwhile) is None
    assert ran == [os.getpid()]  # no child, no meanwhile


def test_no_fork_while_another_thread_runs() -> None:
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not split_build.can_fork()
    finally:
        release.set()
        thread.join()


def test_the_split_point_follows_a_finished_turn_or_step_near_the_middle() -> None:
    messages = _turns(10)
    k = split_build.split_point(messages)
    assert k is not None and messages[k].role in ("user", "assistant")
    assert messages[k - 1].role in ("assistant", "toolResult")
    assert abs(k - len(messages) // 2) <= 2
    assert split_build.split_point([UserMessage(content="a")] * 20) is None
    results = [ToolResultMessage(toolCallId="c", toolName="read", content=[])] * 20
    assert split_build.split_point(results) is None


def test_the_client_warm_up_imports_what_making_the_client_would_then_none() -> None:
    """In a fresh interpreter: the warm-up imports the SDK's client, its HTTP client and transport, then
    there is nothing left to do meanwhile (and making the client imports nothing more)."""
    done = run_fresh(
        """
        import sys
        from pi_app.ai.providers.http_common import client_warm_up
        from pi_app.ai.providers import openai_common  # (defers the SDK's package bodies)
        warm = client_warm_up("http://x/v1", 0.55, "openai", "AsyncOpenAI")
        assert warm is not None and warm.share == 0.55 and "openai._client" not in sys.modules
        warm.run()
        assert client_warm_up("http://x/v1", 0.55, "openai", "AsyncOpenAI") is None
        before = set(sys.modules)
        from pi_app.ai.options import StreamOptions
        from pi_app.ai.types import Model
        model = Model(id="m", api="openai-completions", provider="custom", baseUrl="http://x/v1")
        openai_common.make_client(model, StreamOptions(), "key")
        print(sorted(m for m in set(sys.modules) - before if m.startswith(("openai", "httpx2", "httpcore2"))))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
