"""The RPC command handlers: one coroutine per command ``type``, returning ``data`` for the response.

A handler raises :class:`RpcError` (or any exception) to answer ``success: false`` with that message. A
handler returning :data:`NO_DATA` answers without a ``data`` field (pi sends none for plain acks);
returning ``None`` sends ``"data": null`` (e.g. ``cycle_model`` with nothing to cycle to).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from pi_app.ai.types import THINKING_LEVELS, ImageContent, Model, dump
from pi_app.modes.rpc_tree import entry_data, label_timestamps, tree_json_text
from pi_app.modes.wire import model_json, wire_messages, wire_messages_json
from pi_app.session.jsontext import RawJson, dumps
from pi_app.session.results import Cancelled
from pi_app.session.session_events import compaction_result_json

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession

NO_DATA: Any = object()
QUEUE_MODES = ("all", "one-at-a-time")


class RpcError(Exception):
    """A command failed; the message is the response's ``error``."""


def _as_json(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    return dump(value)


def _str_field(cmd: dict[str, Any], key: str, command: str) -> str:
    value = cmd.get(key)
    if not isinstance(value, str):
        raise RpcError(f'{command} requires a string "{key}"')
    return value


def _bool_field(cmd: dict[str, Any], key: str, command: str) -> bool:
    value = cmd.get(key)
    if not isinstance(value, bool):
        raise RpcError(f'{command} requires a boolean "{key}"')
    return value


def parse_images(raw: Any) -> list[ImageContent] | None:
    """``images: [{type: "image", data, mimeType}]`` → ImageContent list (None when absent)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise RpcError('"images" must be an array of {"type": "image", "data", "mimeType"} objects')
    out: list[ImageContent] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("data"), str):
            raise RpcError(f'images[{i}] must be an object with base64 "data" and "mimeType"')
        if not isinstance(item.get("mimeType"), str):
            raise RpcError(f'images[{i}] is missing "mimeType"')
        out.append(ImageContent(data=item["data"], mimeType=item["mimeType"]))
    return out or None


# ------------------------------------------------------------------------------------------- state


def session_state(session: AgentSession) -> dict[str, Any]:
    model = session.model
    state: dict[str, Any] = {
        "model": model_json(model) if model is not None else None,
        "thinkingLevel": session.thinking_level,
        "isStreaming": bool(session.is_streaming),
        "isCompacting": bool(session.is_compacting),
        "steeringMode": session.steering_mode,
        "followUpMode": session.follow_up_mode,
        "sessionFile": session.session_file,
        "sessionId": session.session_id,
        "sessionName": session.session_name,
        "autoCompactionEnabled": bool(session.auto_compaction_enabled),
        "messageCount": len(wire_messages(session.messages)),
        "pendingMessageCount": session.pending_message_count,
    }
    # pi leaves undefined fields out (no file for --no-session, no name until one is set)
    for key in ("sessionFile", "sessionName"):
        if state[key] is None:
            del state[key]
    return state


# ---------------------------------------------------------------------------------------- handlers

Handler = Callable[[Any, dict[str, Any]], Awaitable[Any]]


# pi 1.6: what happened to a submitted message ("handled" needs extension input handlers, which we lack).
QUEUED = {"disposition": "queued"}


async def _steer(session: AgentSession, cmd: dict[str, Any]) -> Any:
    await session.steer(_str_field(cmd, "message", "steer"), parse_images(cmd.get("images")))
    return dict(QUEUED)


async def _follow_up(session: AgentSession, cmd: dict[str, Any]) -> Any:
    await session.follow_up(_str_field(cmd, "message", "follow_up"), parse_images(cmd.get("images")))
    return dict(QUEUED)


async def _clear_queue(session: AgentSession, cmd: dict[str, Any]) -> Any:
    steering, follow_up = session.clear_queue()
    return {"steering": list(steering), "followUp": list(follow_up)}


async def _abort(session: AgentSession, cmd: dict[str, Any]) -> Any:
    await session.abort()
    return NO_DATA


async def _new_session(session: AgentSession, cmd: dict[str, Any]) -> Any:
    # pi's optional parentSession is not recorded here: a new session always starts without a parent
    await session.new_session()
    return {"cancelled": False}  # nothing can veto it yet (extensions will)


async def _get_state(session: AgentSession, cmd: dict[str, Any]) -> Any:
    return session_state(session)


async def _get_messages(session: AgentSession, cmd: dict[str, Any]) -> Any:
    return {"messages": wire_messages_json(session.messages)}


async def _set_model(session: AgentSession, cmd: dict[str, Any]) -> Any:
    provider = _str_field(cmd, "provider", "set_model")
    model_id = _str_field(cmd, "modelId", "set_model")
    models = session.model_registry.get_available()
    model = next((m for m in models if m.provider == provider and m.id == model_id), None)
    if model is None:
        raise RpcError(f"Model not found: {provider}/{model_id}")
    await session.set_model(model)
    return model_json(model)


async def _cycle_model(session: AgentSession, cmd: dict[str, Any]) -> Any:
    result = await session.cycle_model()
    if result is None:
        return None
    model = result if isinstance(result, Model) else getattr(result, "model", None)
    return {
        "model": model_json(model) if model is not None else None,
        "thinkingLevel": getattr(result, "thinking_level", None) or session.thinking_level,
        "isScoped": bool(getattr(result, "is_scoped", bool(getattr(session, "scoped_models", None)))),
    }


async def _get_available_models(session: AgentSession, cmd: dict[str, Any]) -> Any:
    models = session.model_registry.get_available()
    return {"models": [model_json(m) for m in models]}


async def _set_thinking_level(session: AgentSession, cmd: dict[str, Any]) -> Any:
    level = _str_field(cmd, "level", "set_thinking_level")
    if level not in THINKING_LEVELS:
        raise RpcError(f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}')
    session.set_thinking_level(level)
    return NO_DATA


async def _cycle_thinking_level(session: AgentSession, cmd: dict[str, Any]) -> Any:
    level = session.cycle_thinking_level()
    return None if level is None else {"level": level}


async def _get_available_thinking_levels(session: AgentSession, cmd: dict[str, Any]) -> Any:
    return {"levels": list(session.available_thinking_levels())}


def _queue_mode(cmd: dict[str, Any], command: str) -> Literal["all", "one-at-a-time"]:
    mode = _str_field(cmd, "mode", command)
    if mode == "all":
        return "all"
    if mode == "one-at-a-time":
        return "one-at-a-time"
    raise RpcError(f'Invalid mode "{mode}". Valid values: {", ".join(QUEUE_MODES)}')


async def _set_steering_mode(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.set_steering_mode(_queue_mode(cmd, "set_steering_mode"))
    return NO_DATA


async def _set_follow_up_mode(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.set_follow_up_mode(_queue_mode(cmd, "set_follow_up_mode"))
    return NO_DATA


async def _compact(session: AgentSession, cmd: dict[str, Any]) -> Any:
    instructions = cmd.get("customInstructions")
    if instructions is not None and not isinstance(instructions, str):
        raise RpcError('"customInstructions" must be a string')
    result = await session.compact(instructions)
    data = compaction_result_json(result)
    if data is None:
        return None
    # pi 1.6: a heuristic estimate of the rebuilt context right after compaction (not a provider count)
    from pi_app.session.compaction.estimate import estimate_tokens

    after = sum(estimate_tokens(m) for m in session.messages)
    out: dict[str, Any] = {}
    for key, value in data.items():
        out[key] = value
        if key == "tokensBefore":
            out["estimatedTokensAfter"] = after
    return out


async def _set_auto_compaction(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.set_auto_compaction_enabled(_bool_field(cmd, "enabled", "set_auto_compaction"))
    return NO_DATA


async def _set_auto_retry(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.set_auto_retry_enabled(_bool_field(cmd, "enabled", "set_auto_retry"))
    return NO_DATA


async def _abort_retry(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.abort_retry()
    return NO_DATA


def bash_result_json(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    out: dict[str, Any] = {
        "output": result.output,
        "exitCode": result.exit_code,
        "cancelled": result.cancelled,
        "truncated": result.truncated,
    }
    if getattr(result, "full_output_path", None):
        out["fullOutputPath"] = result.full_output_path
    return out


async def _bash(session: AgentSession, cmd: dict[str, Any]) -> Any:
    result = await session.execute_bash(_str_field(cmd, "command", "bash"))
    return bash_result_json(result)


async def _abort_bash(session: AgentSession, cmd: dict[str, Any]) -> Any:
    session.abort_bash()
    return NO_DATA


async def _get_session_stats(session: AgentSession, cmd: dict[str, Any]) -> Any:
    stats = _as_json(session.get_session_stats())
    if isinstance(stats, dict) and "totalMessages" in stats:
        stats["totalMessages"] = len(wire_messages(session.messages))  # the tool-set log is not shown
    return stats


async def _export_html(session: AgentSession, cmd: dict[str, Any]) -> Any:
    out = cmd.get("outputPath")
    if out is not None and not isinstance(out, str):
        raise RpcError('"outputPath" must be a string')
    path = await asyncio.to_thread(export_session_to_html, session, out)
    return {"path": path}


def export_session_to_html(session: AgentSession, out_path: str | None) -> str:
    """Export the live session; an unsaved (or in-memory) one is exported from a temporary copy."""
    from pi_app.session.export import default_export_path, export_session_html
    from pi_app.session.store.entries import to_line

    manager = session.session_manager
    session_file = session.session_file
    tools = list(getattr(getattr(session.agent, "state", None), "tools", None) or [])
    leaf = manager.leaf_id
    if session_file and os.path.exists(session_file) and os.path.getsize(session_file) > 0:
        target = out_path or default_export_path(session_file)
        target = os.path.join(session.cwd, target) if not os.path.isabs(target) else target
        return export_session_html(
            session_file, target, system_prompt=session.system_prompt, tools=tools, leaf_id=leaf
        )
    entries = manager.raw_entries()
    if not entries:
        raise RpcError("Nothing to export yet - start a conversation first")
    name = os.path.basename(session_file) if session_file else f"{session.session_id}.jsonl"
    target = out_path or default_export_path(name)
    target = os.path.join(session.cwd, target) if not os.path.isabs(target) else target
    with tempfile.TemporaryDirectory(prefix="pi-export-") as tmp:
        copy = os.path.join(tmp, name)
        with open(copy, "wb") as fh:
            fh.write(to_line(dict(manager.raw_header())))
            for entry in entries:
                fh.write(to_line(entry.data))
        return export_session_html(
            copy, target, system_prompt=session.system_prompt, tools=tools, leaf_id=leaf
        )


async def _switch_session(session: AgentSession, cmd: dict[str, Any]) -> Any:
    path = _str_field(cmd, "sessionPath", "switch_session")
    await session.switch_session(path)
    return {"cancelled": False}  # nothing can veto it yet (extensions will)


async def _fork(session: AgentSession, cmd: dict[str, Any]) -> Any:
    try:
        result = await session.fork(_str_field(cmd, "entryId", "fork"))
    except Cancelled:
        return {"text": None, "cancelled": True}
    return {"text": result.text, "cancelled": False}


async def _clone(session: AgentSession, cmd: dict[str, Any]) -> Any:
    try:
        await session.clone()
    except Cancelled:
        return {"cancelled": True}
    return {"cancelled": False}


async def _get_fork_messages(session: AgentSession, cmd: dict[str, Any]) -> Any:
    messages = []
    for item in session.get_fork_messages():
        if isinstance(item, tuple):
            messages.append({"entryId": item[0], "text": item[1]})
        elif isinstance(item, dict):
            messages.append({"entryId": item.get("entryId", item.get("entry_id")), "text": item.get("text")})
        else:
            messages.append({"entryId": item.entry_id, "text": item.text})
    return {"messages": messages}


async def _get_last_assistant_text(session: AgentSession, cmd: dict[str, Any]) -> Any:
    return {"text": session.get_last_assistant_text()}


async def _set_session_name(session: AgentSession, cmd: dict[str, Any]) -> Any:
    name = _str_field(cmd, "name", "set_session_name").strip()
    if not name:
        raise RpcError("Session name cannot be empty")
    session.set_session_name(name)
    return NO_DATA


def source_info(path: str, source: str, cwd: str, agent_dir: str) -> dict[str, Any]:
    """pi 0.73.1's ``sourceInfo`` for a prompt template or skill loaded from ``path``.

    ``source`` is our loader's tag: auto-discovered ``user``/``project`` resources, or ``path`` for one
    given in settings or on the command line (pi tells those apart; we answer as pi does for a path given
    on the command line: user/project scope under those roots, else ``temporary``).
    """
    user_base = agent_dir
    project_base = os.path.join(cwd, ".pi")
    if source == "user":
        return {"path": path, "source": "auto", "scope": "user", "origin": "top-level", "baseDir": user_base}
    if source == "project":
        return {
            "path": path,
            "source": "auto",
            "scope": "project",
            "origin": "top-level",
            "baseDir": project_base,
        }
    real = os.path.abspath(path)
    for base, scope in ((user_base, "user"), (project_base, "project")):
        for kind in ("skills", "prompts"):
            root = os.path.join(os.path.abspath(base), kind)
            if real == root or real.startswith(root + os.sep):
                return {
                    "path": path,
                    "source": "local",
                    "scope": scope,
                    "origin": "top-level",
                    "baseDir": root,
                }
    base_dir = real if os.path.isdir(real) else os.path.dirname(real)
    return {"path": path, "source": "local", "scope": "temporary", "origin": "top-level", "baseDir": base_dir}


async def _get_commands(session: AgentSession, cmd: dict[str, Any]) -> Any:
    """pi 0.73.1: ``{commands: [{name, description, source: "prompt"|"skill", sourceInfo}]}``."""
    cwd, agent_dir = str(session.cwd), str(session.agent_dir)
    out: list[dict[str, Any]] = [
        {
            "name": c["name"],
            "description": c["description"],
            "source": "extension",
            "sourceInfo": {
                "path": c["path"],
                "source": "local",
                "scope": c["location"],
                "origin": "top-level",
            },
        }
        for c in session.hooks.command_infos()
    ]
    out += [
        {
            "name": t.name,
            "description": t.description,
            "source": "prompt",
            "sourceInfo": source_info(t.file_path, t.source, cwd, agent_dir),
        }
        for t in session.prompt_templates
    ]
    out += [
        {
            "name": f"skill:{s.name}",
            "description": s.description,
            "source": "skill",
            "sourceInfo": source_info(s.file_path, s.source, cwd, agent_dir),
        }
        for s in session.skills
    ]
    return {"commands": out}


# ---- the session's entries and tree (pi 1.6)


async def _get_entries(session: AgentSession, cmd: dict[str, Any]) -> Any:
    """Every entry in append order; ``since`` (an entry id) gives only the entries strictly after it."""
    manager = session.session_manager
    entries = manager.raw_entries()
    since = cmd.get("since")
    if since is not None:
        if not isinstance(since, str):
            raise RpcError('"since" must be an entry id string')
        at = next((i for i, e in enumerate(entries) if e["id"] == since), None)
        if at is None:
            raise RpcError(f"Entry {since} not found")
        entries = entries[at + 1 :]
    body = ",".join(dumps(entry_data(e)) for e in entries)
    return {"entries": RawJson(f"[{body}]"), "leafId": manager.leaf_id}


async def _get_tree(session: AgentSession, cmd: dict[str, Any]) -> Any:
    manager = session.session_manager
    stamps = label_timestamps(manager.raw_entries())
    return {"tree": tree_json_text(manager.get_tree(), stamps), "leafId": manager.leaf_id}


# ---- beyond pi: moving in the tree and labelling


async def _navigate_tree(session: AgentSession, cmd: dict[str, Any]) -> Any:
    target = _str_field(cmd, "targetId", "navigate_tree")
    for key in ("customInstructions", "label"):
        if cmd.get(key) is not None and not isinstance(cmd.get(key), str):
            raise RpcError(f'"{key}" must be a string')
    try:
        result = await session.navigate_tree(
            target,
            summarize=bool(cmd.get("summarize", False)),
            custom_instructions=cmd.get("customInstructions"),
            replace_instructions=bool(cmd.get("replaceInstructions", False)),
            label=cmd.get("label"),
        )
    except Cancelled:
        return {"cancelled": True}
    data: dict[str, Any] = {"cancelled": False}
    if result.editor_text is not None:
        data["editorText"] = result.editor_text
    if result.summary_entry_id is not None:
        data["summaryEntryId"] = result.summary_entry_id
    return data


async def _set_label(session: AgentSession, cmd: dict[str, Any]) -> Any:
    entry_id = _str_field(cmd, "entryId", "set_label")
    label = cmd.get("label")
    if label is not None and not isinstance(label, str):
        raise RpcError('"label" must be a string')
    if session.session_manager.get_raw_entry(entry_id) is None:
        raise RpcError(f"Entry {entry_id} not found")
    session.set_label(entry_id, label.strip() or None if label else None)
    return NO_DATA


HANDLERS: dict[str, Handler] = {
    "steer": _steer,
    "follow_up": _follow_up,
    "abort": _abort,
    "new_session": _new_session,
    "get_state": _get_state,
    "get_messages": _get_messages,
    "set_model": _set_model,
    "cycle_model": _cycle_model,
    "get_available_models": _get_available_models,
    "set_thinking_level": _set_thinking_level,
    "cycle_thinking_level": _cycle_thinking_level,
    "set_steering_mode": _set_steering_mode,
    "set_follow_up_mode": _set_follow_up_mode,
    "compact": _compact,
    "set_auto_compaction": _set_auto_compaction,
    "set_auto_retry": _set_auto_retry,
    "abort_retry": _abort_retry,
    "bash": _bash,
    "abort_bash": _abort_bash,
    "get_session_stats": _get_session_stats,
    "export_html": _export_html,
    "switch_session": _switch_session,
    "fork": _fork,
    "clone": _clone,
    "get_fork_messages": _get_fork_messages,
    "get_last_assistant_text": _get_last_assistant_text,
    "set_session_name": _set_session_name,
    "get_commands": _get_commands,
    "get_tree": _get_tree,
    "get_entries": _get_entries,
    "clear_queue": _clear_queue,
    "get_available_thinking_levels": _get_available_thinking_levels,
    "navigate_tree": _navigate_tree,
    "set_label": _set_label,
}
