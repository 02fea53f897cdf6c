"""The app's dialogs: model selector, /settings (with the theme preview) and /login.

A collaborator of :class:`pi_app.tui.app.PiApp`: it talks to the app only through :class:`DialogHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pi_app.ai.types import Model
    from pi_app.tui.context import AppContext
    from widgets.completion import CompletionMenu

    class DialogHost(AppContext, Protocol):
        menu: CompletionMenu
        theme: str

        @property
        def available_themes(self) -> dict[str, Any]: ...


def credential_hint(provider: str) -> str:
    """What gives ``provider`` credentials here: its environment variable(s), and /login for a key."""
    from pi_app.ai.env_keys import ENV_API_KEY_VARS

    special = {
        "anthropic": "ANTHROPIC_API_KEY (or ANTHROPIC_OAUTH_TOKEN)",
        "github-copilot": "COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN",
        "google-vertex": "GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION with gcloud credentials",
        "amazon-bedrock": "AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY, or AWS_PROFILE",
    }
    env = special.get(provider) or ENV_API_KEY_VARS.get(provider)
    login = f"/login {provider}"
    return f"{env}, or {login}" if env else f"an apiKey in models.json, or {login}"


def missing_credentials_text(providers: list[str]) -> str:
    """/model when no model has credentials: what each provider needs (instead of a list of models that would
    each fail with "No API key" once chosen)."""
    width = max((len(p) for p in providers), default=0)
    lines = [
        "No model has credentials yet. Set a provider's variable and restart pi, or store a key with /login:"
    ]
    lines += [f"  {p:<{width}}  {credential_hint(p)}" for p in providers]
    return "\n".join(lines)


class Dialogs:
    def __init__(self, app: DialogHost) -> None:
        self.app = app

    def select_model(self, query: str = "") -> None:
        from pi_app.tui.screens.model_select import ModelSelectScreen

        app = self.app
        registry = app.session.model_registry
        models = registry.get_available()  # only models that can be used: a choice never fails on its key
        if not models:
            from widgets.notices import Notice

            text = missing_credentials_text(sorted({m.provider for m in registry.get_all()}))
            app.run_worker(app.chat.add(Notice(text, kind="warning")), exit_on_error=False)
            return
        app.push_screen(ModelSelectScreen(models, app.session.model, query), self._model_chosen)

    def _model_chosen(self, model: Model | None) -> None:
        if model is not None:
            self.app.run_worker(self.set_model(model), group="model", exit_on_error=False)

    async def set_model(self, model: Model) -> None:
        app = self.app
        try:
            await app.session.set_model(model)
        except Exception as exc:
            from widgets.notices import ErrorNotice  # (rendering: not needed for the first frame)

            await app.chat.add(ErrorNotice(str(exc)))
            return
        app.on_model_changed()
        app.refresh_footer()
        await app.show_status(f"Model: {model.id}")

    def open_settings(self) -> None:
        from pi_app.tui.screens.settings import SettingsScreen

        app = self.app
        session = app.session
        app.push_screen(
            SettingsScreen(
                session.settings,
                self.apply_setting,
                lambda: app.theme,
                thinking=lambda: (session.thinking_level or "off", list(session.available_thinking_levels())),
            )
        )

    def apply_setting(self, key: str, value: Any) -> None:
        app = self.app
        session = app.session
        if key == "steeringMode":
            session.set_steering_mode(value)
        elif key == "followUpMode":
            session.set_follow_up_mode(value)
        elif key == "thinking":
            session.set_thinking_level(value)
            app.editor.thinking_level = session.thinking_level or "off"
        elif key == "compaction.enabled":
            session.set_auto_compaction_enabled(bool(value))
        elif key == "retry.enabled":
            session.set_auto_retry_enabled(bool(value))
        else:
            session.settings.set(key, value)
        if key == "hideThinkingBlock":
            app.chat.set_hide_thinking(bool(value))
        self.apply_editor_settings()
        app.refresh_footer()

    def apply_editor_settings(self) -> None:
        """editorPaddingX and autocompleteMaxVisible take effect at once."""
        app = self.app
        s = app.session.settings.settings
        app.editor.styles.padding = (0, 1 + max(0, int(s.editorPaddingX or 0)))
        app.menu.styles.max_height = max(3, int(s.autocompleteMaxVisible or 5))

    def preview_theme(self, name: str) -> None:
        if name in self.app.available_themes:
            self.app.theme = name

    def save_theme(self, name: str) -> None:
        self.preview_theme(name)
        self.app.session.settings.set_theme(name)

    def open_login(self, provider: str) -> None:
        from pi_app.tui.screens.login import LoginScreen

        providers = sorted({m.provider for m in self.app.session.model_registry.get_all()})
        self.app.push_screen(LoginScreen(provider, providers), self._login_done)

    def _login_done(self, result: tuple[str, str] | None) -> None:
        if result is not None:
            self.app.run_worker(self._store_key(*result), exit_on_error=False)

    async def _store_key(self, provider: str, key: str) -> None:
        app = self.app
        registry = app.session.model_registry
        registry.auth.set_api_key(provider, key)
        registry.refresh()
        await app.show_status(f"Saved API key for {provider} to auth.json")
        if app.session.model is None:
            candidates = [m for m in registry.get_available() if m.provider == provider]
            if candidates:
                await self.set_model(candidates[0])
        app.refresh_footer()
