"""The app on a lazily typed resumed history (issue 15): the tail is drawn, the rest is typed afterwards in
steps, an unusable message is then reported in the chat, and the chat and ↑ cover the whole session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_app.ai.providers.faux import faux_text
from pi_app.ai.text import text_of
from pi_app.ai.types import UserMessage
from pi_app.session.store import SessionManager
from tests.perf.session_gen import linear_session
from tests.session_store.test_lazy_history import damage
from tests.tui.conftest import SIZE, make_app, make_session
from tests.tui.session_helpers import statuses, user_texts, wait_for
from widgets.messages import UserMessageView
from widgets.notices import Notice


def _session(path: Path, entries: int, damage_line: int | None = None) -> str | None:
    linear_session(path, entries, provider="faux", model="faux-1", api="faux")
    return None if damage_line is None else damage(path, damage_line)


async def test_tail_drawn_then_history_typed_and_bad_message_reported(project: Path, faux) -> None:
    path = project / "s.jsonl"
    bad_id = _session(path, 1_500, damage_line=10)
    eager = await make_session(project, session=SessionManager.open(path), tools=None)
    users = [text_of(m.content) for m in eager.messages if isinstance(m, UserMessage)]
    lazy = await make_session(project, session=SessionManager.open(path), tools=None, lazy_history=True)
    assert lazy.untyped_messages == len(eager.messages) + 1
    app = make_app(lazy, tail_messages=60)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: lazy.untyped_messages == 0, "the history typed")
        await wait_for(
            pilot, lambda: any(bad_id in s for s in statuses(app)), "the unusable message's warning"
        )
        (warning,) = [w for w in app.query(Notice) if bad_id in getattr(w, "text", "")]
        assert f"{path.resolve()}:10: skipped unusable message entry {bad_id}" in warning.text
        assert lazy.messages == eager.messages
        # drawn again from the typed history: the tail, and the indices the chat keeps, match the messages
        tail = [text_of(m.content) for m in eager.messages[-60:] if isinstance(m, UserMessage)]
        assert tail[-1] == users[-1]
        await wait_for(pilot, lambda: user_texts(app) == tail, "the tail drawn again")  # (mounted in steps)
        views = list(app.query(UserMessageView))
        assert views and all(text_of(eager.messages[v.pi_index].content) == v.text for v in views)
        history = app.editor.prompt_history  # ↑ recalls prompts from the whole history, oldest ones too
        assert history.entries == users[-history.max_entries :] and len(users) > 60


async def test_prompt_on_a_lazy_history_sends_what_an_eager_one_does(project: Path, faux) -> None:
    path = project / "s.jsonl"
    _session(path, 400)
    faux.enqueue(faux_text("eager answer"))
    eager = await make_session(project, session=SessionManager.open(path), tools=None)
    await eager.prompt("next")
    faux.enqueue(faux_text("lazy answer"))
    _session(path, 400)  # the same file again (the eager prompt appended to it)
    lazy = await make_session(project, session=SessionManager.open(path), tools=None, lazy_history=True)
    await lazy.prompt("next")
    first, second = faux.requests
    # each stored message was typed for the request only: the history itself is still untyped
    assert lazy.untyped_messages > 390
    strip = [m.model_dump(exclude={"timestamp"}) for m in first.messages]
    assert strip == [m.model_dump(exclude={"timestamp"}) for m in second.messages]
    assert len(first.messages) > 390


async def test_compacting_a_lazy_history_summarizes_all_of_it(project: Path, faux) -> None:
    """Compaction reads every stored message (to cut and to summarize): the untyped ones are typed for it."""
    path = project / "s.jsonl"
    _session(path, 400)
    first_user = text_of(
        next(
            m
            for m in SessionManager.open(path).build_session_context().messages
            if isinstance(m, UserMessage)
        ).content
    )
    lazy = await make_session(project, session=SessionManager.open(path), tools=None, lazy_history=True)
    assert lazy.untyped_messages > 390
    faux.enqueue(faux_text("the summary"))
    result = await lazy.compact()
    assert result.summary.startswith("the summary")
    (request,) = faux.requests
    assert first_user[:40] in str([m.model_dump() for m in request.messages])  # the oldest turn summarized
    assert lazy.untyped_messages == 0
    assert "the summary" in str([m.model_dump() for m in lazy.messages])


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize(
    "fixture",
    [
        "pi073/compacted.jsonl",
        "pi073/branched.jsonl",
        "pi073/scratch.continued-by-pi.jsonl",
        "pi16/compacted.jsonl",
    ],
)
async def test_sessions_of_every_kind_send_the_same_request_lazy_or_eager(
    project: Path, faux, fixture: str
) -> None:
    """Compaction and branch summaries, custom and bash messages (typed up front or when converted) and stored
    LLM messages (typed only by the request): the request is the eager history's, message for message."""
    requests = []
    for lazy in (False, True):
        path = project / f"{lazy}.jsonl"
        shutil.copy(FIXTURES / fixture, path)
        faux.enqueue(faux_text("answer"))
        session = await make_session(
            project, session=SessionManager.open(path), tools=None, lazy_history=lazy
        )
        await session.prompt("next")
        requests.append([m.model_dump(exclude={"timestamp"}) for m in faux.requests[-1].messages])
    eager, lazy_sent = requests
    assert len(eager) > 2 and lazy_sent == eager
