"""Plan mode: look before you leap.

``/plan`` (or F8) switches the agent to read-only tools (read, grep, find, ls) and tells it to answer with a
numbered plan instead of changing anything; the footer's status row says "plan mode", and the steps of the
latest plan show in a widget above the editor. ``/plan`` again (or F8) restores the tools that were active
before. ``--plan`` starts in plan mode.

    pi -e examples/extensions/plan_mode.py --plan
"""

from __future__ import annotations

import re
from typing import Any

from pi_app.extensions import BeforeAgentStartEvent, ExtensionAPI, ExtensionContext

READ_ONLY = ["read", "grep", "find", "ls"]
INSTRUCTIONS = (
    "\n\nYou are in plan mode: you may only read and search. Do not edit files or run commands. "
    "Answer with a numbered plan of the steps you would take."
)
STEP = re.compile(r"^\s*(\d+)[.)]\s+(.+)$")


def plan_steps(text: str) -> list[str]:
    """The numbered lines of an answer, in order."""
    return [f"{m.group(1)}. {m.group(2).strip()}" for line in text.splitlines() if (m := STEP.match(line))]


def register(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"on": False, "saved": None}
    pi.register_flag("plan", description="Start in plan mode (read-only tools)")

    def show(ctx: ExtensionContext) -> None:
        ctx.ui.set_status("plan", "plan mode: read-only" if state["on"] else None)
        if not state["on"]:
            ctx.ui.set_widget("plan", None)

    def toggle(ctx: ExtensionContext) -> None:
        if state["on"]:
            pi.set_active_tools(state["saved"] or pi.get_active_tools())
            state["on"] = False
        else:
            state["saved"] = pi.get_active_tools()
            pi.set_active_tools([t for t in READ_ONLY if t in {x.name for x in pi.get_all_tools()}])
            state["on"] = True
        show(ctx)
        ctx.ui.notify("Plan mode on" if state["on"] else "Plan mode off")

    async def command(args: str, ctx: ExtensionContext) -> None:
        toggle(ctx)

    pi.register_command("plan", command, description="Toggle plan mode (read-only tools)")
    pi.register_shortcut("f8", toggle, description="Toggle plan mode")

    def on_start(event: Any, ctx: ExtensionContext) -> None:
        if event.reason == "startup" and pi.get_flag("plan") and not state["on"]:
            toggle(ctx)

    pi.on("session_start", on_start)

    def before_start(event: BeforeAgentStartEvent, ctx: ExtensionContext) -> dict[str, str] | None:
        return {"system_prompt": event.system_prompt + INSTRUCTIONS} if state["on"] else None

    pi.on("before_agent_start", before_start)

    def on_end(event: Any, ctx: ExtensionContext) -> None:
        if not state["on"]:
            return
        answer = next((m for m in reversed(event.messages) if getattr(m, "role", None) == "assistant"), None)
        text = "".join(c.text for c in answer.content if c.type == "text") if answer is not None else ""
        steps = plan_steps(text)
        if steps:
            ctx.ui.set_widget("plan", ["Plan:", *steps])

    pi.on("agent_end", on_end)
