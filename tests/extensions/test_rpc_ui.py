"""``ctx.ui`` over RPC: requests out, responses in, timeouts, cancellation and calls RPC cannot serve."""

from __future__ import annotations

import json

from pi_app.ai.providers.faux import faux_text, faux_tool
from pi_app.extensions.loader import ExtensionSource
from pi_app.extensions.runner import ExtensionRunner
from pi_app.modes.jsonl import JsonlWriter
from pi_app.modes.rpc_extension_ui import RpcExtensionUI
from pi_app.modes.rpc_mode import RpcServer
from tests.modes.rpc_driver import Collector, RpcDriver, make_faux_session

from .helpers import write_ext

GATE = """
RESULTS = []

def register(pi):
    async def gate(event, ctx):
        if event.tool_name != "bash":
            return None
        ok = await ctx.ui.confirm("Run it?", event.input["command"])
        RESULTS.append(("confirm", ok))
        return None if ok else {"block": True, "reason": "Blocked by user"}

    pi.on("tool_call", gate)

    async def ask(args, ctx):
        RESULTS.append(("select", await ctx.ui.select("Pick", ["a", "b"], timeout=0.05)))
        RESULTS.append(("input", await ctx.ui.input("Name?", "your name")))
        ctx.ui.notify("done", "warning")
        ctx.ui.set_status("ext", "busy")
        ctx.ui.set_widget("ext", ["line 1", "line 2"], placement="below_editor")
        ctx.ui.set_widget("bad", object())

    pi.register_command("ask", ask)
"""


async def _server(tmp_path, faux):
    session = await make_faux_session(tmp_path)
    runner = ExtensionRunner(
        cwd=session.cwd, settings=session.settings, model_registry=session.model_registry
    )
    await runner.load([ExtensionSource(str(write_ext(tmp_path / "ext", "gate.py", GATE)), "temporary")])
    runner.bind(session)
    driver = RpcDriver(session)
    out = Collector()
    writer = JsonlWriter(out)
    ui = RpcExtensionUI(writer.write)
    driver.out = out
    driver.server = RpcServer(session, writer, ui)
    runner.set_ui("rpc", ui)
    runner.on_error = lambda e: writer.write(e.to_json())
    return driver, runner


def _requests(driver, method):
    return [
        r for r in driver.out.records if r.get("type") == "extension_ui_request" and r["method"] == method
    ]


async def test_dialog_round_trip_blocks_a_tool_call(tmp_path, faux):
    driver, runner = await _server(tmp_path, faux)
    faux.enqueue(faux_tool("bash", {"command": "rm -rf build"}), faux_text("ok"))
    driver.send({"type": "prompt", "message": "clean up"})
    request = await driver.wait_for(lambda r: r.get("type") == "extension_ui_request")
    assert {k: request[k] for k in ("method", "title", "message")} == {
        "method": "confirm",
        "title": "Run it?",
        "message": "rm -rf build",
    }
    driver.send_line(json.dumps({"type": "extension_ui_response", "id": request["id"], "confirmed": False}))
    await driver.wait_for(lambda r: r.get("type") == "agent_settled")
    result = next(m for m in driver.session.messages if m.role == "toolResult")
    assert result.isError and result.content[0].text == "Blocked by user"
    assert runner.extensions[0].module.RESULTS == [("confirm", False)]


async def test_timeouts_cancellation_fire_and_forget_and_unsupported_calls(tmp_path, faux):
    driver, runner = await _server(tmp_path, faux)
    ask_id = driver.send({"type": "prompt", "message": "/ask"})
    select = await driver.wait_for(lambda r: r.get("method") == "select")
    assert select["options"] == ["a", "b"] and select["timeout"] == 50  # nobody answers: it times out
    ask = await driver.wait_for(lambda r: r.get("method") == "input")
    assert ask["placeholder"] == "your name"
    driver.send_line(json.dumps({"type": "extension_ui_response", "id": ask["id"], "cancelled": True}))
    await driver.wait_for(lambda r: r.get("type") == "extension_error")
    assert runner.extensions[0].module.RESULTS == [("select", None), ("input", None)]
    assert _requests(driver, "notify")[0]["notifyType"] == "warning"
    assert _requests(driver, "setStatus")[0] | {"id": ""} == {
        "type": "extension_ui_request",
        "id": "",
        "method": "setStatus",
        "statusKey": "ext",
        "statusText": "busy",
    }
    widget = _requests(driver, "setWidget")[0]
    assert (widget["widgetLines"], widget["widgetPlacement"]) == (["line 1", "line 2"], "belowEditor")
    error = next(r for r in driver.out.records if r.get("type") == "extension_error")
    assert error["event"] == "command:ask" and "list of text lines" in error["error"]
    assert (await driver.response(ask_id))["data"] == {"disposition": "handled"}  # pi 1.6: no run started
    assert not any(r.get("type") == "agent_settled" for r in driver.out.records)


async def test_an_aborted_dialog_resolves_as_cancelled(tmp_path, faux):
    import asyncio

    from pi_app.ai.abort import AbortController

    driver, runner = await _server(tmp_path, faux)
    controller = AbortController()
    asked = asyncio.ensure_future(
        runner.context_for("gate").ui.select("Pick", ["a"], signal=controller.signal)
    )
    request = await driver.wait_for(lambda r: r.get("method") == "select")
    controller.abort()
    assert await asyncio.wait_for(asked, 5) is None
    driver.send_line(
        json.dumps({"type": "extension_ui_response", "id": request["id"], "value": "a"})
    )  # too late
