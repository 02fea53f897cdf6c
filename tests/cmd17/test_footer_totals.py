"""The footer's token and cost totals cover the whole session file, as pi's: every assistant message on every
branch (compacted ones too) and every usage entry, not only the active path (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.providers.faux import faux_text
from pi_app.session.stats import FileUsageTotals
from pi_app.session.store import SessionManager
from pi_app.tui.footer_data import file_totals
from tests.tui.conftest import SIZE, make_app, make_session

SID = "0190c0de-0000-7000-8000-0000000000aa"


def _usage(inp: int, out: int, total: float) -> dict:
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total},
    }


def _entry(eid: str, parent: str | None, message: dict) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": message,
    }


def _user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _assistant(text: str, usage: dict) -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "faux",
        "provider": "faux",
        "model": "faux-1",
        "usage": usage,
        "stopReason": "stop",
        "timestamp": 2,
    }


def write_branchy(path: Path, cwd: str, *, spaced: bool = False) -> None:
    """u1 a1 then two branches (u2 a2 | u3 a3, the leaf), and a usage entry: active path 500 in, file 707."""
    lines = [
        {"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd},
        _entry("00000001", None, _user("q1")),
        _entry("00000002", "00000001", _assistant("a1", _usage(100, 10, 0.5))),
        _entry("00000003", "00000002", _user("q2")),
        _entry("00000004", "00000003", _assistant("a2", _usage(200, 20, 1.0))),
        {
            "type": "usage",
            "id": "00000005",
            "parentId": "00000004",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "kind": "cache_warm",
            "provider": "faux",
            "model": "faux-1",
            "usage": _usage(7, 0, 0.01),
        },
        _entry("00000006", "00000002", _user("q3")),
        _entry("00000007", "00000006", _assistant("a3", _usage(400, 40, 2.0))),
    ]
    sep = (", ", ": ") if spaced else (",", ":")
    path.write_text("".join(json.dumps(line, separators=sep) + "\n" for line in lines))


def test_totals_cover_every_branch_and_usage_entry(tmp_path: Path) -> None:
    for spaced in (False, True):  # pi's compact JSON (read in place) and any other writer (parsed)
        path = tmp_path / f"s{spaced}.jsonl"
        write_branchy(path, str(tmp_path), spaced=spaced)
        sm = SessionManager.open(str(path))
        totals = FileUsageTotals().update(str(path), SID, sm.raw_entries())
        assert (totals.tokens.input, totals.tokens.output) == (707, 70)
        assert round(totals.cost, 4) == 3.51


def test_totals_start_over_for_another_file_and_read_only_new_entries(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_branchy(path, str(tmp_path))
    sm = SessionManager.open(str(path))
    totals = FileUsageTotals()
    entries = sm.raw_entries()
    totals.update(str(path), SID, entries[:2])
    assert totals.tokens.input == 100
    totals.update(str(path), SID, entries)
    assert totals.tokens.input == 707
    totals.update("other.jsonl", "other", entries[:2])
    assert totals.tokens.input == 100


async def test_footer_shows_the_whole_file(project: Path, faux, tmp_path: Path) -> None:
    path = tmp_path / "branchy.jsonl"
    write_branchy(path, str(project))
    faux.enqueue(faux_text("more", usage={"input": 1000, "output": 100}))
    session = await make_session(project, session=SessionManager.open(str(path)))
    app = make_app(session)
    async with app.run_test(size=SIZE):
        assert session.get_session_stats().tokens.input < 707  # the active path alone: less than the file
        assert (app.footer.data.input_tokens, app.footer.data.output_tokens) == (707, 70)
        app.submit("and now")
        await app.wait_until_idle()
        assert (app.footer.data.input_tokens, app.footer.data.output_tokens) == (1707, 170)
        assert file_totals(session).tokens.input == 1707
