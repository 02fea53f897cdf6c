"""A big session's /tree model is built in the background after the first frame (issue 15: /tree on a
50,000-entry session), so opening /tree reuses it instead of building it then."""

from __future__ import annotations

from pathlib import Path

from pi_app.session.store import SessionManager
from pi_app.tui.session_commands import PREBUILD_TREE_ENTRIES, prebuild_tree
from tests.perf.session_gen import linear_session
from tests.tui.conftest import make_app, make_session
from widgets.tree import TreeModel
from widgets.tree import model as tree_model


async def test_prebuild_caches_the_model_that_tree_then_opens(project: Path, faux) -> None:
    path = project / "big.jsonl"
    linear_session(path, PREBUILD_TREE_ENTRIES, cwd=str(project))
    session = await make_session(project, session=SessionManager.open(str(path)))
    app = make_app(session)
    sm = session.session_manager
    assert sm not in tree_model._MODEL_CACHE
    prebuild_tree(app)
    built = tree_model._MODEL_CACHE[sm][1]
    assert TreeModel.for_session(sm, home=app.home, filter_mode="all") is built  # /tree reuses it


async def test_small_sessions_are_left_alone(project: Path, faux) -> None:
    path = project / "small.jsonl"
    linear_session(path, 50, cwd=str(project))
    session = await make_session(project, session=SessionManager.open(str(path)))
    app = make_app(session)
    prebuild_tree(app)
    assert session.session_manager not in tree_model._MODEL_CACHE
