"""The trust screen in the app: shown first when undecided, its choices applied; a snapshot of the screen."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.session.config import SettingsManager
from pi_app.session.trust import FingerprintChange, ProtectedResource, TrustDecision, resolve_trust
from pi_app.tui.screens.trust import TrustScreen
from tests.tree.host import HostApp
from tests.tui.conftest import SIZE, make_app, make_session


def _untrusted_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text(json.dumps({"shellCommandPrefix": "touch ran"}))
    (project / ".pi" / "prompts" / "review.md").write_text("Review this")
    return project


async def _app_for(project: Path):
    decision = resolve_trust(project, _agent_dir())
    assert decision.trusted is None
    settings = SettingsManager.create(project, _agent_dir(), project_trusted=False)
    session = await make_session(project, settings=settings)
    return decision, session, make_app(session, trust=decision)


async def _trust_applied(app, pilot) -> None:
    """Let the worker that applies the screen's answer finish (it mounts a status line, so the app's
    message loop must run: pause until no "trust" worker is left rather than blocking on it)."""
    for _ in range(200):
        await pilot.pause()
        if not any(w.group == "trust" and not w.is_finished for w in app.workers):
            return
    raise AssertionError("the trust choice was never applied")


def _agent_dir() -> str:
    from pi_app.session.config.paths import agent_dir

    return str(agent_dir())


def _template_names(session) -> list[str]:
    return [c["name"] for c in session.get_commands() if c["source"] == "prompt"]


async def test_undecided_folder_shows_the_trust_screen_first_and_trust_loads_and_saves(tmp_path):
    project = _untrusted_project(tmp_path)
    decision, session, app = await _app_for(project)
    assert session.settings.settings.shellCommandPrefix is None and _template_names(session) == []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("enter")  # "Trust": remembered
        await _trust_applied(app, pilot)
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)
    assert session.settings.settings.shellCommandPrefix == "touch ran"
    assert _template_names(session) == ["review"]
    saved = json.loads((Path(_agent_dir()) / "trust.json").read_text())
    assert saved == {decision.cwd: True}
    assert resolve_trust(project, _agent_dir()).trusted is True


async def test_declining_once_keeps_user_config_only_and_saves_nothing(tmp_path):
    project = _untrusted_project(tmp_path)
    _, session, app = await _app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("escape")
        await _trust_applied(app, pilot)
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)
    assert session.settings.settings.shellCommandPrefix is None and _template_names(session) == []
    assert not (Path(_agent_dir()) / "trust.json").exists()


async def test_do_not_trust_is_remembered(tmp_path):
    project = _untrusted_project(tmp_path)
    decision, session, app = await _app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "down", "enter")  # Trust, parent, once, [Do not trust]
        await _trust_applied(app, pilot)
        await pilot.pause()
    assert json.loads((Path(_agent_dir()) / "trust.json").read_text()) == {decision.cwd: False}
    assert session.settings.settings.shellCommandPrefix is None


async def test_trust_command_saves_a_decision_later(tmp_path):
    project = _untrusted_project(tmp_path)
    settings = SettingsManager.create(project, _agent_dir(), project_trusted=False)
    session = await make_session(project, settings=settings)
    app = make_app(session)  # startup decided "no" for this run: no screen
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)
        await pilot.press(*"/trust", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("down", "down", "enter")  # Trust (this session only)
        await _trust_applied(app, pilot)
        await pilot.pause()
    assert _template_names(session) == ["review"]
    assert not (Path(_agent_dir()) / "trust.json").exists()


def _fixed_decision() -> TrustDecision:
    cwd = "/work/proj"
    return TrustDecision(
        cwd=cwd,
        resources=[
            ProtectedResource(
                "settings", f"{cwd}/.pi/settings.json", "changes settings: shellCommandPrefix, theme"
            ),
            ProtectedResource(
                "extensions", f"{cwd}/.pi/extensions", "extension code, 2 files (extensions are not run here)"
            ),
            ProtectedResource("prompts", f"{cwd}/.pi/prompts", "prompt templates: review, ship"),
            ProtectedResource("skills", "/work/.agents/skills", "skills: deploy"),
        ],
        trusted=None,
        source="default",
        changed=FingerprintChange(
            added=[f"{cwd}/.pi/extensions/new.ts"], removed=[], modified=[f"{cwd}/.pi/settings.json"]
        ),
    )


def test_trust_screen_snapshot(snap_compare):
    app = HostApp(lambda: TrustScreen(_fixed_decision()))
    assert snap_compare(app, terminal_size=SIZE)
