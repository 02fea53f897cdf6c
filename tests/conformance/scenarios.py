"""The scripted conversations both pi 0.73.1 (when recording) and our pi (in the tests) go through.

Every scenario talks ``openai-completions`` to the loopback server with a ``loop`` provider.
"""

from __future__ import annotations

from typing import Any

from tests.loopback.server import Scripted
from tests.modes import scripts

API = "openai-completions"
MODEL = "loop/loop-model"


def models_json(base_url: str, *, two_models: bool = False) -> dict[str, Any]:
    """The ``models.json`` both programs read; rpc uses two reasoning models so cycle_model has a target."""
    models = [{"id": "loop-model", "name": "Loop Model", "reasoning": two_models, "contextWindow": 128000}]
    if two_models:
        models.append(
            {"id": "loop-model-2", "name": "Loop Model 2", "reasoning": True, "contextWindow": 64000}
        )
    return {"providers": {"loop": {"baseUrl": base_url + "/v1", "api": API, "apiKey": "x", "models": models}}}


# ---------------------------------------------------------------- json mode

TEXT_PROMPT = "say hi"


def text_responses() -> list[Scripted]:
    return [scripts.text(API, "Hello there")]


TOOLS_PROMPT = "work on notes.txt"


def tools_responses() -> list[Scripted]:
    """write, read, edit, bash (streams updates), a failing read, then the answer: one turn each."""
    return [
        scripts.tool_call(API, "call_w1", "write", {"path": "notes.txt", "content": "alpha\nbeta\n"}),
        scripts.tool_call(API, "call_r1", "read", {"path": "notes.txt"}),
        scripts.tool_call(
            API, "call_e1", "edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}
        ),
        scripts.tool_call(API, "call_b1", "bash", {"command": "printf 'one\\ntwo\\n'"}),
        scripts.tool_call(API, "call_x1", "read", {"path": "missing.txt"}),
        scripts.text(API, "All done."),
    ]


# ---------------------------------------------------------------- rpc mode

# ("send", command or raw line) / ("await_end",): after a prompt, wait for its agent_end.
RPC_STEPS: list[tuple[Any, ...]] = [
    ("send", {"id": "s1", "type": "get_state"}),
    ("send", {"id": "p1", "type": "prompt", "message": "say hi"}),
    ("await_end",),
    ("send", {"id": "p2", "type": "prompt", "message": "write notes.txt"}),
    ("await_end",),
    ("send", {"id": "m1", "type": "get_messages"}),
    ("send", {"id": "st1", "type": "get_session_stats"}),
    ("send", {"id": "t1", "type": "set_thinking_level", "level": "high"}),
    ("send", {"id": "c1", "type": "cycle_model"}),
    ("send", {"id": "s2", "type": "get_state"}),
    ("send", {"id": "g1", "type": "get_commands"}),
    ("send", {"id": "u1", "type": "frobnicate"}),
    ("send", "{not json"),
    ("send", {"id": "s3", "type": "get_state"}),
]


def rpc_responses() -> list[Scripted]:
    return [
        scripts.text(API, "Hello there"),
        scripts.tool_call(API, "call_w1", "write", {"path": "notes.txt", "content": "alpha\nbeta\n"}),
        scripts.text(API, "Done."),
    ]


# A prompt template and a skill in the agent dir, for get_commands.
PROMPT_TEMPLATE = "---\ndescription: Review the code\n---\nReview $@\n"
SKILL = "---\nname: tidy\ndescription: Tidy up files\n---\nTidy things.\n"


# ---------------------------------------------------------------- session files (tool-set log compat)

SESSION_PROMPT = "write notes.txt"


def session_responses() -> list[Scripted]:
    return [
        scripts.tool_call(API, "call_w1", "write", {"path": "notes.txt", "content": "alpha\nbeta\n"}),
        scripts.text(API, "Wrote it."),
    ]


CONTINUE_PROMPT = "continue"


def continue_responses() -> list[Scripted]:
    return [scripts.text(API, "Continuing.")]
