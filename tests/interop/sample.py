"""Entries this port writes into sessions meant for the real pi; also a CLI to make such files by hand.

python -m tests.interop.sample append <pi-session.jsonl> <out.jsonl>   # copy, then append
python -m tests.interop.sample scratch <dir> <cwd>                    # new session from scratch
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from pi_app.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_app.session.messages import BashExecutionMessage
from pi_app.session.store import SessionManager


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def assistant(
    *blocks: TextContent | ThinkingContent | ToolCall, model: str = "loop-model"
) -> AssistantMessage:
    calls = any(isinstance(b, ToolCall) for b in blocks)
    return AssistantMessage(
        content=list(blocks),
        api="openai-completions",
        provider="loop",
        model=model,
        usage=Usage(input=100, output=20, totalTokens=120),
        stopReason="toolUse" if calls else "stop",
    )


def tool_turn(mgr: SessionManager, call_id: str, name: str, args: dict, result: str) -> str:
    mgr.append_message(
        assistant(TextContent(text=f"Using {name}."), ToolCall(id=call_id, name=name, arguments=args))
    )
    return mgr.append_message(
        ToolResultMessage(
            toolCallId=call_id, toolName=name, content=[TextContent(text=result)], isError=False
        )
    )


def append_sample(mgr: SessionManager) -> dict[str, str]:
    """Continue a session: thinking change, a tool turn, label, name, then a branch back with a summary."""
    ids: dict[str, str] = {}
    fork_point = mgr.get_leaf_id()
    assert fork_point is not None
    mgr.append_thinking_level_change("high")
    ids["user"] = mgr.append_message(user("PY-APPEND-1: look at the notes again"))
    ids["result"] = tool_turn(mgr, "call_py_read_1", "read", {"path": "notes.txt"}, "alpha\nbeta\n")
    ids["answer"] = mgr.append_message(
        assistant(ThinkingContent(thinking="PY thinking."), TextContent(text="PY-ANSWER-1: two lines."))
    )
    ids["label"] = mgr.append_label_change(ids["user"], "py-label")
    mgr.append_session_info("Continued in Python")
    # back to where pi left off, summarising the Python-side detour
    ids["summary"] = mgr.branch_with_summary(fork_point, "PY-BRANCH-SUMMARY: read notes.txt (two lines).")
    ids["user2"] = mgr.append_message(user("PY-APPEND-2: different direction"))
    ids["answer2"] = mgr.append_message(assistant(TextContent(text="PY-ANSWER-2: ok.")))
    return ids


def scratch_session(session_dir: Path, cwd: str) -> tuple[SessionManager, dict[str, str]]:
    """A session written only by this port: tools, model/thinking changes, branch+summary, label, compaction."""
    mgr = SessionManager.create(cwd, session_dir)
    ids: dict[str, str] = {}
    mgr.append_model_change("loop", "loop-model")
    mgr.append_thinking_level_change("medium")
    ids["u1"] = mgr.append_message(user("PY-1: write the notes"))
    ids["w"] = tool_turn(
        mgr, "call_py_write", "write", {"path": "notes.txt", "content": "a\nb\n"}, "Wrote notes.txt"
    )
    ids["a1"] = mgr.append_message(
        assistant(
            ThinkingContent(thinking="Thinking in Python.", thinkingSignature="reasoning_content"),
            TextContent(text="PY-A1: written."),
        )
    )
    ids["u2"] = mgr.append_message(user("PY-2: run a command"))
    ids["b"] = tool_turn(mgr, "call_py_bash", "bash", {"command": "cat notes.txt"}, "a\nb\n")
    ids["a2"] = mgr.append_message(assistant(TextContent(text="PY-A2: printed two lines.")))
    # go back to a1 and take another path, with a summary of the abandoned one
    ids["summary"] = mgr.branch_with_summary(ids["a1"], "PY-SUMMARY: ran cat on notes.txt.")
    ids["label"] = mgr.append_label_change(ids["a1"], "py-fork")
    mgr.append_model_change("loop", "loop-other")
    mgr.append_thinking_level_change("off")
    ids["bang"] = mgr.append_message(
        BashExecutionMessage(
            command="echo bang", output="bang\n", exitCode=0, cancelled=False, truncated=False
        )
    )
    ids["u3"] = mgr.append_message(user("PY-3: after the branch"))
    ids["a3"] = mgr.append_message(assistant(TextContent(text="PY-A3: on the new path."), model="loop-other"))
    ids["u4"] = mgr.append_message(user("PY-4: one more"))
    ids["a4"] = mgr.append_message(assistant(TextContent(text="PY-A4: fine."), model="loop-other"))
    ids["compaction"] = mgr.append_compaction(
        "PY-COMPACTION: notes written; branch explored.", ids["u3"], 4321
    )
    mgr.append_session_info("Written in Python")
    ids["u5"] = mgr.append_message(user("PY-5: after compaction"))
    ids["a5"] = mgr.append_message(assistant(TextContent(text="PY-A5: done."), model="loop-other"))
    return mgr, ids


def main(argv: list[str]) -> None:
    if argv[:1] == ["append"]:
        shutil.copy(argv[1], argv[2])
        print(append_sample(SessionManager.open(argv[2])))
    elif argv[:1] == ["scratch"]:
        mgr, ids = scratch_session(Path(argv[1]), argv[2])
        print(mgr.session_file, ids)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
