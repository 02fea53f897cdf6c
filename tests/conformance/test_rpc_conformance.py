"""``--mode rpc`` against pi 0.73.1's recorded answers to the same command script (scenarios.RPC_STEPS)."""

from __future__ import annotations

from tests.conformance.compare import assert_same_structure, fixture, scrub
from tests.conformance.runner import run_rpc

# pi 1.6 additions our RPC follows (see test_known_gaps.py): 0.73.1's recording predates them.
PI16_DISPOSITION_COMMANDS = ("prompt", "steer", "follow_up")


def without_pi16_additions(records):
    """``records`` as 0.73.1 would have written them: no ``agent_settled``, no ``data.disposition``."""
    out = []
    for r in records:
        if r.get("type") == "agent_settled":
            continue
        if r.get("type") == "response" and r.get("command") in PI16_DISPOSITION_COMMANDS:
            if set(r.get("data") or {}) == {"disposition"}:
                r = {k: v for k, v in r.items() if k != "data"}
        out.append(r)
    return out


def _responses(records):
    return {r.get("id", r["command"]): r for r in records if r["type"] == "response"}


async def test_rpc_conversation_matches_pi(tmp_path, loopback):
    from tests.conformance import scenarios as sc

    loopback.add(*sc.rpc_responses())
    records, session = await run_rpc(tmp_path, loopback.url)
    ours = without_pi16_additions(scrub(records, str(tmp_path)))
    pi = fixture("rpc.jsonl")
    # same events and responses in the same order (prompt acknowledged before agent_start,
    # thinking_level_changed before the set_thinking_level response), same keys and value types
    assert_same_structure(pi, ours)

    a, b = _responses(pi), _responses(ours)
    state_keys = ("thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode")
    state_keys += ("autoCompactionEnabled", "messageCount", "pendingMessageCount")
    for rid in ("s1", "s2", "s3"):
        assert {k: b[rid]["data"][k] for k in state_keys} == {k: a[rid]["data"][k] for k in state_keys}
        assert b[rid]["data"]["model"]["id"] == a[rid]["data"]["model"]["id"]
    assert b["s3"]["data"]["messageCount"] == 6  # the tool-set log is not counted

    roles = [m["role"] for m in b["m1"]["data"]["messages"]]
    assert roles == [m["role"] for m in a["m1"]["data"]["messages"]]
    counts = ("userMessages", "assistantMessages", "toolCalls", "toolResults", "totalMessages")
    assert {k: b["st1"]["data"][k] for k in counts} == {k: a["st1"]["data"][k] for k in counts}

    cycled, pi_cycled = b["c1"]["data"], a["c1"]["data"]
    assert (cycled["model"]["id"], cycled["thinkingLevel"], cycled["isScoped"]) == (
        pi_cycled["model"]["id"],
        pi_cycled["thinkingLevel"],
        pi_cycled["isScoped"],
    )

    def commands(response, agent_dir):
        out = []
        for c in response["data"]["commands"]:
            info = dict(c["sourceInfo"])
            info["path"] = info["path"].replace(agent_dir, "<agent>")
            info["baseDir"] = info["baseDir"].replace(agent_dir, "<agent>")
            out.append((c["name"], c["source"], info))
        return out

    assert commands(b["g1"], str(session.agent_dir)) == commands(a["g1"], "/scratch/home/.pi/agent")

    assert b["u1"] == {**a["frobnicate"], "id": "u1"}
    assert b["parse"]["success"] is False and b["parse"]["error"].startswith("Failed to parse command: ")
    assert "id" not in b["parse"]
