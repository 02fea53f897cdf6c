"""The session's entries and tree as the RPC wire has them (``get_entries``, ``get_tree``): JSON text built
entry by entry, without recursion (a linear session is a chain as deep as it is long)."""

from __future__ import annotations

import json
from typing import Any

from pi_app.session.jsontext import RawJson, dumps


def entry_data(entry: Any) -> Any:
    """A record's or a dict entry's data as a dict."""
    return entry.data if hasattr(entry, "data") else dict(entry)


def _node_json(node: Any) -> str:
    """The entry as compact JSON text. An entry still unparsed is parsed for this only, not kept: a
    50,000-entry tree would otherwise hold every entry twice once the tree had been asked for."""
    line = getattr(node.entry, "unparsed_line", None)
    if line is not None:
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return dumps(data)  # re-encoded: the file may have been written with other spacing
    return dumps(entry_data(node.entry))


def tree_json_text(nodes: list[Any], label_stamps: dict[str, str] | None = None) -> RawJson:
    """The session tree as pi's ``[{entry, children: [...], label?, labelTimestamp?}]`` JSON text, built
    without recursion.

    A linear session of N entries is a chain N levels deep; the stdlib encoder recurses per level (and
    gives up near 1000), the generic iterative fallback is slow, so each entry is encoded on its own and
    the nesting is written here.
    """
    stamps = label_stamps or {}
    parts: list[str] = ["["]
    work: list[Any] = ["]"]

    def push_children(children: list[Any]) -> None:
        for i, child in enumerate(reversed(children)):
            if i:
                work.append(",")
            work.append(child)

    push_children(nodes)
    while work:
        item = work.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        parts.append('{"entry":' + _node_json(item) + ',"children":[')
        tail = "]"
        if item.label:
            tail += ',"label":' + dumps(item.label)
            stamp = stamps.get(item.entry["id"])
            if stamp:
                tail += ',"labelTimestamp":' + dumps(stamp)
        work.append(tail + "}")
        push_children(item.children)
    return RawJson("".join(parts))


def label_timestamps(entries: list[Any]) -> dict[str, str]:
    """When each current label was set (the timestamp of the label entry that set it)."""
    out: dict[str, str] = {}
    for e in entries:
        kind = e.type if not isinstance(e, dict) else e.get("type")
        if kind != "label":
            continue
        target = e.get("targetId")
        if not isinstance(target, str):
            continue
        if e.get("label"):
            out[target] = str(e.get("timestamp", ""))
        else:
            out.pop(target, None)
    return out
