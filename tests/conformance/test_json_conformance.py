"""``--mode json`` against pi 0.73.1's recorded output for the same scripted server responses."""

from __future__ import annotations

import pytest

from tests.conformance import scenarios as sc
from tests.conformance.compare import assert_same_structure, fixture, scrub
from tests.conformance.runner import run_json

CASES = {
    "json_text.jsonl": (sc.TEXT_PROMPT, sc.text_responses),
    "json_tools.jsonl": (sc.TOOLS_PROMPT, sc.tools_responses),
}


@pytest.mark.parametrize("name", sorted(CASES))
async def test_event_structure_matches_pi(name, tmp_path, loopback):
    prompt, responses = CASES[name]
    loopback.add(*responses())
    # pi 1.6 ends a prompt's run with agent_settled; 0.73.1's recording predates it
    ours = [
        r
        for r in scrub(await run_json(tmp_path, loopback.url, prompt), str(tmp_path))
        if r.get("type") != "agent_settled"
    ]
    pi = fixture(name)
    assert_same_structure(pi, ours)

    # beyond shape: the values a client acts on
    assert ours[0]["cwd"] == pi[0]["cwd"] == "/scratch/proj"

    def stream(records):
        return [r["assistantMessageEvent"]["type"] for r in records if r["type"] == "message_update"]

    assert stream(ours) == stream(pi)

    def tools(records):
        return [
            (r["type"], r["toolName"], r.get("args"), r.get("result"), r.get("isError"))
            for r in records
            if r["type"] in ("tool_execution_start", "tool_execution_end")
        ]

    assert tools(ours) == tools(pi)

    def finals(records):
        return [
            (m["role"], m.get("stopReason"), m["content"])
            for r in records
            if r["type"] == "message_end"
            for m in [r["message"]]
        ]

    assert finals(ours) == finals(pi)
    assert [m["role"] for m in ours[-1]["messages"]] == [m["role"] for m in pi[-1]["messages"]]


async def test_no_tool_set_log_on_the_wire(tmp_path, loopback):
    """pi 0.73.1 has no ``system`` role: our tool-set log stays in the transcript, not in json output."""
    loopback.add(*sc.text_responses())
    ours = await run_json(tmp_path, loopback.url, sc.TEXT_PROMPT)
    roles = {r["message"]["role"] for r in ours if isinstance(r.get("message"), dict)}
    roles |= {m["role"] for r in ours for m in r.get("messages", [])}
    assert roles == {"user", "assistant"}
    assert "toolsAdded" not in str(ours)
