import sys

from pi_app.ai import AbortController, Context, UserMessage, stream
from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_error, faux_model, faux_text, faux_tool


async def collect(s):
    return [ev async for ev in s]


async def test_text_stream_event_order(faux):
    faux.enqueue(faux_text("hello world", chunk_size=5))
    s = stream(faux_model(), Context(messages=[UserMessage(content="hi")]))
    evs = await collect(s)
    assert [e.type for e in evs] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert "".join(e.delta for e in evs if e.type == "text_delta") == "hello world"
    msg = await s.result()
    assert msg.stopReason == "stop"
    assert msg.content[0].text == "hello world"
    assert msg.usage.cost.total > 0
    assert msg.usage.totalTokens == msg.usage.input + msg.usage.output


async def test_tool_call_arguments_stream_incrementally(faux):
    faux.enqueue(faux_tool("write", {"path": "a.txt", "content": "x" * 200}, chunk_size=4))
    s = stream(faux_model(), Context(messages=[]))
    partial_lens = []
    async for ev in s:
        if ev.type == "toolcall_delta":
            partial_lens.append(len(ev.partial.content[0].arguments.get("content", "")))
    assert partial_lens[0] < 200 and partial_lens == sorted(partial_lens)
    msg = await s.result()
    assert msg.stopReason == "toolUse"
    assert msg.content[0].arguments == {"path": "a.txt", "content": "x" * 200}


async def test_error_and_missing_script(faux):
    faux.enqueue(faux_error("boom"))
    msg = await stream(faux_model(), Context()).result()
    assert (msg.stopReason, msg.errorMessage) == ("error", "boom")
    msg = await stream(faux_model(), Context()).result()
    assert msg.stopReason == "error" and "no scripted response" in msg.errorMessage


async def test_abort_mid_stream(faux):
    faux.enqueue(FauxResponse(steps=[FauxStep("text", text="a" * 100)], chunk_size=1, delay_s=0.001))
    ctl = AbortController()
    from pi_app.ai.options import StreamOptions

    s = stream(faux_model(), Context(), StreamOptions(signal=ctl.signal))
    seen = 0
    async for ev in s:
        if ev.type == "text_delta":
            seen += 1
            if seen == 3:
                ctl.abort()
    msg = await s.result()
    assert msg.stopReason == "aborted"
    assert msg.content[0].text == "aaa"


def test_import_is_light():
    import subprocess

    code = "import sys, pi_app.ai; print(any(m in sys.modules for m in ('anthropic','openai','tiktoken','textual')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
