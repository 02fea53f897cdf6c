"""The interactive app: chat, queue, status line, editor and footer, driven by an AgentSession.

The agent runs on the app's own event loop (``session.prompt`` is awaited in a Textual worker); the
session's events reach the :class:`Conversation` (and, as Messages, the app) through :class:`EventBridge`.
Keys follow pi (spec §7.2).

Two ways to start: ``PiApp(session, options)`` with a ready session, or ``PiApp.starting(starter, ...)``
(the ``pi`` command): the first frame (header, editor, footer) is drawn before the session exists, then
the starter builds it (phase 2) while keys already go to the editor; both continue in
:meth:`PiApp._session_ready`. So this module imports, at module level, only what the first frame needs:
the chat, the event pump, the ai/session layers and pydantic are imported when the session is attached.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget

import themes
from pi_app.modes import startup_gc
from pi_app.tui.app_extensions import AppExtensions
from pi_app.tui.clipboard import Clipboard, SystemClipboard
from pi_app.tui.dialogs import Dialogs
from pi_app.tui.first_frame import FirstFrame, StartingChat
from pi_app.tui.footer_data import git_branch
from pi_app.tui.key_actions import TRANSCRIPT_BINDINGS, KeyActions
from pi_app.tui.keybindings import UNBOUND, apply_bindings, effective_bindings, keymap_of, load_keybindings
from pi_app.tui.options import SessionStarter, TuiOptions
from pi_app.tui.prompt_runner import PromptRunner
from pi_app.tui.resumed_history import finish_history, seed_prompt_history
from pi_app.tui.terminal_keys import key_notes, recognise_esc_cr, unreachable_keys
from pi_app.tui.theme_support import WATCH_INTERVAL_S, ThemeFileWatch, first_theme, setup_themes
from widgets.completion import CompletionMenu, DefaultCompletionProvider
from widgets.editor import PromptEditor
from widgets.extension_slots import ExtensionStatus, ExtensionWidgetArea
from widgets.footer import PiFooter
from widgets.footer_format import FooterData
from widgets.queue_area import QueueArea
from widgets.status_line import StatusLine

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent
    from pi_app.session.agent_session import AgentSession
    from pi_app.tools.file_index import FileIndex
    from pi_app.tui.bridge import EventBridge
    from pi_app.tui.extension_ui import BoundShortcut
    from pi_app.tui.header import StartupHeader
    from pi_app.tui.screens.settings import ThemeSelectScreen
    from pi_app.tui.selection import MessageSelection
    from widgets.chat_log import ChatLog
    from widgets.conversation import Conversation
    from widgets.no_model import NoModelPanel
    from widgets.notices import StatusNotice

# The app's own actions that work before the session exists; the others wait for it (their keys go to
# the editor meanwhile).
STARTING_ACTIONS = frozenset({"clear", "exit_empty", "suspend"})


class PiApp(App[None]):
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = "#editor"  # the first focus; keys typed while pi starts are queued for it, not the chat
    CSS = """
    Screen { layout: vertical; background: $background; }
    .-pi-selected { border-left: thick $pi-accent; }
    """
    # ids are pi's action ids: keybindings.json remaps them through the keymap (pi_app.tui.keybindings)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape", "interrupt", "Interrupt / restore queued messages", priority=True, id="app.interrupt"
        ),
        Binding("ctrl+c", "clear", "Clear editor (twice: exit)", priority=True, id="app.clear"),
        Binding("ctrl+d", "exit_empty", "Exit (empty editor)", priority=True, id="app.exit"),
        Binding("ctrl+z", "suspend", "Suspend", priority=True, id="app.suspend"),
        Binding(
            "ctrl+g",
            "external_editor",
            "Edit the prompt in $VISUAL / $EDITOR",
            priority=True,
            id="app.editor.external",
        ),
        Binding(
            "shift+tab", "cycle_thinking", "Cycle thinking level", priority=True, id="app.thinking.cycle"
        ),
        Binding("ctrl+p", "cycle_model('forward')", "Next model", priority=True, id="app.model.cycleForward"),
        Binding(
            "ctrl+shift+p",
            "cycle_model('backward')",
            "Previous model",
            priority=True,
            id="app.model.cycleBackward",
        ),
        Binding("ctrl+l", "select_model", "Select model", priority=True, id="app.model.select"),
        Binding(
            "ctrl+o", "toggle_tools", "Expand/collapse tool output", priority=True, id="app.tools.expand"
        ),
        Binding(
            "ctrl+t", "toggle_thinking", "Show/hide thinking blocks", priority=True, id="app.thinking.toggle"
        ),
        Binding("alt+up", "dequeue", "Edit all queued messages", priority=True, id="app.message.dequeue"),
        # pi ships these without a key; keybindings.json may give them one
        Binding(UNBOUND, "slash_command('new')", "Start a new session", priority=True, id="app.session.new"),
        Binding(
            UNBOUND, "slash_command('tree')", "Open the session tree", priority=True, id="app.session.tree"
        ),
        Binding(UNBOUND, "slash_command('fork')", "Fork the session", priority=True, id="app.session.fork"),
        Binding(
            UNBOUND, "slash_command('resume')", "Resume a session", priority=True, id="app.session.resume"
        ),
        # up/down and c/enter then belong to the conversation (its own bindings, while it has the cursor)
        Binding(
            "ctrl+x",
            "select_messages",
            "Select a message (c/enter: copy it, b: a code block)",
            priority=True,
            id="app.message.copy",
        ),
        *TRANSCRIPT_BINDINGS,
    ]

    chat: Conversation
    bridge: EventBridge
    selection: MessageSelection

    def __init__(
        self,
        session: AgentSession | None,
        options: TuiOptions | None = None,
        *,
        starter: SessionStarter | None = None,
        first_frame: FirstFrame | None = None,
    ) -> None:
        """``session``: a ready session; or None with ``starter`` (see :meth:`starting`)."""
        super().__init__()
        if (session is None) == (starter is None):
            raise ValueError("PiApp needs a session or a starter (one of them)")
        self._session: AgentSession | None = None
        self._starter = starter
        self.first_frame = first_frame or FirstFrame()
        self.startup_failure: BaseException | None = None  # what the starter raised (the app then exits)
        self._session_ready_flag = asyncio.Event()
        # prompts submitted before the session is ready: sent, in order, after the command line's
        self._held: list[tuple[str, bool, list[ImageContent] | None]] = []
        self._holding = starter is not None
        self.startup_warnings: list[str] = []
        self._take_options(options or TuiOptions())
        self.theme_watch = ThemeFileWatch(self)
        self.branch_summarizing = False
        self.clipboard_backend: Clipboard = self.options.clipboard or SystemClipboard(
            osc52=self.copy_to_clipboard
        )
        self.home = self.options.home if self.options.home is not None else os.path.expanduser("~")
        self._unsubscribe: Callable[[], None] | None = None
        self.file_index: FileIndex | None = None  # built in a thread once mounted
        self._history_start = 0
        self._header: StartupHeader | None = None
        self._no_model: NoModelPanel | None = None
        self._last_status: StatusNotice | None = None
        self.queue_area = QueueArea(id="queue")
        # what extensions put on screen (ctx.ui.set_widget / set_status)
        self.widgets_above = ExtensionWidgetArea(id="ext-above")
        self.widgets_below = ExtensionWidgetArea(id="ext-below")
        self.extension_status = ExtensionStatus(id="ext-status")
        self.header_area = ExtensionWidgetArea(id="ext-header")  # ctx.ui.set_header
        self.status = StatusLine(spinner=not self.options.test_mode, id="status")
        self.menu = CompletionMenu(id="completion")
        self.editor = PromptEditor(menu=self.menu, blink=not self.options.test_mode, id="editor")
        self.editor.image_source = self.clipboard_image
        self.footer = PiFooter(id="footer")
        self.keys = KeyActions(self)
        self.dialogs = Dialogs(self)
        self.prompts = PromptRunner(self)  # what a submitted prompt becomes
        self.extensions = AppExtensions(self, self, self._app_key_bindings)  # extensions' UI, errors, keys
        self._apply_user_keybindings()
        recognise_esc_cr()  # Alt+Enter as most terminals send it
        self.unreachable_keys = frozenset[str]() if self.options.test_mode else unreachable_keys(os.environ)
        self._tree_prebuilt = False  # a big session's /tree model is built once, after the first frame
        self._markdown_warmed = False
        self.startup_warnings += key_notes(self.unreachable_keys)
        if session is not None:
            self._attach_session(session)

    @classmethod
    def starting(
        cls, starter: SessionStarter, options: TuiOptions | None = None, first_frame: FirstFrame | None = None
    ) -> PiApp:
        """An app that draws its first frame at once and then builds its session with ``starter`` (whose
        :class:`SessionStart` also brings the final options: the command line's messages, warnings, trust,
        extensions). Whatever the starter raises ends the app; it is kept in :attr:`startup_failure`."""
        return cls(None, options, starter=starter, first_frame=first_frame)

    def _take_options(self, options: TuiOptions) -> None:
        self.options = options
        self.initial_message = options.initial_message
        self.initial_images = options.initial_images
        self.initial_messages = list(options.initial_messages)
        self.resume_at_start = options.resume
        self.cli_themes = list(options.themes)
        self.no_themes = options.no_themes
        self.startup_warnings = [*options.warnings, *self.startup_warnings]

    def _attach_session(self, session: AgentSession) -> None:
        """The parts that need the session (and import the chat, the event pump, the ai layer)."""
        from pi_app.tui.bridge import EventBridge
        from pi_app.tui.selection import MessageSelection
        from widgets.conversation import Conversation

        self._session = session
        self.chat = Conversation(home=self.home, clock=self.options.clock, id="chat")
        if self.options.extensions is not None:  # before the first build: resumed messages render as live
            from pi_app.tui.extension_ui import extension_renderers

            self.chat.custom = extension_renderers(self.options.extensions)
        self.bridge = EventBridge(self.chat, self)
        self.selection = MessageSelection(self.chat, self.editor)

    @property
    def session(self) -> AgentSession:
        session = self._session
        if session is None:  # only the starting app's first frame runs before this; nothing there asks
            raise RuntimeError("the session is not ready yet")
        return session

    @property
    def session_ready(self) -> bool:
        """The session exists and the app has set itself up with it (see :meth:`wait_until_ready`)."""
        return self._session_ready_flag.is_set()

    async def wait_until_ready(self) -> None:
        """The session is attached and shown (returns at once for an app built with a session once mounted)."""
        await self._session_ready_flag.wait()

    def _apply_user_keybindings(self) -> None:
        """pi's ``<agent dir>/keybindings.json``: its keys replace the defaults; problems are shown at start."""
        from pi_app.config_home import agent_dir

        self.keybindings_path = agent_dir() / "keybindings.json"
        self.startup_warnings += self.reload_keybindings()

    def reload_keybindings(self) -> list[str]:
        """(Re-)read keybindings.json into the keymap (an entry removed from the file gets its default keys
        back); returns the loader's and the conflict warnings."""
        overrides, warnings = load_keybindings(self.keybindings_path)
        self.key_overrides = overrides
        warnings += apply_bindings(self, self.editor, overrides, str(self.keybindings_path))
        return warnings + self.extensions.load_keys(self.keybindings_path)

    def extension_shortcuts(self) -> list[BoundShortcut]:
        """Extension shortcuts with the keys they answer to (see :class:`AppExtensions`)."""
        return self.extensions.shortcuts()

    @property
    def header(self) -> StartupHeader | None:
        return self._header

    def set_app_title(self, title: str) -> None:
        self.title = title

    # ================================================================== keys (pi's actions; see KeyActions)
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._session is None:
            return action in STARTING_ACTIONS and self.keys.enabled_while_starting(action)
        return self.keys.enabled(action, parameters)

    def action_slash_command(self, name: str) -> None:
        self.run_worker(self.keys.slash_command(name), group="submit", exit_on_error=False)

    async def action_interrupt(self) -> None:
        await self.keys.interrupt()

    async def action_clear(self) -> None:
        await self.keys.clear()

    def action_exit_empty(self) -> None:
        self.exit()

    def action_suspend(self) -> None:
        self.keys.suspend()

    async def action_external_editor(self) -> None:
        await self.keys.external_editor()

    async def action_cycle_thinking(self) -> None:
        await self.keys.cycle_thinking()

    def action_cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> None:
        self.run_worker(self.keys.cycle_model(direction), group="model", exit_on_error=False)

    def action_select_model(self, query: str = "") -> None:
        self.dialogs.select_model(query)

    def action_toggle_tools(self) -> None:
        self.keys.toggle_tools()

    async def action_toggle_thinking(self) -> None:
        await self.keys.toggle_thinking()

    async def action_dequeue(self) -> None:
        await self.keys.dequeue()

    def action_transcript(self, move: str) -> None:
        self.keys.transcript(move)

    def action_select_messages(self) -> None:
        self.selection.start()

    async def on_conversation_copy_requested(self, message: Conversation.CopyRequested) -> None:
        if message.code:
            await self.keys.selection_copy_code(message.code_block)
        else:
            await self.keys.selection_copy()

    # ================================================================== dialogs (see Dialogs)
    def open_model_selector(self, query: str = "") -> None:
        self.dialogs.select_model(query)

    def open_settings(self) -> None:
        self.dialogs.open_settings()

    def open_login(self, provider: str) -> None:
        self.dialogs.open_login(provider)

    def apply_editor_settings(self) -> None:
        self.dialogs.apply_editor_settings()

    def on_theme_select_screen_previewed(self, message: ThemeSelectScreen.Previewed) -> None:
        self.dialogs.preview_theme(message.theme)

    def on_theme_select_screen_chosen(self, message: ThemeSelectScreen.Chosen) -> None:
        self.dialogs.save_theme(message.theme)

    # ================================================================== setup
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults()

    def compose(self) -> ComposeResult:
        yield self.header_area
        if self._session is not None:
            yield self.chat
        else:
            yield StartingChat(None if self.first_frame.quiet else self._version(), id="starting-chat")
        yield self.queue_area
        yield self.status
        yield self.widgets_above
        yield self.editor
        yield self.widgets_below
        yield self.menu
        yield self.extension_status
        yield self.footer

    async def on_mount(self) -> None:
        if self._session is None:  # phase 1 drawn: the session is built once this frame is on screen
            self._show_first_frame()
            self.call_after_refresh(self._start_session)
            return
        await self._session_ready()

    def _show_first_frame(self) -> None:
        first_theme(self, self.cli_themes, override=self.options.theme, configured=self.first_frame.theme)
        cwd = os.getcwd()
        branch = self.options.git_branch
        if branch is None and self.options.cwd_display is None:
            branch = git_branch(cwd)
        self.footer.set_data(
            FooterData(
                cwd=self.options.cwd_display if self.options.cwd_display is not None else cwd,
                home=self.home,
                git_branch=branch,
                model_id=self.first_frame.model,
                pending=True,
            )
        )

    def _start_session(self) -> None:
        self.run_worker(self._build_session(), name="startup", group="startup", exit_on_error=False)

    async def _build_session(self) -> None:
        """Phase 2: the starter builds the session; the app then sets itself up as an app built with one."""
        starter = self._starter
        if starter is None:
            return
        try:
            start = await starter()
        except Exception as exc:  # StartupError and the like: the caller reports it once the app is gone
            self.startup_failure = exc
            self.exit(return_code=1)
            return
        self._take_options(start.options)
        self.startup_warnings += self.extensions.load_keys(self.keybindings_path)
        self._attach_session(start.session)
        for placeholder in self.query(StartingChat):
            await placeholder.remove()
        await self.mount(self.chat, after=self.header_area)
        await self._session_ready()

    async def _session_ready(self) -> None:
        """What an app does once it has its session (at mount, or when the starter has built it)."""
        session = self.session
        self._apply_theme()
        from pi_app.tools.file_index import FileIndex

        self.chat.hide_thinking = bool(session.settings.settings.hideThinkingBlock)
        self.editor.thinking_level = session.thinking_level or "off"
        self.file_index = FileIndex(session.cwd).start()  # built in a thread; `@` falls back meanwhile
        self.refresh_completions()
        self.apply_editor_settings()
        # A resumed history is typed only where the chat's tail reads it; the rest, and ↑'s earlier prompts
        # (a walk over every message), just after that frame instead of before it.
        self.call_after_refresh(self._after_history_drawn)
        self._unsubscribe = session.subscribe(self.bridge)
        self.run_worker(self.bridge.run(), name="event-bridge", group="bridge", exit_on_error=False)
        await self.rebuild_chat(header=True)
        self._show_held()
        from widgets.notices import Notice

        for warning in self.startup_warnings:
            await self.chat.add(Notice(warning, kind="warning"))
        self.refresh_footer()
        self.editor.focus()
        if self.options.warm_imports and not self.options.test_mode:
            self.call_after_refresh(self._warm_provider_import)  # settles the collector when done
        elif not self.options.test_mode:
            self.call_after_refresh(startup_gc.settle)
        self.extensions.bind()
        trust = self.options.trust
        if trust is not None and trust.trusted is None:  # undecided: ask before project resources load
            from pi_app.tui.screens.trust import open_trust

            open_trust(self, trust, self._start_after_trust, cwd_display=self.options.cwd_display)
        else:
            self._start_after_trust()
        self._session_ready_flag.set()

    def _app_key_bindings(self) -> list[tuple[str, Binding]]:
        table = effective_bindings(type(self), keymap_of(self.key_overrides))
        return [(key, b) for key, bindings in table.items() for b in bindings]

    def on_key(self, event: events.Key) -> None:
        """Keys nothing else used bubble up here: extension shortcuts (pi's registerShortcut)."""
        self.extensions.run_shortcut(event)

    def _start_after_trust(self) -> None:
        if self.resume_at_start:
            self.run_worker(self._resume_at_start(), group="session", exit_on_error=False)
        else:
            self._send_initial_messages()

    def _send_initial_messages(self) -> None:
        first, rest = self.initial_message, self.initial_messages
        self.initial_message, self.initial_messages = None, []
        held, self._held = self._held, []
        self._holding = False
        if first or rest or held:
            self.run_worker(
                self._run_initial(first, self.initial_images, rest, held), group="submit", exit_on_error=False
            )

    async def _run_initial(
        self,
        first: str | None,
        images: list[Any] | None,
        rest: list[str],
        held: list[tuple[str, bool, list[ImageContent] | None]] | None = None,
    ) -> None:
        """The command line's messages, one after the other (the first with the @file images), then what was
        submitted while the session was being built (as if typed now: commands run, prompts are sent)."""
        if first:
            await self.prompts.run_prompt(first, images)
        for text in rest:
            await self.prompts.run_prompt(text)
        held = held or []
        for i, (text, follow_up, held_images) in enumerate(held):
            self._show_waiting([waiting for waiting, _, _ in held[i + 1 :]])
            await self.prompts.submit(text, follow_up, held_images)

    def _show_held(self) -> None:
        if self._held:
            self._show_waiting([text for text, _, _ in self._held])

    def _show_waiting(self, texts: list[str]) -> None:
        """Prompts submitted during the start are listed with the queued follow-ups until they are sent."""
        session = self._session
        steering = session.get_steering_messages() if session is not None else []
        follow_up = session.get_follow_up_messages() if session is not None else []
        self.queue_area.set_queues(steering, [*follow_up, *texts])

    async def _resume_at_start(self) -> None:
        from pi_app.tui.session_commands import open_resume

        await open_resume(self, on_cancel=self._resume_cancelled, then=self._send_initial_messages)

    def _resume_cancelled(self) -> None:
        self.exit(message="No session selected")

    @staticmethod
    def _version_default() -> str:
        from pi_app import __version__

        return __version__

    def _version(self) -> str:
        return self.options.version if self.options.version is not None else self._version_default()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _apply_theme(self) -> None:
        session = self.session
        chosen = setup_themes(
            self,
            session.cwd,
            session.settings,
            self.cli_themes,
            no_themes=self.no_themes,
            override=self.options.theme,
        )
        self.startup_warnings += chosen.warnings
        self.theme = chosen.active
        self.theme_watch.follow(chosen.active)
        if not self.options.test_mode:
            self.set_interval(WATCH_INTERVAL_S, self.check_theme_file)

    async def check_theme_file(self) -> None:
        """Poll the active user theme's file: a change is applied at once; a deleted file falls back to dark."""
        watched = self.theme_watch.watched_theme
        if self.theme_watch.check() == "deleted":
            await self.show_status(f'Theme file of "{watched}" was deleted; using dark', "warning")

    def on_session_replaced(self) -> None:
        """After /tree, /fork, /clone, /resume: model, thinking level and footer may come from the new file."""
        self.on_model_changed()
        self.refresh_footer()

    def _after_history_drawn(self) -> None:
        if self._session is None:
            return
        if self._session.untyped_messages:  # typed in steps by a worker: keys and frames go on meanwhile
            self.run_worker(self._finish_history(), name="history", group="history", exit_on_error=False)
        else:
            seed_prompt_history(self)

    async def _finish_history(self) -> None:
        self.startup_warnings += await finish_history(self, self.startup_warnings, self._header is not None)

    def refresh_completions(self) -> None:
        from pi_app.tools.file_index import FileIndex
        from pi_app.tui.commands import completion_commands

        index = self.file_index
        if index is None or index.root != self.session.cwd:
            index = self.file_index = FileIndex(self.session.cwd).start()
        runner = self.options.extensions
        self.editor.completion = DefaultCompletionProvider(
            completion_commands(self.session),
            self.session.cwd,
            file_index=index,
            arguments=runner.command_completions if runner is not None else None,
        )
        if runner is not None and runner.autocomplete_providers():  # extensions' providers stack on it
            from pi_app.tui.extension_ui import stack_completions

            self.editor.completion = stack_completions(
                self.editor.completion, runner.autocomplete_providers()
            )

    @work(thread=True, exit_on_error=False, group="warmup")
    def _warm_provider_import(self) -> None:
        """Import the current model's provider module off the UI path (SDK imports cost up to ~1.5 s)."""
        model = self.session.model
        try:
            try:
                if model is not None:
                    from pi_app.ai.stream import get_provider

                    get_provider(model.api)
            except Exception:  # unknown api or a broken SDK install: the first request will report it
                pass
            if not self._markdown_warmed:
                self._markdown_warmed = True
                from widgets.rendering import warm_markdown

                warm_markdown()  # the first answer's Markdown and code highlighting, first used off the loop
        finally:
            startup_gc.settle()  # startup is over (idempotent: a model switch warms again)
        if not self._tree_prebuilt:
            self._tree_prebuilt = True
            from pi_app.tui.session_commands import prebuild_tree

            prebuild_tree(self)

    def on_model_changed(self) -> None:
        self.editor.thinking_level = self.session.thinking_level or "off"
        if self._no_model is not None and self.session.model is not None:
            self._no_model.remove()
            self._no_model = None
        if self.options.warm_imports and not self.options.test_mode:
            self._warm_provider_import()

    # ================================================================== chat content
    async def rebuild_chat(self, header: bool = False) -> None:
        """Clear the chat and mount the tail of the session's messages (earlier ones load on demand)."""
        await self.chat.clear()
        self._last_status = None
        session = self.session
        items: list[Widget] = []
        self._header = None
        from pi_app.tui.header import StartupHeader, header_from_session
        from widgets.no_model import NoModelPanel
        from widgets.notices import Notice

        if header and not session.settings.settings.quietStartup:
            self._header = StartupHeader(header_from_session(session, self._version(), self.home))
            self._header.display = not self.header_area.keys  # an extension's header replaces it
            items.append(self._header)
        messages = session.display_messages
        self._history_start = max(0, len(messages) - self.options.tail_messages)
        after: list[Widget] = []
        if session.model is None:
            self._no_model = NoModelPanel()
            after.append(self._no_model)
        fallback = session.model_fallback_message
        if fallback and session.model is not None:
            after.append(Notice(fallback, kind="warning"))
        await self.chat.show_history(messages, self._history_start, before=items, after=after)
        self.queue_area.set_queues(session.get_steering_messages(), session.get_follow_up_messages())

    async def on_chat_log_earlier_requested(self, event: ChatLog.EarlierRequested) -> None:
        first = self.chat.first_index()
        end = self._history_start if first is None else first
        messages = self.session.display_messages
        start = max(0, end - self.options.tail_messages)
        if self._header is not None and self._header.is_attached:
            await self._header.remove()  # the header belongs above the first message, not mid-history
            self._header = None
        self._history_start = start
        await self.chat.show_earlier(messages, start, end)

    # ================================================================== what the event pump reports
    def on_event_bridge_status_changed(self, message: EventBridge.StatusChanged) -> None:
        match message.state:
            case "working":
                self.status.show_working()
            case "idle":
                self.status.clear()
            case "compacting":
                self.status.show_compacting(automatic=message.automatic)
            case "retrying":
                self.status.show_retry(message.attempt, message.max_attempts, message.delay_s)
            case "restore" if self.session.is_streaming:
                self.status.show_working()
            case "restore":
                self.status.clear()

    def on_event_bridge_queue_changed(self, message: EventBridge.QueueChanged) -> None:
        self.queue_area.set_queues(message.steering, message.follow_up)

    def on_event_bridge_footer_changed(self) -> None:
        self.refresh_footer()

    def on_event_bridge_model_changed(self) -> None:
        self.on_model_changed()

    def on_event_bridge_compaction_ended(self) -> None:
        """Prompts submitted while a compaction ran go out now, whatever started it (an automatic one too)."""
        if self.session.is_compacting:  # its last step is still unwinding: once it has
            self.call_after_refresh(self.on_event_bridge_compaction_ended)
            return
        self.prompts.flush_compaction_queue()

    def on_event_bridge_thinking_level_changed(self, message: EventBridge.ThinkingLevelChanged) -> None:
        self.editor.thinking_level = message.level
        self.refresh_footer()

    async def show_status(self, text: str, kind: str = "info") -> None:
        """pi's showStatus: a dim line in the chat; consecutive statuses replace each other."""
        last = self._last_status
        if last is not None and self.chat.items and self.chat.items[-1] is last and kind == "info":
            last.text = text
            last.update(text)
            return
        from widgets.notices import StatusNotice

        notice = StatusNotice(text, kind=kind)
        await self.chat.add(notice)
        self._last_status = notice if kind == "info" else None

    def refresh_footer(self) -> None:
        from pi_app.tui.footer_data import footer_data

        session = self._session
        if session is None:
            return
        branch = self.options.git_branch
        if branch is None and self.options.cwd_display is None:
            branch = git_branch(session.cwd)
        self.footer.set_data(
            footer_data(session, cwd_display=self.options.cwd_display, home=self.home, branch=branch)
        )

    # ================================================================== submitting
    def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        self.submit(event.text, images=event.images)

    def on_prompt_editor_follow_up(self, event: PromptEditor.FollowUp) -> None:
        event.stop()
        self.submit(event.text, follow_up=True, images=event.images)

    def submit(self, text: str, follow_up: bool = False, images: list[ImageContent] | None = None) -> None:
        if self._holding:  # the session is being built (or the command line's messages are not sent yet)
            self._held.append((text, follow_up, images or None))
            self._show_held()
            return
        self.run_worker(
            self.prompts.submit(text, follow_up, images or None), group="submit", exit_on_error=False
        )

    def clipboard_image(self) -> ImageContent | str | None:
        """Ctrl+V: the clipboard's image, prepared as pi prepares images (a string says why it is unusable)."""
        data = self.clipboard_backend.paste_image()
        if not data:
            return None
        from pi_app.ai.types import ImageContent
        from pi_app.tools.images import ImageRefused, prepare_image
        from pi_app.tools.read import sniff_image_mime

        prepared = prepare_image(
            data,
            sniff_image_mime(data[:32]),
            auto_resize=bool(self.session.settings.settings.images.autoResize),
            limits=self.session.image_limits(),
        )
        if isinstance(prepared, ImageRefused):
            return prepared.message
        return ImageContent(data=prepared.data, mimeType=prepared.mime)

    async def run_compaction(self, instructions: str | None) -> None:
        await self.prompts.run_compaction(instructions)

    async def wait_until_idle(self) -> None:
        """For tests and benchmarks: the agent is idle and every event has reached the widgets."""
        busy = [
            w
            for w in self.workers
            if w.group in ("startup", "submit", "model", "session") and not w.is_finished
        ]
        if busy:  # wait_for_complete([]) would wait for every worker, the event pump included
            await self.workers.wait_for_complete(busy)
        await self.session.wait_for_idle()
        await self.bridge.drained()

    # ================================================================== dialogs and helpers
    async def copy_text(self, text: str, success: str) -> bool:
        from widgets.notices import ErrorNotice

        backend = self.clipboard_backend.copy(text)
        if backend is None:
            await self.chat.add(ErrorNotice("Could not copy: no clipboard available"))
            return False
        await self.show_status(success)
        return True

    def hotkeys_text(self) -> str:
        """pi's curated shortcut list, generated from the bindings in effect (see pi_app.tui.hotkeys)."""
        from pi_app.tui.hotkeys import build_sections, format_sections
        from widgets.conversation import Conversation
        from widgets.tree.screen import TreeBrowserScreen

        sections = build_sections(
            type(self),
            type(self.editor),
            self.editor.key_actions,
            keymap_of(self.key_overrides),
            transcript_bindings=Conversation.BINDINGS,
            tree_bindings=TreeBrowserScreen.BINDINGS,
            unreachable=frozenset(self.unreachable_keys),
        )
        shortcuts = self.extension_shortcuts()
        if shortcuts:
            from pi_app.tui.hotkeys import Section, key_label

            rows = [
                (
                    " / ".join(key_label(k) for k in b.keys),
                    f"{b.shortcut.description or 'Shortcut'} ({b.extension}) [{b.id}]",
                )
                for b in shortcuts
            ]
            sections.append(Section("Extensions", rows))
        return format_sections(sections)
