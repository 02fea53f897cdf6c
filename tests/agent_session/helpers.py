"""Building sessions over the faux provider in a temporary project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_app.ai.providers.faux import faux_model
from pi_app.session.agent_session import AgentSession
from pi_app.session.assembly import create_agent_session
from pi_app.session.config import AuthStorage, ModelRegistry, SettingsManager
from pi_app.session.store import SessionManager, load_session_file

FAST_RETRY = {"retry": {"enabled": True, "maxRetries": 3, "baseDelayMs": 1, "maxDelayMs": 10}}


async def make_session(
    tmp_path: Path,
    *,
    settings: dict[str, Any] | None = None,
    context_window: int = 200_000,
    key: str | None = "test-key",
    session: SessionManager | None = None,
    settings_manager: SettingsManager | None = None,
    **kw: Any,
) -> AgentSession:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    auth = AuthStorage.in_memory()
    if key:
        auth.set_runtime_api_key("faux", key)
    registry = ModelRegistry(auth, None)
    mgr = session or SessionManager.create(str(project), tmp_path / "sessions")
    kw.setdefault("model", faux_model(context_window=context_window))
    return await create_agent_session(
        project,
        tmp_path / "agent",
        settings=settings_manager or SettingsManager.in_memory({**FAST_RETRY, **(settings or {})}),
        auth=auth,
        model_registry=registry,
        session=mgr,
        **kw,
    )


def entries(path: str) -> list[dict[str, Any]]:
    """The file's entries as dicts, re-loaded from disk (raises if the file is not a valid session)."""
    loaded = load_session_file(path, rewrite_migrated=False)
    assert loaded.header is not None
    return [e.data if hasattr(e, "data") else e for e in loaded.entries]


def reopen(path: str) -> SessionManager:
    return SessionManager.open(path)


def texts(messages: list[Any]) -> list[str]:
    """role:text summary of LLM messages (what the provider saw)."""
    out = []
    for m in messages:
        content = m.content
        if isinstance(content, str):
            body = content
        else:
            parts = []
            for c in content:
                if c.type == "text":
                    parts.append(c.text)
                elif c.type == "toolCall":
                    parts.append(f"call:{c.name}")
            body = "|".join(parts)
        out.append(f"{m.role}:{body}")
    return out


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    async def __call__(self, event: Any) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]


class Script:
    """Faux responder: agent requests get ``responses`` in order; summarisation requests get ``summary``.

    Summaries run in parallel for split turns, so routing by system prompt keeps the test order-proof.
    """

    def __init__(self, faux: Any, *responses: Any, summary: Any = "SUMMARY") -> None:
        from pi_app.session.compaction.prompts import SUMMARIZER_SYSTEM_PROMPT

        self._summarizer = SUMMARIZER_SYSTEM_PROMPT
        self.responses = list(responses)
        self.summary = summary
        self.agent_requests: list[Any] = []
        self.summary_requests: list[Any] = []
        faux.responder = self

    def add(self, *responses: Any) -> None:
        self.responses.extend(responses)

    def __call__(self, ctx: Any) -> Any:
        from pi_app.ai.providers.faux import faux_text

        if ctx.systemPrompt == self._summarizer:
            self.summary_requests.append(ctx)
            s = self.summary
            if callable(s):
                return s(ctx)
            return faux_text(s) if isinstance(s, str) else s
        self.agent_requests.append(ctx)
        return self.responses.pop(0) if self.responses else None
