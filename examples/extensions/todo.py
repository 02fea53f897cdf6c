"""A ``todo`` tool and a ``/todos`` command whose list lives in the session.

Each change appends a ``todo-state`` custom entry (``pi.append_entry``): saved in the session file, never
sent to the model. On ``session_start`` (startup, resume, fork, new, reload) and after a ``/tree`` move the
list is rebuilt from the newest such entry on the *current branch*, so resuming restores it and a fork or
a tree move shows the list as it was at that point of the conversation.

In the interactive app the list also shows above the editor (``ctx.ui.set_widget``), and todo calls draw as
``todo add <text>`` with the list as their result (``render_call`` / ``render_result``).

    pi -e examples/extensions/todo.py
    > plan the refactor as todos, then work through them
    > /todos
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field
from rich.text import Text

from pi_app.extensions import (
    AgentToolResult,
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ToolError,
)

ENTRY_TYPE = "todo-state"


@dataclass
class Todo:
    id: int
    text: str
    done: bool = False


@dataclass
class TodoState:
    todos: list[Todo] = field(default_factory=list)
    next_id: int = 1

    def to_data(self) -> dict[str, Any]:
        return {"todos": [asdict(t) for t in self.todos], "nextId": self.next_id}

    @classmethod
    def from_data(cls, data: Any) -> TodoState:
        if not isinstance(data, dict):
            return cls()
        todos = [
            Todo(int(t["id"]), str(t["text"]), bool(t.get("done")))
            for t in data.get("todos", [])
            if isinstance(t, dict) and "id" in t and "text" in t
        ]
        return cls(todos, int(data.get("nextId") or max((t.id for t in todos), default=0) + 1))

    def render(self) -> str:
        if not self.todos:
            return "No todos."
        return "\n".join(f"[{'x' if t.done else ' '}] #{t.id} {t.text}" for t in self.todos)


class TodoParams(BaseModel):
    action: Literal["add", "list", "done", "clear"] = Field(
        description="add: new item (text); list: show all; done: mark item id done; clear: remove all"
    )
    text: str | None = Field(default=None, description="The item's text (add)")
    id: int | None = Field(default=None, description="The item's number (done)")


def restore(ctx: ExtensionContext) -> TodoState:
    """The newest ``todo-state`` entry on the current branch (root → leaf), or an empty list."""
    for entry in reversed(ctx.session_manager.get_branch()):
        if entry.get("type") == "custom" and entry.get("customType") == ENTRY_TYPE:
            return TodoState.from_data(entry.get("data"))
    return TodoState()


def widget_lines(state: TodoState) -> list[str] | None:
    """The list above the editor (interactive app): open items first; None hides it when empty."""
    if not state.todos:
        return None
    done = sum(t.done for t in state.todos)
    return [f"Todos {done}/{len(state.todos)}", *(f"{'✓' if t.done else '·'} {t.text}" for t in state.todos)]


def render_call(args: dict[str, Any]) -> Text:
    """How a todo call looks in the app: the action and its item, not raw JSON."""
    action = str(args.get("action", ""))
    detail = args.get("text") or (f"#{args['id']}" if args.get("id") is not None else "")
    return Text.assemble(("todo ", "bold"), (action, "cyan"), (f" {detail}" if detail else "", ""))


def render_result(result: Any, expanded: bool) -> Text:
    """The list after the call; collapsed, only its first line (Ctrl+O shows all)."""
    lines = (getattr(result, "text", "") or "").splitlines()
    return Text("\n".join(lines if expanded else lines[:1]), style="red" if result.is_error else "")


def register(pi: ExtensionAPI) -> None:
    state = TodoState()

    def show_widget(ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            ctx.ui.set_widget("todos", widget_lines(state))

    def rebuild(_event: Any, ctx: ExtensionContext) -> None:
        nonlocal state
        state = restore(ctx)
        show_widget(ctx)

    pi.on("session_start", rebuild)
    pi.on("session_tree", rebuild)

    async def execute(
        tool_call_id: str, params: TodoParams, signal: Any, on_update: Any, ctx: ExtensionContext
    ) -> AgentToolResult:
        if params.action == "add":
            if not params.text or not params.text.strip():
                raise ToolError("add needs text")
            state.todos.append(Todo(state.next_id, params.text.strip()))
            state.next_id += 1
            message = f"Added #{state.next_id - 1}"
        elif params.action == "done":
            item = next((t for t in state.todos if t.id == params.id), None)
            if item is None:
                raise ToolError(f"No todo #{params.id}")
            item.done = True
            message = f"Done #{item.id}"
        elif params.action == "clear":
            state.todos.clear()
            state.next_id = 1
            message = "Cleared"
        else:
            message = "Todos"
        if params.action != "list":
            pi.append_entry(ENTRY_TYPE, state.to_data())
            show_widget(ctx)
        return AgentToolResult.text(f"{message}:\n{state.render()}", details=state.to_data())

    pi.register_tool(
        name="todo",
        label="Todo",
        description="Keep a todo list for the current task: add items, list them, mark one done, clear all.",
        parameters=TodoParams,
        execute=execute,
        execution_mode="sequential",  # calls share the list: never interleave them
        prompt_snippet="Track a todo list for multi-step work",
        prompt_guidelines=["Use the todo tool to plan multi-step work and mark items done as you finish."],
        render_call=render_call,
        render_result=render_result,
    )

    def show(args: str, ctx: ExtensionCommandContext) -> None:
        done = sum(t.done for t in state.todos)
        header = f"Todos ({done}/{len(state.todos)} done)" if state.todos else "No todos yet."
        ctx.ui.notify(header + ("\n" + state.render() if state.todos else ""))

    pi.register_command("todos", show, description="Show the todo list of this branch")
