"""The result convention of the session's tree and compaction operations (see docs/architecture.md).

Success returns a frozen result dataclass; anything else raises a :class:`SessionOperationError`.
A user's cancellation (Esc during a compaction or branch summary) raises :class:`Cancelled`, so callers
tell "cancelled" from "failed" by type, never by the exception's text.
"""

from __future__ import annotations

from dataclasses import dataclass


class SessionOperationError(RuntimeError):
    """A fork / clone / navigation / compaction did not happen; the text says why (shown to the user)."""


class Cancelled(SessionOperationError):
    """The user cancelled the operation; nothing changed."""


class NavigationError(SessionOperationError, ValueError):
    """A tree move or fork could not be done (unknown entry, no model or key for a branch summary …).

    Also a ValueError: fork's "Invalid entry ID for forking" always was one."""


class CompactionError(SessionOperationError):
    """Compaction failed or had nothing to do (``Nothing to compact (session too small)`` …)."""


class CompactionCancelled(CompactionError, Cancelled):
    """Compaction cancelled by the user (Esc, abort)."""


@dataclass(frozen=True, slots=True)
class NavigateResult:
    """Where /tree moved the leaf. ``editor_text``: the text of a user (or custom) message target, for the
    editor; ``summary_entry_id``: the branch summary entry written, if any. ``moved`` is False when the
    target already was the leaf."""

    editor_text: str | None = None
    summary_entry_id: str | None = None
    moved: bool = True


@dataclass(frozen=True, slots=True)
class ForkResult:
    """A fork into a new session file. ``text``: the forked user message (for the editor), None when the
    fork point was another kind of entry (then the entry itself is included)."""

    text: str | None
    session_file: str | None


@dataclass(frozen=True, slots=True)
class CloneResult:
    """The active path (up to an entry) duplicated into a new session file; None while in memory."""

    session_file: str | None
