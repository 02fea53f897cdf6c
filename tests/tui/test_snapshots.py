"""Screen snapshots of the whole app (faux provider, fixed display paths, no spinner, no cursor blink)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_app.ai.providers.faux import FauxResponse, FauxStep, faux_tools
from tests.tui.conftest import make_app, make_session

SIZE = (120, 40)

ANSWER = """## Done

I renamed `beta` in **notes.txt**:

```python
def rename(text: str) -> str:
    return text.replace("beta", "BETA")
```

- one edit
- one failing command"""


def _script(faux) -> None:
    faux.enqueue(
        FauxResponse(
            steps=[
                FauxStep("thinking", text="The file is small; read it, then edit."),
                FauxStep("text", text="Reading first."),
                FauxStep("tool", name="read", arguments={"path": "notes.txt"}, id="call_read"),
            ],
            usage={"input": 1200, "output": 40},
        ),
        faux_tools(
            ("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}),
            ("bash", {"command": "echo checking; exit 3"}),
            usage={"input": 1800, "output": 60, "cacheRead": 900},
        ),
        FauxResponse(steps=[FauxStep("text", text=ANSWER)], usage={"input": 2400, "output": 120}),
    )


def _app(project: Path, **kwargs):
    session = asyncio.run(make_session(project, **kwargs))
    return make_app(session)


async def _send(pilot, text: str) -> None:
    app = pilot.app
    app.submit(text)
    await pilot.pause()
    await app.wait_until_idle()
    await pilot.pause()


def test_startup(snap_compare, project: Path) -> None:
    assert snap_compare(_app(project), terminal_size=SIZE)


def test_conversation(snap_compare, project: Path, faux) -> None:
    _script(faux)

    async def run_before(pilot) -> None:
        await _send(pilot, "Rename beta to BETA in notes.txt and run the check")

    assert snap_compare(_app(project), terminal_size=SIZE, run_before=run_before)


def test_conversation_expanded_tools(snap_compare, project: Path, faux) -> None:
    _script(faux)

    async def run_before(pilot) -> None:
        await _send(pilot, "Rename beta to BETA in notes.txt and run the check")
        await pilot.press("ctrl+o")
        await pilot.pause()

    assert snap_compare(_app(project), terminal_size=SIZE, run_before=run_before)


def test_queue_area_and_status(snap_compare, project: Path) -> None:
    async def run_before(pilot) -> None:
        app = pilot.app
        app.queue_area.set_queues(["also run the linter"], ["then write a summary"])
        app.status.show_working()
        app.editor.load_text("next thought")
        await pilot.pause()

    assert snap_compare(_app(project), terminal_size=SIZE, run_before=run_before)


def test_no_model(snap_compare, project: Path) -> None:
    assert snap_compare(_app(project, model=None), terminal_size=SIZE)


def test_narrow_80x24(snap_compare, project: Path, faux) -> None:
    _script(faux)

    async def run_before(pilot) -> None:
        await _send(pilot, "Rename beta to BETA in notes.txt and run the check")

    assert snap_compare(_app(project), terminal_size=(80, 24), run_before=run_before)
