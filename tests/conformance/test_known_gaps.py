"""Differences from pi 0.73.1 found here whose fix belongs to another part of the code.

Strict xfails: each fails loudly once fixed, so its allowance in compare.py can be removed.
"""

from __future__ import annotations

from tests.conformance import scenarios as sc
from tests.conformance.compare import fixture
from tests.conformance.runner import run_json, run_rpc
from tests.conformance.test_rpc_conformance import without_pi16_additions


async def test_assistant_messages_carry_response_id(tmp_path, loopback):
    loopback.add(*sc.text_responses())
    ours = await run_json(tmp_path, loopback.url, sc.TEXT_PROMPT)
    pi_end = [r for r in fixture("json_text.jsonl") if r["type"] == "message_end"][-1]["message"]
    end = [r for r in ours if r["type"] == "message_end"][-1]["message"]
    assert (end.get("responseId"), end.get("responseModel")) == (
        pi_end["responseId"],
        pi_end["responseModel"],
    )


async def test_prompt_template_description_is_the_frontmatter_text(tmp_path, loopback):
    loopback.add(*sc.rpc_responses())
    records, _ = await run_rpc(tmp_path, loopback.url)
    ours = next(r for r in records if r.get("id") == "g1")["data"]["commands"]
    pi = next(r for r in fixture("rpc.jsonl") if r.get("id") == "g1")["data"]["commands"]
    assert [c["description"] for c in ours] == [c["description"] for c in pi]


async def test_rpc_follows_pi16_where_it_differs_from_0731(tmp_path, loopback):
    """Deliberate difference from the 0.73.1 recording (issue 16, "RPC as pi 1.6"): prompt/steer/follow_up
    responses carry ``data.disposition`` and every prompt that started a run ends with ``agent_settled``
    (pi 1.6's RpcClient waits for it). Apart from those, the output is 0.73.1's (test_rpc_conformance.py)."""
    loopback.add(*sc.rpc_responses())
    records, _ = await run_rpc(tmp_path, loopback.url)
    pi = fixture("rpc.jsonl")
    assert not any(r.get("type") == "agent_settled" for r in pi)
    prompts = [r for r in records if r.get("type") == "response" and r["command"] == "prompt"]
    assert prompts and all(r["data"] == {"disposition": "started"} for r in prompts)
    settled = [r for r in records if r.get("type") == "agent_settled"]
    assert settled == [{"type": "agent_settled", "aborted": False}] * len(prompts)
    assert len(without_pi16_additions(records)) == len(records) - len(settled)
