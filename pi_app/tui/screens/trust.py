"""The trust screen: shown before anything a folder supplies loads (startup when the answer is "ask", /trust).

It lists the folder's protected resources with what each would do, what changed since a remembered trust,
and pi's choices. The result is a :class:`TrustChoice`; :func:`apply_trust_choice` saves it (when asked to
remember) and reloads the session with project resources when trusted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pi_app.session.trust import TrustDecision, TrustFileError, remember

if TYPE_CHECKING:
    from pi_app.tui.context import AppContext


@dataclass(frozen=True)
class TrustChoice:
    """The answer picked on the trust screen: trust or not, whether to remember it, and for which folder."""

    trusted: bool
    remember: bool
    folder: str | None = None  # the folder a remembered decision is saved for (None: the cwd)


def _choices(cwd: str, shown_cwd: str) -> list[tuple[str, TrustChoice]]:
    parent = os.path.dirname(cwd)
    shown_parent = os.path.dirname(shown_cwd.rstrip("/")) or "/"
    out = [("Trust", TrustChoice(True, True))]
    if parent and parent != cwd:
        out.append((f"Trust parent folder ({shown_parent})", TrustChoice(True, True, parent)))
    out += [
        ("Trust (this session only)", TrustChoice(True, False)),
        ("Do not trust", TrustChoice(False, True)),
        ("Do not trust (this session only)", TrustChoice(False, False)),
    ]
    return out


class TrustScreen(ModalScreen[TrustChoice | None]):
    """Keyboard-driven: ↑↓ and enter pick a choice; escape means "do not trust (this session only)"."""

    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen > Vertical {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: round $pi-border-accent; background: $background; padding: 0 1;
    }
    TrustScreen .title { color: $pi-accent; text-style: bold; }
    TrustScreen .folder { color: $pi-text; }
    TrustScreen .hint { color: $pi-dim; }
    TrustScreen .changed { color: $pi-warning; }
    TrustScreen #trust-resources { height: auto; max-height: 12; }
    TrustScreen .resource { color: $pi-muted; }
    TrustScreen OptionList, TrustScreen OptionList:focus {
        border: none; height: auto; background: $background; padding: 0; margin-top: 1;
    }
    TrustScreen OptionList > .option-list--option-highlighted { background: $pi-selected-bg; }
    """
    BINDINGS = [
        Binding("escape,ctrl+c", "cancel", "Do not trust (this session only)", priority=True),
    ]

    def __init__(self, decision: TrustDecision, *, cwd_display: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.decision = decision
        self.shown_cwd = cwd_display or decision.cwd
        self.choices = _choices(decision.cwd, self.shown_cwd)

    def compose(self) -> ComposeResult:
        d = self.decision
        with Vertical():
            yield Static("Trust project folder?", classes="title")
            yield Static(self.shown_cwd, classes="folder")
            yield Static(
                "Trusting lets pi load this folder's .pi settings and resources; "
                "AGENTS.md and CLAUDE.md load either way.",
                classes="hint",
            )
            if d.changed is not None:
                yield Static("Changed since you trusted it:", classes="changed")
                for line in d.changed.lines(d.cwd):
                    yield Static(f"  {line}", classes="changed", markup=False)
            with VerticalScroll(id="trust-resources"):
                for res in d.resources:
                    yield Static(f"• {res.label(d.cwd)}: {res.effect}", classes="resource", markup=False)
            yield OptionList(*[Option(label, id=str(i)) for i, (label, _) in enumerate(self.choices)])
            yield Static("↑↓ navigate · enter select · esc do not trust (this session)", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)][1])

    def action_cancel(self) -> None:
        self.dismiss(TrustChoice(False, False))


async def apply_trust_choice(app: AppContext, decision: TrustDecision, choice: TrustChoice) -> str:
    """Save the choice when asked to, and load (or drop) project resources to match. Returns the status line."""
    from widgets.notices import ErrorNotice

    session = app.session
    saved = ""
    if choice.remember:
        try:
            folder = remember(decision, choice.trusted, session.agent_dir, choice.folder)
            saved = f" (saved for {folder})"
        except (TrustFileError, OSError) as exc:
            await app.chat.add(ErrorNotice(f"Trust decision not saved: {exc}"))
    if session.settings.project_trusted != choice.trusted:
        session.settings.set_project_trusted(choice.trusted)
        await session.reload()
        app.refresh_completions()
        app.refresh_footer()
    return ("Project trusted" if choice.trusted else "Project not trusted") + saved


def open_trust(
    app: AppContext, decision: TrustDecision, then: Callable[[], None] | None = None, **screen_kwargs: Any
) -> None:
    """Show the trust screen; apply the answer, then call ``then`` (startup continues from there)."""

    async def done(choice: TrustChoice | None) -> None:
        status = await apply_trust_choice(app, decision, choice or TrustChoice(False, False))
        await app.show_status(status)
        if then is not None:
            then()

    def on_result(choice: TrustChoice | None) -> None:
        app.run_worker(done(choice), group="trust", exit_on_error=False)

    app.push_screen(TrustScreen(decision, **screen_kwargs), on_result)
