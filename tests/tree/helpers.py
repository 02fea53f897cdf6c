"""Builders for synthetic session entries (pi's v3 shapes) used by the tree tests and the benchmark."""

from __future__ import annotations

from typing import Any

FIXTURES = "tests/fixtures/sessions"


def ts(n: int) -> str:
    """A distinct ISO timestamp per n (seconds after a fixed instant)."""
    h, rem = divmod(n, 3600)
    m, s = divmod(rem, 60)
    return f"2025-01-{1 + h // 24:02d}T{h % 24:02d}:{m:02d}:{s:02d}.000Z"


def user(eid: str, parent: str | None, text: str, n: int = 0) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": n},
    }


def assistant(
    eid: str,
    parent: str | None,
    text: str = "",
    n: int = 0,
    calls: list[tuple[str, str, dict[str, Any]]] = (),  # type: ignore[assignment]
    stop: str = "stop",
    error: str | None = None,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "provider": "faux",
        "model": "faux-1",
        "stopReason": stop,
        "timestamp": n,
    }
    if error:
        msg["errorMessage"] = error
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts(n), "message": msg}


def tool_result(
    eid: str, parent: str, call_id: str, name: str, text: str, n: int = 0, error: bool = False
) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": error,
            "timestamp": n,
        },
    }


def entry(kind: str, eid: str, parent: str | None, n: int = 0, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": ts(n), **fields}


def chain(prefix: str, parent: str | None, count: int, start: int = 0) -> list[dict[str, Any]]:
    """Alternating user/assistant messages, each the child of the previous one."""
    out: list[dict[str, Any]] = []
    for k in range(count):
        eid = f"{prefix}{k}"
        n = start + k
        out.append(
            user(eid, parent, f"{prefix} question {k}", n)
            if k % 2 == 0
            else assistant(eid, parent, f"{prefix} answer {k}", n)
        )
        parent = eid
    return out


def generated_session(total: int = 10_000, forks: int = 200, seed_text: str = "work") -> list[dict[str, Any]]:
    """A long main conversation with ``forks`` side branches (each a few turns) hanging off it."""
    side_len = 4
    main_len = total - forks * side_len
    entries = chain("m", None, main_len)
    n = main_len
    step = max(1, main_len // (forks + 1))
    for f in range(forks):
        at = f"m{(f + 1) * step - 1}"
        side = chain(f"s{f}_", at, side_len, start=n)
        side[0]["message"]["content"][0]["text"] = f"{seed_text} alternative {f}"
        entries += side
        n += side_len
    return entries


def branchy_session(total: int = 10_000, every: int = 50, back: int | None = None) -> list[dict[str, Any]]:
    """A user who goes back and branches: after every ``every`` entries the last ``back`` (default half) are
    abandoned and the conversation continues from the entry before them. The abandoned tail stays as an older
    side branch, so the active path forks every ``every`` entries (forks nest ``total / every`` deep)."""
    back = max(1, every // 2) if back is None else back
    out: list[dict[str, Any]] = []
    path: list[dict[str, Any]] = []
    for n in range(total):
        if n and n % every == 0 and len(path) > back + 1:
            # branch off just before a question, as a user going back would
            cut = back if path[-back]["message"]["role"] == "user" else back + 1
            abandoned = path[-cut]["message"]["content"][0]
            abandoned["text"] = f"(abandoned branch {n}) {abandoned['text']}"
            path = path[:-cut]
        parent = path[-1]["id"] if path else None
        eid = f"e{n}"
        e = (
            user(eid, parent, f"question {n}", n)
            if len(path) % 2 == 0
            else assistant(eid, parent, f"answer {n}", n)
        )
        out.append(e)
        path.append(e)
    return out


def comb_session(spine: int = 2_000) -> list[dict[str, Any]]:
    """One long spine with a one-entry stub (older than the spine's next entry) hanging off every entry."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for k in range(spine):
        eid = f"s{k}"
        if parent is not None:
            out.append(user(f"x{k}", parent, f"stub {k}", 2 * k - 1))
        out.append(
            user(eid, parent, f"step {k}", 2 * k) if k % 2 == 0 else assistant(eid, parent, f"ok {k}", 2 * k)
        )
        parent = eid
    return out


def forked_small() -> list[dict[str, Any]]:
    """root user → assistant a1 forks into two user branches."""
    return [
        user("u1", None, "start", 1),
        assistant("a1", "u1", "hello", 2),
        user("b1", "a1", "branch one", 3),
        user("b2", "a1", "branch two", 4),
        assistant("b2a", "b2", "two answer", 5),
    ]
