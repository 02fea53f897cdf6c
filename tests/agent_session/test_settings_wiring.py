"""Settings that reach the tools and the provider request (ours: tools.*; pi's: httpIdleTimeoutMs)."""

from pi_app.ai.providers.faux import faux_text, faux_tool

from .helpers import make_session


async def test_tool_limits_and_bash_timeout_come_from_settings(tmp_path, faux):
    settings = {"tools": {"maxLines": 3, "bashTimeout": 0.2, "limits": {"read": {"maxLines": 2}}}}
    session = await make_session(tmp_path, settings=settings)
    (tmp_path / "proj" / "f.txt").write_text("\n".join(str(i) for i in range(10)))
    faux.enqueue(
        faux_tool("read", {"path": "f.txt"}),
        faux_tool("bash", {"command": "seq 1 10"}),
        faux_tool("bash", {"command": "sleep 5"}),
        faux_text("done"),
    )
    await session.prompt("go")
    results = [m for m in session.messages if m.role == "toolResult"]
    read_text, seq_text, sleep_text = (r.content[0].text for r in results)
    assert read_text.startswith("0\n1\n\n[Showing lines 1-2 of 10.")
    # 3-line tail (the trailing newline ends an empty last line, as in pi)
    assert seq_text.startswith("9\n10\n\n\n[Showing lines 9-11 of 11.")
    assert "Command timed out after 0.2 seconds" in sleep_text


async def test_http_idle_timeout_reaches_stream_options(tmp_path, faux):
    session = await make_session(tmp_path, settings={"httpIdleTimeoutMs": 1500})
    faux.enqueue(faux_text("hi"))
    await session.prompt("hello")
    assert faux.options[-1].idle_timeout_s == 1.5
