"""The footer's numbers, read from an AgentSession (pure: no Textual)."""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from widgets.footer_format import FooterData

if TYPE_CHECKING:
    from pi_app.session.agent_session import AgentSession
    from pi_app.session.stats import FileUsageTotals

# One running total per open session (the footer is refreshed after every message: only new entries are read).
_TOTALS: weakref.WeakKeyDictionary[AgentSession, FileUsageTotals] = weakref.WeakKeyDictionary()


def file_totals(session: AgentSession) -> FileUsageTotals:
    """Tokens and cost over the whole session file (every branch, compacted messages too), as pi's footer."""
    from pi_app.session.stats import FileUsageTotals  # (not needed by the first frame's git_branch)

    totals = _TOTALS.get(session)
    if totals is None:
        totals = _TOTALS[session] = FileUsageTotals()
    entries = session.session_manager.raw_entries()
    return totals.update(session.session_file, session.session_id, entries)


def git_branch(cwd: str) -> str | None:
    """The current branch from ``.git/HEAD`` (no subprocess); a detached HEAD shows ``detached``."""
    path = Path(cwd)
    for directory in (path, *path.parents):
        git = directory / ".git"
        if git.is_file():  # worktree: "gitdir: <path>"
            try:
                target = git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            except OSError:
                return None
            git = (directory / target).resolve()
        head = git / "HEAD"
        if head.is_file():
            try:
                text = head.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("ref: refs/heads/"):
                return text.removeprefix("ref: refs/heads/")
            return "detached"
    return None


def footer_data(
    session: AgentSession,
    *,
    cwd_display: str | None = None,
    home: str | None = None,
    branch: str | None = None,
) -> FooterData:
    usage = session.context_usage()  # not the whole session's stats: those read every message
    totals = file_totals(session)
    model = session.model
    auto = bool(session.settings.settings.compaction.enabled)
    registry = session.model_registry
    providers = len({m.provider for m in registry.get_available()}) or 1
    subscription = model is not None and bool(registry.is_using_oauth(model))
    window = usage.context_window if usage is not None else (model.contextWindow if model else 0)
    percent = usage.percent if usage is not None else 0.0
    return FooterData(
        cwd=cwd_display if cwd_display is not None else str(session.cwd),
        home=home if home is not None else os.path.expanduser("~"),
        git_branch=branch,
        session_name=session.session_name,
        input_tokens=totals.tokens.input,
        output_tokens=totals.tokens.output,
        cache_read=totals.tokens.cache_read,
        cache_write=totals.tokens.cache_write,
        cost=totals.cost,
        using_subscription=subscription,
        context_percent=percent,
        context_window=window,
        auto_compact=auto,
        model_id=model.id if model is not None else None,
        provider=model.provider if model is not None else None,
        reasoning=bool(model.reasoning) if model is not None else False,
        thinking_level=session.thinking_level or "off",
        provider_count=providers,
    )
